"""The editor: a tab per module file, problems as you type, and saves that never lose either version.

Everything shown (status line, tab labels, read-only reasons, problems and the one f8 moved to, the find bar, the
footer's keys) is drawn from one `EditorState` (core/authoring/editor_state.py; one `FileBuffer` per tab); the rules
live in the core (loading, validation, snapshots and atomic saves). This file is the screen: what it is made of, how
it draws the state, and one handler per key and message, each handing over to the behaviour it belongs to:
- opening.py: the module and its files read off the UI thread as the editor opens, then tabs for files without one;
- checking.py: the module checked as you type, in a process of its own, and the answer drawn;
- problems.py: moving between problems, and the problems pane shown, hidden and resized;
- find.py: finding text in the open file; picker.py: the tab list (f2);
- saving.py: saving, reloading, leaving with unsaved edits, and the folder watched for other programs' changes
  (its three-way merge view: merge.py); external.py: the file handed to $EDITOR and back;
- drawing.py: the status line and the tabs, drawn from the state.
Workers (the reads, the check, the watcher) only post messages; the handlers below own every state change
(AGENTS.md invariant 8).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import getters, on
from textual.app import ComposeResult
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Static, TabbedContent, TextArea

from cogtui.core.authoring.editor_files import FileBuffer
from cogtui.core.authoring.editor_state import CONTRACT_PANE, EditorState

from ... import keys
from ...keys import KeySpec, bindings
from ...live_check import LiveChecker
from ...module_loads import ModuleLoaded
from ...mounting import still_open, while_open
from ...stylesheets import stylesheet
from ...widgets.area_theme import keep_following_app_theme
from ...widgets.contract_tree import ContractTree
from ...widgets.diagnostics_panel import DiagnosticsPanel
from ...widgets.find_bar import FindBar
from ...widgets.key_footer import KeyFooter
from ...widgets.marked_text_area import MarkedTextArea
from ...worker_failures import ReportsWorkerFailures
from .checking import Checking, Validated
from .drawing import START_FOCUS, EditorBody, problem_content, status_content, tab_label
from .external import ExternalEdit
from .find import Find
from .opening import Opening
from .picker import pick_tab
from .problems import Problems
from .saving import DiskChanged, DiskFlow, SaveFlow

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
    AUTO_FOCUS = START_FOCUS
    HELP = (
        "Edit a module's files. Problems update as you type and are marked in the gutter; `f8` / `shift+f8` "
        "move between this file's problems, `ctrl+g` goes to their list (`escape` back), `f4` hides or shows it "
        "and `alt+up` / `alt+down` resize it; `ctrl+f` finds, `f2` lists every open file. The contract tab "
        "shows the schema as a tree with the goldens behind each field."
    )

    status_line = getters.query_one("#editor-status", Static)
    body = getters.query_one("#editor-body", EditorBody)
    # There except while the body is drawn again, once the module is read (when the state offers nothing to do with
    # tabs yet); a getter queries at each use, so it finds the new one.
    tabs = getters.query_one("#editor-tabs", TabbedContent)
    find_bar = getters.query_one("#find-bar", FindBar)
    problems_panel = getters.query_one("#editor-problems", DiagnosticsPanel)

    def __init__(self, path: Path, focus_file: Path | None = None) -> None:
        super().__init__()
        self.module_path = Path(path).absolute()
        self.focus_file = Path(focus_file).absolute() if focus_file is not None else None
        self.state = EditorState(self.module_path.name, self.module_path)
        self.state.loading = True  # until the module and its files are read
        self.checker = LiveChecker()  # checks in a process of its own, ended with the screen
        self.disk = DiskFlow(self)
        # The module and its files read off the UI thread as the editor opens, and later the folder's files for the
        # tab list (f2) and "Open X" again (TUI-4: a big module or folder would hold up the keys meanwhile).
        self.opening = Opening(self, self.disk)
        self.checking = Checking(self)
        self.problems = Problems(self)
        self.finding = Find(self)
        self.saving = SaveFlow(self, self.disk)
        self.external = ExternalEdit(self, self.saving)

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
        await self.opening.arrived(message)

    # ------------------------------------------------------------ lookups, and what others ask of an editor

    @property
    def is_open(self) -> bool:
        return still_open(self)

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 3) -> None:
        """Notify with the text as written (paths may hold [brackets])."""
        self.notify(text, severity=severity, timeout=timeout, markup=False)

    def area(self, buf: FileBuffer) -> MarkedTextArea:
        return self.query_one(f"#{buf.pane_id}-text", MarkedTextArea)  # a tab's: they come and go

    def current(self) -> FileBuffer | None:
        return self.state.current()

    def buffer_for(self, path: Path) -> FileBuffer | None:
        return self.state.file_for(path)

    def reopen(self, show: Path | None = None) -> None:
        """This module's editor asked for again ("Open X"): the files without a tab open (opening.py)."""
        self.opening.reopen(show)

    def has_unsaved_changes(self) -> bool:
        return any(buf.modified for buf in self.state.files.values())

    def unsaved_files(self) -> tuple[str, list[str]]:
        """The module's name and its files with unsaved edits (quitting.HoldsEdits: the quit dialog names them)."""
        return self.state.module, [buf.rel for buf in self.state.files.values() if buf.modified]

    def save_all(self, then: Callable[[], object]) -> None:
        """Save every file with unsaved edits (each may ask), then `then`; a save that does not happen stops."""
        self.saving.save_each([buf for buf in self.state.files.values() if buf.modified], then)

    # ------------------------------------------------------------ drawing the state

    def refresh_buffer(self, buf: FileBuffer) -> None:
        """Tab label, read-only reason and status line after `buf` changed."""
        self.tabs.get_tab(buf.pane_id).label = tab_label(self.state, buf.pane_id)
        problem = self.query_one(f"#{buf.pane_id}-problem", Static)
        problem.update(problem_content(buf))
        problem.set_class(not buf.read_only, "-hidden")
        self.area(buf).read_only = buf.read_only
        self.update_status()

    def update_status(self) -> None:
        """The status line and the footer's keys, from the state."""
        # One line of a fixed size (editor.tcss): a new text redraws it, never the layout of the whole screen.
        self.status_line.update(status_content(self.state), layout=False)
        self.refresh_bindings()

    def show_problems(self) -> None:
        """The problems pane as the state has it: its title (the counts), and its height (one line when collapsed:
        no problems, or hidden with `f4`)."""
        state, panel = self.state, self.problems_panel
        panel.border_title = state.problems_title()
        panel.set_class(state.problems_collapsed, "-collapsed")
        panel.styles.height = state.problems_rows()  # resized by keys: a value of the state, not of the stylesheet
        if state.problems_collapsed and panel.has_focus:
            self.back_to_text()
        self.refresh_bindings()

    def show_tab(self, pane: str) -> None:
        """The tab `pane` shown, its text (or the contract tab's tree) focused."""
        self.state.activate(pane)
        self.tabs.active = pane
        buf = self.state.files.get(pane)
        if buf is not None:
            self.area(buf).focus()
        else:
            self.query_one(f"#{CONTRACT_PANE}-tree").focus()
        self.update_status()

    def back_to_text(self) -> None:
        """The shown file's text (or the contract tab's tree) has the focus again."""
        if (buf := self.current()) is not None:
            self.area(buf).focus()
        elif self.query(ContractTree):  # a module with a contract has its tab
            self.query_one(ContractTree).focus()

    def close_buffer(self, buf: FileBuffer) -> None:
        """Close one tab (its text is gone): a file deleted on disk that the user chose not to recreate."""
        self.state.close(buf.pane_id)
        self.tabs.remove_pane(buf.pane_id)
        if self.state.active:
            self.tabs.active = self.state.active
        self.validate_now()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.state.can(action)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            self.state.activate(event.pane.id)
        self.update_status()

    # ------------------------------------------------------------ checking as you type (checking.py)

    @on(TextArea.Changed)
    def _text_changed(self, event: TextArea.Changed) -> None:
        self.checking.edited(event)

    def validate_now(self) -> None:
        """Check the module again with the buffers as they are; when a check is running, one more follows it."""
        self.checking.validate_now()

    @on(Validated)
    def _validated(self, message: Validated) -> None:
        self.checking.validated(message)

    def tell_app(self) -> None:
        """Revalidate this module from disk for the browser (checking.py)."""
        self.checking.tell_app()

    # ------------------------------------------------------------ problems (problems.py)

    @on(DiagnosticsPanel.Selected)
    def _diagnostic_selected(self, message: DiagnosticsPanel.Selected) -> None:
        self.problems.jump_to(message.diagnostic)

    @on(DiagnosticsPanel.Left)
    def _left_problems(self) -> None:
        self.problems.left_list()

    def action_next_diagnostic(self) -> None:
        self.problems.step(1)

    def action_prev_diagnostic(self) -> None:
        self.problems.step(-1)

    def action_focus_diagnostics(self) -> None:
        self.problems.focus_list()

    def action_toggle_problems(self) -> None:
        self.problems.toggle()

    def action_problems_taller(self) -> None:
        self.problems.resize(taller=True)

    def action_problems_shorter(self) -> None:
        self.problems.resize(taller=False)

    # ------------------------------------------------------------ tabs (picker.py) and find (find.py)

    def action_next_file(self) -> None:
        if (pane := self.state.pane_after(1)) is not None:
            self.show_tab(pane)

    def action_prev_file(self) -> None:
        if (pane := self.state.pane_after(-1)) is not None:
            self.show_tab(pane)

    def action_pick_tab(self) -> None:
        pick_tab(self, self.opening)

    def action_find(self) -> None:
        self.finding.open()

    def action_find_next(self) -> None:
        self.finding.again()

    @on(FindBar.Find)
    def _find(self, message: FindBar.Find) -> None:
        self.finding.find(message.query)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.finding.closed()

    # ------------------------------------------------------------ saving, the disk, $EDITOR (saving.py, external.py)

    def action_save(self) -> None:
        if (buf := self.current()) is not None:
            self.saving.save(buf)

    def action_reload(self) -> None:
        if (buf := self.current()) is not None:
            self.saving.reload(buf)

    @on(DiskChanged)
    def _disk_changed(self, message: DiskChanged) -> None:
        self.disk.changed(message.paths)

    def action_external_editor(self) -> None:
        if (buf := self.current()) is not None:
            self.external.start(buf)

    def action_close(self) -> None:
        self.saving.close()
