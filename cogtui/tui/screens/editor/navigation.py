"""Moving around the editor: to a problem (per file, f8 / shift+f8), to a match (ctrl+f, f3), to a tab (f2).

f2 lists the open tabs and, after them, the module's files on disk that have none (a tab closed when its file was
deleted, the file back since, or a file made since the editor opened): choosing one opens its tab again. "Open X"
with X's editor already open does the same for every such file (`reopen`), as a new editor would show them.

Which problem is next, and which tab, are the editor state's (`core/authoring/editor_state.py`), and
the text search is the core's (`core/files/text_search`); this records each move in the state and
moves cursors and tabs to match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TabbedContent
from textual.widgets.text_area import Selection

from cogtui.core.authoring.editor_state import CONTRACT_PANE, where
from cogtui.core.diagnostics import Diagnostic, plural
from cogtui.core.files.module_listing import ModuleListing
from cogtui.core.files.terminal_text import visible
from cogtui.core.files.text_search import count_matches, find_next

from ...shown import markup
from ...widgets.diagnostics_panel import DiagnosticsPanel
from ...widgets.find_bar import FindBar
from .buffers import FileBuffer, file_pane, relative_name, tab_label
from .picker import TabPickerModal

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from .view import EditorView

NOT_OPEN = "not-open-"  # the tab list's id of a file without a tab: this prefix, then its place in the list


class Navigator:
    def __init__(self, editor: EditorView) -> None:
        self.editor = editor
        self.waiting: list[Callable[[list[Path] | str], object]] = []  # answered when the folder's listing arrives

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
        if diagnostic in panel.listed:
            panel.highlighted = panel.listed.index(diagnostic)
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
        """The tab list: the open tabs at once, then the files without a tab once the folder is listed, off the UI
        thread (TUI-4): "reading the module folder…" until then."""
        state = self.editor.state
        problems = state.problems_per_pane()
        entries = []
        for pane in state.panes():
            if pane not in state.files:
                entries.append((pane, markup("[b]contract[/] [$text-muted](schema as a tree)[/]")))
                continue
            label = tab_label(state, pane)
            if problems.get(pane):
                label += markup("  [$error]$n[/]", n=plural(problems[pane], "problem"))
            entries.append((pane, label))
        closed: list[Path] = []
        picker = TabPickerModal(entries, state.active, pending="reading the module folder…")

        def chosen(pane: str | None) -> None:
            if pane is not None and pane.startswith(NOT_OPEN):
                path = closed[int(pane.removeprefix(NOT_OPEN))]
                self.editor.app.call_later(self.open_files, [path], path)
            elif pane is not None:
                self.activate(pane)

        def listed(listing: list[Path] | str) -> None:
            if not picker.is_attached:  # closed before the folder was listed
                return
            if isinstance(listing, str):
                picker.pending_failed(listing)
                return
            closed.extend(listing)
            labels = [
                markup("$rel  [$text-muted]not open[/]", rel=visible(relative_name(path, state.root), single_line=True))
                for path in closed
            ]
            title = f"Files: {len(entries)} open, {len(closed)} not open" if closed else None
            picker.pending_done([(f"{NOT_OPEN}{index}", label) for index, label in enumerate(labels)], title)

        self.editor.app.push_screen(picker, chosen)
        self.without_tab(listed)

    # ------------------------------------------------------------ tabs for files that have none

    def without_tab(self, then: Callable[[list[Path] | str], object]) -> None:
        """`then(the module's files on disk that have no tab)`, once the folder is listed in a thread worker (a short
        walk: at most EDITOR_FILE_LIMIT files), or `then(why it cannot be listed)`. A listing under way answers every
        caller that asked meanwhile."""
        self.waiting.append(then)
        self.editor.listing.start()

    def listed(self, listing: ModuleListing | str) -> None:
        """The editor's listing arrived (editor.py's one handler): each caller waiting for it is answered."""
        waiting, self.waiting = self.waiting, []
        answer = listing if isinstance(listing, str) else self.editor.state.without_tab(listing.files)
        for then in waiting:
            then(answer)

    async def open_files(self, paths: list[Path], show: Path | None = None) -> list[str]:
        """A tab for each of `paths` that still has none, before the contract tab; `show` is shown. Returns the
        names of the files opened."""
        editor = self.editor
        state, tabs = editor.state, editor.screen.query_one(TabbedContent)
        opened = []
        for path in paths:
            if state.file_for(path) is not None or not path.is_file():
                continue
            buf = FileBuffer(path, relative_name(path, state.root), state.new_pane_id(), state.root)
            contract = {"before": CONTRACT_PANE} if state.contract else {}
            # The tab first, then the file joins the state: other handlers go on while the tab mounts (the watcher
            # reporting this very file, a validation whose timer fired), and each takes the state's files to have
            # their text areas. Calls of this one run in turn (the app's queue), so the pane id stays unused.
            await tabs.add_pane(file_pane(editor.app, buf), **contract)
            state.add(buf)
            opened.append(buf.rel)
        if show is not None and (shown := state.file_for(show)) is not None:
            self.activate(shown.pane_id)
        if opened:
            editor.validate_now()
        return opened

    def reopen(self, show: Path | None = None) -> None:
        """Back in this editor ("Open X" again): tabs for the module's files that have none, as a new editor would
        show, said once; `show` (a file asked for) is shown. While the editor is still reading its module, that
        read shows every file, and `show` first."""
        editor = self.editor
        if editor.state.loading:
            editor.focus_file = show or editor.focus_file
            return

        def listed(paths: list[Path] | str) -> None:
            if isinstance(paths, str):  # the folder is gone: nothing to open, `show` shown if it has a tab
                editor.say(paths, severity="warning")
            editor.app.call_later(self._open_said, [] if isinstance(paths, str) else paths, show)

        self.without_tab(listed)

    async def _open_said(self, paths: list[Path], show: Path | None) -> None:
        if not self.editor.is_open:
            return
        opened = await self.open_files(paths, show)
        if opened:
            names = ", ".join(opened[:5]) + (f" and {len(opened) - 5} more" if len(opened) > 5 else "")
            self.editor.say(f"Opened {names}: on disk, and no tab had it.", timeout=4)
