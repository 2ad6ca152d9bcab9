"""Moving around the editor: to a problem (per file, f8 / shift+f8), to a match (ctrl+f, f3), to a tab (f2).

The order of problems and the text search are the core's
(`diagnostics`, `core/files/text_search`); this only moves cursors and tabs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TabbedContent
from textual.widgets.text_area import Selection

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.text_search import count_matches, find_next

from ..shown import markup
from ..widgets.diagnostics_panel import DiagnosticsPanel
from ..widgets.find_bar import FindBar
from .editor_buffers import FileBuffer
from .editor_picker import TabPickerModal

if TYPE_CHECKING:
    from .editor_view import EditorView

CONTRACT_PANE = "contract"


def _where(d: Diagnostic) -> tuple[int, int]:
    return (max((d.line or 1) - 1, 0), max((d.column or 1) - 1, 0))


class Navigator:
    def __init__(self, editor: EditorView) -> None:
        self.editor = editor
        self.last_jump: Diagnostic | None = None
        self.find_query = ""

    # ------------------------------------------------------------ problems

    def jump_to(self, diagnostic: Diagnostic) -> None:
        editor = self.editor
        buf = editor.buffer_for(diagnostic.file) if diagnostic.file is not None else None
        if buf is None:
            editor.say(f"{diagnostic.code}: {diagnostic.location} is not a file open here.", severity="warning")
            return
        editor.screen.query_one(TabbedContent).active = buf.pane_id
        area = editor.area(buf)
        document = area.document
        row = min(_where(diagnostic)[0], document.line_count - 1)
        column = min(_where(diagnostic)[1], len(document.get_line(row)))
        area.move_cursor((row, column))
        area.focus()
        self.last_jump = diagnostic
        panel = editor.screen.query_one(DiagnosticsPanel)
        if diagnostic in panel.diagnostics:
            panel.highlighted = panel.diagnostics.index(diagnostic)
        # The pane was hidden until now: scroll once it has a size.
        editor.screen.call_after_refresh(area.scroll_cursor_visible, center=True)
        editor.update_status()

    def file_problems(self, buf: FileBuffer) -> list[Diagnostic]:
        mine = [d for d in self.editor.diagnostics if d.file is not None and self.editor.buffer_for(d.file) is buf]
        return sorted(mine, key=_where)

    def step_problem(self, step: int) -> None:
        """The next (or previous) problem in the open file, after the cursor, wrapping."""
        editor = self.editor
        buf = editor.current()
        if buf is None:
            editor.say("Open a file tab to move between its problems.", timeout=2)
            return
        problems = self.file_problems(buf)
        if not problems:
            elsewhere = len(editor.diagnostics)
            tail = f"; {elsewhere} in other files (ctrl+g lists them)" if elsewhere else "."
            editor.say(f"No problems in {buf.rel}{tail}", timeout=3)
            return
        cursor = editor.area(buf).cursor_location
        if self.last_jump in problems and _where(self.last_jump) == cursor:
            index = (problems.index(self.last_jump) + step) % len(problems)
        elif step > 0:
            index = next((i for i, d in enumerate(problems) if _where(d) > cursor), 0)
        else:
            index = next((i for i in reversed(range(len(problems))) if _where(problems[i]) < cursor), -1)
        self.jump_to(problems[index])

    # ------------------------------------------------------------ find

    def open_find(self) -> None:
        editor = self.editor
        buf = editor.current()
        selected = editor.area(buf).selected_text if buf is not None else ""
        editor.screen.query_one(FindBar).open(selected if selected and "\n" not in selected else self.find_query)

    def find(self, query: str) -> None:
        editor = self.editor
        bar = editor.screen.query_one(FindBar)
        self.find_query = query
        buf = editor.current()
        if buf is None or not query:
            bar.say("")
            return
        area = editor.area(buf)
        lines = area.text.split("\n")
        row, column = area.selection.end
        match = find_next(lines, query, row, column)
        if match is None:
            bar.say("not found")
            editor.say(f"{query!r} not found in {buf.rel}", timeout=2)
            return
        area.selection = Selection((match.row, match.start), (match.row, match.end))
        area.scroll_cursor_visible(center=True)
        total = count_matches(lines, query)
        bar.say(f"{total} match{'es' * (total != 1)}" + (" · wrapped" if match.wrapped else ""))

    def find_again(self) -> None:
        if not self.find_query:
            self.open_find()
        else:
            self.find(self.find_query)

    # ------------------------------------------------------------ tabs

    def pane_order(self) -> list[str]:
        order = list(self.editor.buffers)
        if self.editor.screen.query(f"#{CONTRACT_PANE}"):
            order.append(CONTRACT_PANE)
        return order

    def activate(self, pane: str) -> None:
        editor = self.editor
        editor.screen.query_one(TabbedContent).active = pane
        buf = editor.buffers.get(pane)
        if buf is not None:
            editor.area(buf).focus()
        else:
            editor.screen.query_one(f"#{CONTRACT_PANE}-tree").focus()

    def switch(self, step: int) -> None:
        order = self.pane_order()
        if not order:
            return
        active = self.editor.screen.query_one(TabbedContent).active
        index = order.index(active) if active in order else 0
        self.activate(order[(index + step) % len(order)])

    def pick(self) -> None:
        editor = self.editor
        counts: dict[str, int] = {}
        for d in editor.diagnostics:
            buf = editor.buffer_for(d.file) if d.file is not None else None
            if buf is not None:
                counts[buf.pane_id] = counts.get(buf.pane_id, 0) + 1
        entries = []
        for pane in self.pane_order():
            buf = editor.buffers.get(pane)
            if buf is None:
                entries.append((pane, markup("[b]contract[/] [$text-muted](schema as a tree)[/]")))
                continue
            label = buf.label()
            if counts.get(pane):
                label += markup("  [$error]$n problem(s)[/]", n=str(counts[pane]))
            entries.append((pane, label))
        active = editor.screen.query_one(TabbedContent).active

        def chosen(pane: str | None) -> None:
            if pane is not None:
                self.activate(pane)

        editor.app.push_screen(TabPickerModal(entries, active), chosen)
