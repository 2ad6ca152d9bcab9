"""The editor: a tab per module file, problems as you type, and saves that never lose either version.

Everything shown (status line, tab labels, read-only reasons, problems and the one f8 moved to, the find
bar, the footer's keys) is drawn from one `EditorState` (core/authoring/editor_state.py; one `FileBuffer`
per tab); the rules live in the core (loading, validation, snapshots and atomic saves). Two workers feed
the screen: validation (with the unsaved buffers overlaid on the disk; a thread that waits for `LiveChecker`'s
worker process, so a long check never holds up the keys, TUI-20) and a watchfiles watcher on the module
folder. Both only post messages; the handlers below own every state change (AGENTS.md invariant 8). The
module and its files are read off the UI thread as the editor opens (the screen says "loading the module…"
meanwhile), and so is the folder's listing for the tab list (TUI-4, opening.py, through module_loads.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static, TabbedContent, TextArea
from textual.worker import get_current_worker

from cogtui.core.authoring.editor_state import PROBLEMS_STEP, EditorState
from cogtui.core.diagnostics import Diagnostic
from cogtui.core.module.file_changes import is_scratch_file
from cogtui.core.module.model import Module

from ... import keys
from ...keys import KeySpec, bindings
from ...live_check import LiveChecker, LiveReport
from ...module_loads import FolderReads, ModuleLoaded
from ...mounting import still_open, while_open
from ...stylesheets import stylesheet
from ...watching import DEBOUNCE_MS, STEP_MS, validate_entries
from ...widgets.area_theme import keep_following_app_theme
from ...widgets.contract_tree import ContractTree
from ...widgets.diagnostics_panel import DiagnosticsPanel
from ...widgets.find_bar import FindBar
from ...widgets.key_footer import KeyFooter
from ...widgets.marked_text_area import MarkedTextArea, marks_for
from ...workbench import Workbench, workbench
from ...worker_failures import ReportsWorkerFailures
from ..modals import ChoiceModal
from .buffers import EditorBody, FileBuffer, problem_content, status_content, tab_label
from .disk import DiskFlow
from .navigation import Navigator
from .opening import Opening, read_listing, read_opening
from .saving import CLOSE_CHOICES, SaveFlow

# Priority: TextArea (a ScrollView) binds ctrl+pageup/pagedown to horizontal paging.
keys.register(
    KeySpec("editor.next_file", "ctrl+pagedown,alt+right", "next_file", "Next file", priority=True, doc="next tab"),
    KeySpec(
        "editor.prev_file", "ctrl+pageup,alt+left", "prev_file", "Previous file", priority=True, doc="previous tab"
    ),
    KeySpec(
        "editor.prev_diagnostic", "shift+f8", "prev_diagnostic", "Previous problem", doc="previous problem in this file"
    ),
    KeySpec("editor.find", "ctrl+f", "find", "Find", priority=True, doc="find in this file"),
    KeySpec("editor.find_next", "f3", "find_next", "Find next", doc="find the next match"),
    KeySpec(
        "editor.tabs",
        "ctrl+tab,f2",
        "pick_tab",
        "Files",
        main=True,
        priority=True,
        doc="list every tab (and the contract tab) to jump to, then the module's files with no tab (closed, or new) to open again",
    ),
    KeySpec(
        "editor.problems",
        "f4",
        "toggle_problems",
        "Show/hide problems",
        doc="hide / show the problems list (hidden, or with no problems, it is its one title line with the counts)",
    ),
    KeySpec(
        "editor.problems_taller", "alt+up", "problems_taller", "Problems taller", doc="make the problems list taller"
    ),
    KeySpec(
        "editor.problems_shorter",
        "alt+down",
        "problems_shorter",
        "Problems shorter",
        doc="make the problems list shorter",
    ),
)

# The pause in typing after which the module is checked again: a burst of keys asks once. Checks run one at a
# time (edits made during one are answered by one more), so a short pause cannot pile them up (TUI-13), and in a
# process of their own (TUI-20), so one that starts while the typing goes on does not slow the keys.
VALIDATE_DELAY_S = 0.1


class EditorScreen(ReportsWorkerFailures, Screen[None]):
    BINDINGS = bindings(
        "editor.save",
        "editor.external",
        "editor.next_diagnostic",
        "editor.prev_diagnostic",
        "editor.diagnostics",
        "editor.find",
        "editor.find_next",
        "editor.tabs",
        "editor.reload",
        "editor.next_file",
        "editor.prev_file",
        "editor.problems",
        "editor.problems_taller",
        "editor.problems_shorter",
        "editor.close",
    )
    DEFAULT_CSS = stylesheet("editor.tcss")
    # The opened file's editor, not the first focusable widget (the tab bar).
    AUTO_FOCUS = "TextArea.-start-file, DiagnosticsPanel"
    HELP = (
        "Edit a module's files. Problems update as you type and are marked in the gutter; `f8` / `shift+f8` "
        "move between this file's problems, `ctrl+g` goes to their list (`escape` back), `f4` hides or shows it "
        "and `alt+up` / `alt+down` resize it; `ctrl+f` finds, `f2` lists every open file. The contract tab "
        "shows the schema as a tree with the goldens behind each field."
    )

    class Validated(Message):
        """The module validated with the unsaved buffers overlaid."""

        def __init__(self, report: LiveReport | None, answers: int) -> None:
            super().__init__()
            self.report, self.answers = report, answers  # answers: the state's change count it was started at
            # report: None when the validation failed (the app was told), so the next one may start

    class DiskChanged(Message):
        """Files under the module folder changed on disk (any program, including our own saves)."""

        def __init__(self, paths: frozenset[Path]) -> None:
            super().__init__()
            self.paths = paths

    def __init__(self, path: Path, focus_file: Path | None = None) -> None:
        super().__init__()
        self.module_path = Path(path).absolute()
        self.focus_file = Path(focus_file).absolute() if focus_file is not None else None
        self.state = EditorState(self.module_path.name, self.module_path)
        self._validate_timer: Timer | None = None
        self.checker = LiveChecker()  # checks in a process of its own, ended with the screen
        self.module: Module | None = None
        self.navigator = Navigator(self)
        self.disk = DiskFlow(self)
        self.saving = SaveFlow(self, self.disk)
        self.state.loading = True  # until `opening` has read the module and its files
        self.opening = FolderReads(
            self, self.module_path, partial(read_opening, focus_file=self.focus_file), "load the module"
        )
        # the files on disk for the tab list (f2), read off the UI thread as the module is (TUI-4)
        self.listing = FolderReads(self, self.module_path, read_listing, "list the module's files")

    @property
    def bench(self) -> Workbench:
        return workbench(self.app)

    @property
    def is_open(self) -> bool:
        return still_open(self)

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 3) -> None:
        """Notify with the text as written (paths may hold [brackets])."""
        self.notify(text, severity=severity, timeout=timeout, markup=False)

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="editor-status")
        yield EditorBody(self.state, id="editor-body")
        find = FindBar(id="find-bar")
        find.display = False
        yield find
        yield DiagnosticsPanel(self.module_path, id="editor-problems")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        keep_following_app_theme(self, lambda: self.query(TextArea))
        self.update_status()
        self.show_problems()
        self.opening.start()

    def on_unmount(self) -> None:
        self.checker.close()

    @on(ModuleLoaded)
    async def _read(self, message: ModuleLoaded) -> None:
        if message.reads is self.listing:
            self.navigator.listed(self.listing.arrived(message))
        else:
            await self._opened(self.opening.arrived(message))

    async def _opened(self, opening: Opening | str) -> None:
        """The module and its files, read: their tabs (the file asked for shown first, as the editor opened or
        since, else the manifest), or why there are none; then validation and the watcher start. Nothing is drawn
        once the editor is closed (`still_open`: it may be popped before, or while, they are drawn)."""
        if isinstance(opening, str):
            self.state.opened((), None, opening)
        else:
            self.module = opening.module
            self.state.opened(opening.buffers, opening.module.name)
            start = self.state.file_for(self.focus_file) if self.focus_file is not None else None
            if start is not None:
                self.state.activate(start.pane_id)
        if not still_open(self):  # closed as it took them
            return
        await self.query_one(EditorBody).recompose()  # the tabs, drawn from the state
        if not still_open(self):  # closed while they were drawn
            return
        if not isinstance(opening, str):
            self.query_one(ContractTree).show_map(opening.contract)
        if self.state.active:  # shown once drawn (the strip is drawn without `initial=`: editor_buffers.EditorBody)
            self.query_one(TabbedContent).active = self.state.active
        self.query(self.AUTO_FOCUS).first().focus()
        self.update_status()
        self.validate_now()
        self._watch_disk()

    # ------------------------------------------------------------ lookups

    def area(self, buf: FileBuffer) -> MarkedTextArea:
        return self.query_one(f"#{buf.pane_id}-text", MarkedTextArea)

    def current(self) -> FileBuffer | None:
        return self.state.current()

    def buffer_for(self, path: Path) -> FileBuffer | None:
        return self.state.file_for(path)

    def close_buffer(self, buf: FileBuffer) -> None:
        """Close one tab (its text is gone): a file deleted on disk that the user chose not to recreate."""
        self.state.close(buf.pane_id)
        tabs = self.query_one(TabbedContent)
        tabs.remove_pane(buf.pane_id)
        if self.state.active:
            tabs.active = self.state.active
        self.validate_now()

    def has_unsaved_changes(self) -> bool:
        return any(buf.modified for buf in self.state.files.values())

    def unsaved_files(self) -> tuple[str, list[str]]:
        """The module's name and its files with unsaved edits (quitting.HoldsEdits: the quit dialog names them)."""
        return self.state.module, [buf.rel for buf in self.state.files.values() if buf.modified]

    def save_all(self, then: Callable[[], object]) -> None:
        """Save every file with unsaved edits (each may ask), then `then`; a save that does not happen stops."""
        self.saving.save_each([buf for buf in self.state.files.values() if buf.modified], then)

    # ------------------------------------------------------------ showing state

    def refresh_buffer(self, buf: FileBuffer) -> None:
        """Tab label, read-only reason and status line after `buf` changed."""
        self.query_one(TabbedContent).get_tab(buf.pane_id).label = tab_label(self.state, buf.pane_id)
        problem = self.query_one(f"#{buf.pane_id}-problem", Static)
        problem.update(problem_content(buf))
        problem.set_class(not buf.read_only, "-hidden")
        self.area(buf).read_only = buf.read_only
        self.update_status()

    def update_status(self) -> None:
        """The status line and the footer's keys, from the state."""
        # One line of a fixed size (editor.tcss): a new text redraws it, never the layout of the whole screen.
        self.query_one("#editor-status", Static).update(status_content(self.state), layout=False)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.state.can(action)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            self.state.activate(event.pane.id)
        self.update_status()

    # ------------------------------------------------------------ validation as you type

    @on(TextArea.Changed)
    def _text_changed(self, event: TextArea.Changed) -> None:
        buf = self.state.files.get((event.text_area.id or "").removesuffix("-text"))
        if buf is None:
            return
        # Read-only text may differ from the file (TextArea turns form feeds into newlines): never "modified".
        modified = not buf.read_only and event.text_area.text != buf.saved_lf
        was_checking = self.state.checking
        if self.state.edited(buf.pane_id, modified):
            self.refresh_buffer(buf)
        elif not was_checking:
            self.update_status()  # "checking…"
        if self._validate_timer is not None:
            self._validate_timer.stop()
        self._validate_timer = self.set_timer(VALIDATE_DELAY_S, self.validate_now)

    def validate_now(self) -> None:
        """Check the module again with the buffers as they are; when a check is running, one more follows it."""
        if self._validate_timer is not None:
            self._validate_timer.stop()
            self._validate_timer = None
        self.state.changed()
        if self.state.want_validation():
            self._start_validation()
        self.update_status()

    def _start_validation(self) -> None:
        texts = [(buf, self.area(buf).text) for buf in self.state.files.values() if not buf.read_only]
        overlay = {buf.path: text for buf, text in texts if text != buf.saved_lf}
        self._validate(overlay, self.state.validation_started())

    @work(thread=True, exclusive=True, group="editor-validate", exit_on_error=False)
    def _validate(self, overlay: dict[Path, str], answers: int) -> None:
        report = None
        try:
            report = self.checker.check(self.module_path, overlay)
        finally:  # answered or failed (the failure goes to the app as WorkerFailed), the next check may start
            if not get_current_worker().is_cancelled:  # the editor closed
                self.post_message(self.Validated(report, answers))

    @on(Validated)
    def _validated(self, message: Validated) -> None:
        if self.state.validation_ended():  # edits came while it ran: check their text now
            self._start_validation()
        if message.report is None:
            return
        report = message.report
        if not self.state.validated(message.answers, report.diagnostics, report.name):
            return
        if report.contract is not None and self.query(ContractTree):
            self.query_one(ContractTree).show_map(report.contract)
        self.query_one(DiagnosticsPanel).show(self.state.diagnostics)
        self.show_problems()
        for buf in self.state.files.values():
            rows = [(d.line - 1, d.severity) for d in self.state.file_problems(buf.pane_id) if d.line]
            self.area(buf).set_marks(marks_for(rows))
        self.update_status()

    def tell_app(self) -> None:
        """Revalidate this module from disk for the browser (the app's one handler applies the report).

        Not when the app watches the search path: its watcher sees the same write and revalidates once.
        """
        if not self.bench.watching:
            validate_entries(self.app, [self.module_path], group="revalidate")

    # ------------------------------------------------------------ files changed by any program

    @work(exclusive=True, group="editor-watch", exit_on_error=False)
    async def _watch_disk(self) -> None:
        from watchfiles import awatch

        async for changes in awatch(
            self.module_path,
            recursive=True,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            watch_filter=lambda _change, path: not is_scratch_file(path),
        ):
            self.post_message(self.DiskChanged(frozenset(Path(p) for _change, p in changes)))

    @on(DiskChanged)
    def _disk_changed(self, message: DiskChanged) -> None:
        self.disk.changed(message.paths)

    # ------------------------------------------------------------ moving around

    @on(DiagnosticsPanel.Selected)
    def _diagnostic_selected(self, message: DiagnosticsPanel.Selected) -> None:
        self.jump_to(message.diagnostic)

    def jump_to(self, diagnostic: Diagnostic) -> None:
        self.navigator.jump_to(diagnostic)

    def action_next_diagnostic(self) -> None:
        self.navigator.step_problem(1)

    def action_prev_diagnostic(self) -> None:
        self.navigator.step_problem(-1)

    def action_focus_diagnostics(self) -> None:
        if not self.state.problems_open:
            self.state.toggle_problems()
            self.show_problems()
        panel = self.query_one(DiagnosticsPanel)
        if panel.highlighted is None and panel.diagnostics:
            panel.highlighted = 0
        panel.focus()

    @on(DiagnosticsPanel.Left)
    def _left_problems(self) -> None:
        """Escape in the problems list: back to the text; with no file to go back to (nothing could be opened),
        escape means what it means in the editor: back to where the editor was opened from."""
        if not self.state.files:
            self.action_close()
        else:
            self.back_to_text()

    def back_to_text(self) -> None:
        """The shown file's text (or the contract tab's tree) has the focus again."""
        if (buf := self.current()) is not None:
            self.area(buf).focus()
        elif self.query(ContractTree):
            self.query_one(ContractTree).focus()

    def show_problems(self) -> None:
        """The problems pane as the state has it: its title (the counts), and its height (one line when collapsed:
        no problems, or hidden with `f4`)."""
        state, panel = self.state, self.query_one(DiagnosticsPanel)
        panel.border_title = state.problems_title()
        panel.set_class(state.problems_collapsed, "-collapsed")
        panel.styles.height = state.problems_rows()  # resized by keys: a value of the state, not of the stylesheet
        if state.problems_collapsed and panel.has_focus:
            self.back_to_text()
        self.refresh_bindings()

    def action_toggle_problems(self) -> None:
        self.state.toggle_problems()
        self.show_problems()

    def action_problems_taller(self) -> None:
        if self.state.resize_problems(PROBLEMS_STEP):
            self.show_problems()

    def action_problems_shorter(self) -> None:
        if self.state.resize_problems(-PROBLEMS_STEP):
            self.show_problems()

    def action_next_file(self) -> None:
        self.navigator.switch(1)

    def action_prev_file(self) -> None:
        self.navigator.switch(-1)

    def action_pick_tab(self) -> None:
        self.navigator.pick()

    def action_find(self) -> None:
        self.navigator.open_find()

    def action_find_next(self) -> None:
        self.navigator.find_again()

    @on(FindBar.Find)
    def _find(self, message: FindBar.Find) -> None:
        self.navigator.find(message.query)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.state.find_closed()
        if (buf := self.current()) is not None:
            self.area(buf).focus()

    # ------------------------------------------------------------ saving, reloading, $EDITOR (saving.py)

    def action_save(self) -> None:
        if (buf := self.current()) is not None:
            self.saving.save(buf)

    def action_reload(self) -> None:
        if (buf := self.current()) is not None:
            self.saving.reload(buf)

    def action_external_editor(self) -> None:
        if (buf := self.current()) is not None:
            self.saving.external_editor(buf)

    # ------------------------------------------------------------ leaving

    def action_close(self) -> None:
        modified = [buf.rel for buf in self.state.files.values() if buf.modified]
        if not modified:
            self.app.pop_screen()
            return

        def decided(choice: str | None) -> None:
            if choice == "discard":
                self.app.pop_screen()
            elif choice == "save":
                self.saving.save_each([b for b in self.state.files.values() if b.modified], self.app.pop_screen)

        self.app.push_screen(
            ChoiceModal(
                "Unsaved edits",
                f"Unsaved edits in {', '.join(modified)}. Save them before closing the editor, or discard them?",
                CLOSE_CHOICES,
            ),
            decided,
        )
