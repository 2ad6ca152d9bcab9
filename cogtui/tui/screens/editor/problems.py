"""Moving between problems: to the next or previous one in the open file (f8 / shift+f8), to the one chosen in the
problems list (enter or a click there; ctrl+g goes to the list, escape back), and the list's pane shown, hidden
(f4) or resized (alt+up / alt+down).

Which problem is next is the editor state's (`core/authoring/editor_state.py`), and so are the pane's height and
whether it shows; this records each move in the state and moves the cursor, the tab and the list's highlight to
match. The pane itself is drawn from the state by the screen (`show_problems`), which the answer of every check
draws too (checking.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogtui.core.authoring.editor_state import PROBLEMS_STEP, where
from cogtui.core.diagnostics import Diagnostic

if TYPE_CHECKING:
    from .view import EditorView


class Problems:
    def __init__(self, editor: EditorView) -> None:
        self.editor = editor

    def jump_to(self, diagnostic: Diagnostic) -> None:
        """The problem's file shown, the cursor on its spot, and the list highlighting it."""
        editor = self.editor
        buf = editor.state.jumped(diagnostic)
        if buf is None:
            editor.say(f"{diagnostic.code}: {diagnostic.location} is not a file open here.", severity="warning")
            return
        editor.tabs.active = buf.pane_id
        area = editor.area(buf)
        document = area.document
        row = min(where(diagnostic)[0], document.line_count - 1)
        column = min(where(diagnostic)[1], len(document.get_line(row)))
        area.move_cursor((row, column))
        area.focus()
        panel = editor.problems_panel
        if diagnostic in panel.listed:
            panel.highlighted = panel.listed.index(diagnostic)
        # The pane was hidden until now: scroll once it has a size.
        editor.screen.call_after_refresh(area.scroll_cursor_visible, center=True)
        editor.update_status()

    def step(self, step: int) -> None:
        """The next (or previous) problem in the open file, after the cursor, wrapping."""
        editor = self.editor
        buf = editor.current()
        if buf is None:
            editor.say("Open a file tab to move between its problems.", timeout=2)
            return
        problem = editor.state.next_problem(editor.area(buf).cursor_location, step)
        if problem is None:
            elsewhere = len(editor.state.diagnostics)
            tail = f"; {elsewhere} in other files (ctrl+g lists them)" if elsewhere else "."
            editor.say(f"No problems in {buf.rel}{tail}", timeout=3)
            return
        self.jump_to(problem)

    def focus_list(self) -> None:
        """The problems list has the focus (shown first when `f4` had hidden it), its first problem highlighted."""
        editor = self.editor
        if not editor.state.problems_open:
            editor.state.toggle_problems()
            editor.show_problems()
        panel = editor.problems_panel
        if panel.highlighted is None and panel.diagnostics:
            panel.highlighted = 0
        panel.focus()

    def left_list(self) -> None:
        """Escape in the problems list: back to the text; with no file to go back to (nothing could be opened),
        escape means what it means in the editor: back to where the editor was opened from."""
        if not self.editor.state.files:
            self.editor.action_close()
        else:
            self.editor.back_to_text()

    def toggle(self) -> None:
        self.editor.state.toggle_problems()
        self.editor.show_problems()

    def resize(self, taller: bool) -> None:
        if self.editor.state.resize_problems(PROBLEMS_STEP if taller else -PROBLEMS_STEP):
            self.editor.show_problems()
