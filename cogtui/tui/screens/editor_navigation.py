"""Moving around the editor: to a problem (per file, f8 / shift+f8), to a match (ctrl+f, f3), to a tab (f2).

Which problem is next, and which tab, are the editor state's (`core/authoring/editor_state.py`), and
the text search is the core's (`core/files/text_search`); this records each move in the state and
moves cursors and tabs to match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TabbedContent
from textual.widgets.text_area import Selection

from cogtui.core.authoring.editor_state import CONTRACT_PANE, where
from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.text_search import count_matches, find_next

from ..shown import markup
from ..widgets.diagnostics_panel import DiagnosticsPanel
from ..widgets.find_bar import FindBar
from .editor_buffers import tab_label
from .editor_picker import TabPickerModal

if TYPE_CHECKING:
    from .editor_view import EditorView


class Navigator:
    def __init__(self, editor: EditorView) -> None:
        self.editor = editor

    # ------------------------------------------------------------ problems

    def jump_to(self, diagnostic: Diagnostic) -> None:
        editor = self.editor
        buf = editor.state.jumped(diagnostic)
        if buf is None:
            editor.say(f"{diagnostic.code}: {diagnostic.location} is not a file open here.", severity="warning")
            return
        editor.screen.query_one(TabbedContent).active = buf.pane_id
        area = editor.area(buf)
        document = area.document
        row = min(where(diagnostic)[0], document.line_count - 1)
        column = min(where(diagnostic)[1], len(document.get_line(row)))
        area.move_cursor((row, column))
        area.focus()
        panel = editor.screen.query_one(DiagnosticsPanel)
        if diagnostic in panel.diagnostics:
            panel.highlighted = panel.diagnostics.index(diagnostic)
        # The pane was hidden until now: scroll once it has a size.
        editor.screen.call_after_refresh(area.scroll_cursor_visible, center=True)
        editor.update_status()

    def step_problem(self, step: int) -> None:
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

    # ------------------------------------------------------------ find

    def open_find(self) -> None:
        editor = self.editor
        buf = editor.current()
        selected = editor.area(buf).selected_text if buf is not None else ""
        editor.state.find_opened()
        query = selected if selected and "\n" not in selected else editor.state.find_query
        bar = editor.screen.query_one(FindBar)
        bar.open(query)
        bar.say(editor.state.find_note_for(query))
        editor.update_status()

    def find(self, query: str) -> None:
        editor = self.editor
        buf = editor.current()
        note = ""
        if buf is not None and query:
            area = editor.area(buf)
            lines = area.text.split("\n")
            row, column = area.selection.end
            match = find_next(lines, query, row, column)
            if match is None:
                note = "not found"
                editor.say(f"{query!r} not found in {buf.rel}", timeout=2)
            else:
                area.selection = Selection((match.row, match.start), (match.row, match.end))
                area.scroll_cursor_visible(center=True)
                total = count_matches(lines, query)
                note = f"{total} match{'es' * (total != 1)}" + (" · wrapped" if match.wrapped else "")
        editor.state.found(query, note)
        editor.screen.query_one(FindBar).say(note)

    def find_again(self) -> None:
        if not self.editor.state.find_query:
            self.open_find()
        else:
            self.find(self.editor.state.find_query)

    # ------------------------------------------------------------ tabs

    def activate(self, pane: str) -> None:
        editor = self.editor
        editor.state.activate(pane)
        editor.screen.query_one(TabbedContent).active = pane
        buf = editor.state.files.get(pane)
        if buf is not None:
            editor.area(buf).focus()
        else:
            editor.screen.query_one(f"#{CONTRACT_PANE}-tree").focus()
        editor.update_status()

    def switch(self, step: int) -> None:
        pane = self.editor.state.pane_after(step)
        if pane is not None:
            self.activate(pane)

    def pick(self) -> None:
        state = self.editor.state
        problems = state.problems_per_pane()
        entries = []
        for pane in state.panes():
            if pane not in state.files:
                entries.append((pane, markup("[b]contract[/] [$text-muted](schema as a tree)[/]")))
                continue
            label = tab_label(state, pane)
            if problems.get(pane):
                label += markup("  [$error]$n problem(s)[/]", n=str(problems[pane]))
            entries.append((pane, label))

        def chosen(pane: str | None) -> None:
            if pane is not None:
                self.activate(pane)

        self.editor.app.push_screen(TabPickerModal(entries, state.active), chosen)
