"""The editor: a tab per module file, problems as you type, and saves that never lose either version.

State lives in one `FileBuffer` per tab (editor_buffers.py); the rules live in
the core (loading, validation, snapshots and atomic saves). Two workers feed
the screen: validation in a thread (with the unsaved buffers overlaid on the
disk) and a watchfiles watcher on the module folder. Both only post
messages; the handlers below own every state change (AGENTS.md invariant 8).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import ComposeResult
from textual.markup import escape
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer
from textual.widgets import Footer, Static, TabbedContent, TabPane, TextArea
from textual.worker import Worker, WorkerState, get_current_worker

from cogtui.core.diagnostics import Diagnostic, counts
from cogtui.core.files.editor_snapshot import changed_on_disk
from cogtui.core.files.sourcemap import file_overlay
from cogtui.core.module.loader import NotAModule, load_module
from cogtui.core.workspace import ModuleReport, check_path

from .. import keys
from ..keys import KeySpec, bindings
from ..watching import DEBOUNCE_MS, STEP_MS, ignored, validate_entries
from ..widgets.diagnostics_panel import DiagnosticsPanel
from .editor_buffers import FileBuffer, language_for, relative_name, status_markup
from .editor_saving import SaveFlow
from .modals import ConfirmModal

if TYPE_CHECKING:
    from ..app import CogtuiApp

# Priority: TextArea (a ScrollView) binds ctrl+pageup/pagedown to horizontal paging.
keys.register(
    KeySpec("editor.next_file", "ctrl+pagedown,alt+right", "next_file", "Next file", priority=True),
    KeySpec("editor.prev_file", "ctrl+pageup,alt+left", "prev_file", "Previous file", priority=True),
)

# Long enough to let a word be typed without a validation per key, short enough to feel live.
VALIDATE_DELAY_S = 0.3


class EditorScreen(Screen[None]):
    BINDINGS = bindings(
        "editor.save",
        "editor.external",
        "editor.next_diagnostic",
        "editor.diagnostics",
        "editor.reload",
        "editor.next_file",
        "editor.prev_file",
        "editor.close",
    )
    CSS_PATH = Path(__file__).parent.parent / "styles" / "editor.tcss"
    # The opened file's editor, not the first focusable widget (the tab bar).
    AUTO_FOCUS = "TextArea.-start-file, DiagnosticsPanel"
    HELP = "Edit a module's files. Problems update as you type; `f8` jumps to the next one."

    class Validated(Message):
        """The module validated with the unsaved buffers overlaid."""

        def __init__(self, report: ModuleReport) -> None:
            super().__init__()
            self.report = report

    class DiskChanged(Message):
        """Files under the module folder changed on disk (any program, including our own saves)."""

        def __init__(self, paths: frozenset[Path]) -> None:
            super().__init__()
            self.paths = paths

    def __init__(self, path: Path, focus_file: Path | None = None) -> None:
        super().__init__()
        self.module_path = Path(path).absolute()
        self.focus_file = Path(focus_file).absolute() if focus_file is not None else None
        self.module_name = self.module_path.name
        self.open_problem = ""  # why no file could be opened at all
        self.diagnostics: list[Diagnostic] = []
        self.buffers: dict[str, FileBuffer] = {}  # by pane id, in tab order
        self._by_path: dict[Path, FileBuffer] = {}
        self._validate_timer: Timer | None = None
        self.saving = SaveFlow(self)
        self._open_buffers()

    @property
    def cog(self) -> CogtuiApp:
        return cast("CogtuiApp", self.app)

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 3) -> None:
        """Notify with the text as written: paths and messages may contain [brackets]."""
        self.notify(text, severity=severity, timeout=timeout, markup=False)

    def _open_buffers(self) -> None:
        try:
            module = load_module(self.module_path)
        except (NotAModule, OSError) as exc:
            self.open_problem = str(exc)
            return
        self.module_name = module.name
        files = list(module.all_files)  # the manifest comes first
        if self.focus_file is not None and self.focus_file not in files and self.focus_file.is_file():
            files.append(self.focus_file)
        for index, path in enumerate(files):
            buf = FileBuffer(path, relative_name(path, self.module_path), f"file-{index}")
            self.buffers[buf.pane_id] = buf
            self._by_path[path] = buf
            self._by_path.setdefault(path.resolve(), buf)  # watchfiles may report resolved paths

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="editor-status")
        start = self._start_buffer()
        with TabbedContent(id="editor-tabs", initial=start.pane_id if start is not None else ""):
            for buf in self.buffers.values():
                text = buf.load()
                with TabPane(buf.label(), id=buf.pane_id):
                    yield Static(
                        buf.problem_markup(),
                        id=f"{buf.pane_id}-problem",
                        classes="editor-problem" + ("" if buf.read_only else " -hidden"),
                    )
                    yield TextArea.code_editor(
                        text,
                        language=language_for(buf.path) if buf.highlighted else None,
                        read_only=buf.read_only,
                        theme=self._area_theme(),
                        tab_behavior="focus",
                        id=f"{buf.pane_id}-text",
                        classes="-start-file" if buf is start else None,
                    )
        if not self.buffers:
            yield Static(
                escape(f"Cannot open this module: {self.open_problem or 'it has no files'}"), id="editor-empty"
            )
        yield DiagnosticsPanel(self.module_path, id="editor-problems")
        yield Footer()

    def _start_buffer(self) -> FileBuffer | None:
        """The tab to show first: the file asked for, else the manifest."""
        start = self._by_path.get(self.focus_file) if self.focus_file is not None else None
        return start or next(iter(self.buffers.values()), None)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._update_status()
        self.validate_now()
        self._watch_disk()

    def _area_theme(self) -> str:
        # "css" takes the app theme's colours; its syntax colours are for dark backgrounds.
        return "css" if self.app.current_theme.dark else "github_light"

    def _theme_changed(self, _theme: Theme) -> None:
        for area in self.query(TextArea):
            area.theme = self._area_theme()

    # ------------------------------------------------------------ lookups

    def area(self, buf: FileBuffer) -> TextArea:
        return self.query_one(f"#{buf.pane_id}-text", TextArea)

    def current(self) -> FileBuffer | None:
        if not self.buffers:
            return None
        return self.buffers.get(self.query_one(TabbedContent).active)

    def buffer_for(self, path: Path) -> FileBuffer | None:
        return self._by_path.get(path) or self._by_path.get(path.resolve())

    def has_unsaved_changes(self) -> bool:
        return any(buf.modified for buf in self.buffers.values())

    # ------------------------------------------------------------ showing state

    def refresh_buffer(self, buf: FileBuffer) -> None:
        """Tab label, read-only reason and status line after `buf` changed."""
        self.query_one(TabbedContent).get_tab(buf.pane_id).label = buf.label()
        problem = self.query_one(f"#{buf.pane_id}-problem", Static)
        problem.update(buf.problem_markup())
        problem.set_class(not buf.read_only, "-hidden")
        self.area(buf).read_only = buf.read_only
        self._update_status()

    def _update_status(self) -> None:
        markup = status_markup(self.module_name, self.current(), counts(self.diagnostics))
        self.query_one("#editor-status", Static).update(markup)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self) -> None:
        self._update_status()

    # ------------------------------------------------------------ validation as you type

    @on(TextArea.Changed)
    def _text_changed(self, event: TextArea.Changed) -> None:
        buf = self.buffers.get((event.text_area.id or "").removesuffix("-text"))
        if buf is None:
            return
        # Read-only text may differ from the file (TextArea turns form feeds into newlines): never "modified".
        modified = not buf.read_only and event.text_area.text != buf.saved_lf
        if modified != buf.modified:
            buf.modified = modified
            self.refresh_buffer(buf)
        if self._validate_timer is not None:
            self._validate_timer.stop()
        self._validate_timer = self.set_timer(VALIDATE_DELAY_S, self.validate_now)

    def validate_now(self) -> None:
        if self._validate_timer is not None:
            self._validate_timer.stop()
            self._validate_timer = None
        texts = [(buf, self.area(buf).text) for buf in self.buffers.values() if not buf.read_only]
        overlay = {buf.path: text for buf, text in texts if text != buf.saved_lf}
        self._validate(overlay)

    @work(thread=True, exclusive=True, group="editor-validate", exit_on_error=False)
    def _validate(self, overlay: dict[Path, str]) -> None:
        with file_overlay(overlay):
            report = check_path(self.module_path)
        if not get_current_worker().is_cancelled:  # a newer edit started a newer validation
            self.post_message(self.Validated(report))

    @on(Validated)
    def _validated(self, message: Validated) -> None:
        self.diagnostics = list(message.report.diagnostics)
        if message.report.module is not None:
            self.module_name = message.report.module.name
        self.query_one(DiagnosticsPanel).show(self.diagnostics)
        self._update_status()

    def tell_app(self) -> None:
        """Revalidate this module from disk for the browser (the app's one handler applies the report).

        Not when the app watches the search path: its watcher sees the same write and revalidates once.
        """
        if not self.cog.watching:
            validate_entries(self.cog, [self.module_path], group="revalidate")

    # ------------------------------------------------------------ files changed by any program

    @work(exclusive=True, group="editor-watch", exit_on_error=False)
    async def _watch_disk(self) -> None:
        from watchfiles import awatch

        async for changes in awatch(
            self.module_path,
            recursive=True,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            watch_filter=lambda _change, path: not ignored(path),
        ):
            self.post_message(self.DiskChanged(frozenset(Path(p) for _change, p in changes)))

    @on(DiskChanged)
    def _disk_changed(self, message: DiskChanged) -> None:
        touched = {buf.pane_id: buf for p in message.paths if (buf := self.buffer_for(p)) is not None}
        reloaded: list[str] = []
        conflicted: list[str] = []
        deleted: list[str] = []
        for buf in touched.values():
            # From the text itself: a keystroke whose Changed message is still queued must count as an edit.
            buf.modified = not buf.read_only and self.area(buf).text != buf.saved_lf
            on_disk_differs = buf.snapshot is None or changed_on_disk(buf.snapshot)
            if on_disk_differs and not buf.path.exists() and buf.snapshot is not None and buf.snapshot.exists:
                # Keep the text: an empty reload would hide that the file is gone; save writes it back.
                if not buf.stale:
                    deleted.append(buf.rel)
                buf.stale = True
                self.refresh_buffer(buf)
            elif buf.modified:
                # Keep the edits; save will offer reload / overwrite / diff.
                if on_disk_differs and not buf.stale:
                    conflicted.append(buf.rel)
                buf.stale = on_disk_differs
                self.refresh_buffer(buf)
            elif on_disk_differs:
                self.reload_buffer(buf)
                reloaded.append(buf.rel)
        if reloaded:
            self.say(f"Reloaded {', '.join(reloaded)} (changed on disk)", timeout=3)
        if conflicted:
            self.say(
                f"{', '.join(conflicted)} changed on disk; your edits are kept. "
                "Save (ctrl+s) to choose which version wins.",
                severity="warning",
                timeout=8,
            )
        if deleted:
            self.say(
                f"{', '.join(deleted)} deleted on disk; the editor keeps the text (ctrl+s writes it back).",
                severity="warning",
                timeout=8,
            )
        others = len(touched) < len(message.paths)  # files the editor has no tab for (a new test, a folder)
        if reloaded or conflicted or deleted or others:
            self.validate_now()
            self.tell_app()

    def reload_buffer(self, buf: FileBuffer) -> None:
        """Load the disk version into the tab, keeping the cursor and scroll position where they still fit."""
        area = self.area(buf)
        row, column = area.cursor_location
        scroll_y = area.scroll_y
        with area.prevent(TextArea.Changed):  # reloading is not an edit, and validation follows anyway
            area.load_text(buf.load())
        language = language_for(buf.path) if buf.highlighted else None
        if area.language != language:  # it grew past (or shrank below) the highlighting limit
            area.language = language
        document = area.document
        row = min(row, document.line_count - 1)
        area.move_cursor((row, min(column, len(document.get_line(row)))))
        area.scroll_to(y=scroll_y, animate=False)
        self.refresh_buffer(buf)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.group in ("editor-validate", "editor-watch"):
            what = "Validation" if event.worker.group == "editor-validate" else "Watching the module folder"
            self.say(f"{what} failed: {event.worker.error}", severity="error", timeout=8)

    # ------------------------------------------------------------ moving around

    @on(DiagnosticsPanel.Selected)
    def _diagnostic_selected(self, message: DiagnosticsPanel.Selected) -> None:
        self.jump_to(message.diagnostic)

    def jump_to(self, diagnostic: Diagnostic) -> None:
        buf = self.buffer_for(diagnostic.file) if diagnostic.file is not None else None
        if buf is None:
            self.say(f"{diagnostic.code}: {diagnostic.location} is not a file open here.", severity="warning")
            return
        self.query_one(TabbedContent).active = buf.pane_id
        area = self.area(buf)
        document = area.document
        row = min(max((diagnostic.line or 1) - 1, 0), document.line_count - 1)
        column = min(max((diagnostic.column or 1) - 1, 0), len(document.get_line(row)))
        area.move_cursor((row, column))
        area.focus()
        # The pane was hidden until now: scroll once it has a size.
        self.call_after_refresh(area.scroll_cursor_visible, center=True)
        self._update_status()

    def action_next_diagnostic(self) -> None:
        diagnostic = self.query_one(DiagnosticsPanel).highlight_next()
        if diagnostic is None:
            self.say("No problems.", timeout=2)
            return
        self.jump_to(diagnostic)

    def action_focus_diagnostics(self) -> None:
        panel = self.query_one(DiagnosticsPanel)
        if panel.highlighted is None and panel.diagnostics:
            panel.highlighted = 0
        panel.focus()

    def _switch_file(self, step: int) -> None:
        order = list(self.buffers)
        buf = self.current()
        if buf is None:
            return
        target = self.buffers[order[(order.index(buf.pane_id) + step) % len(order)]]
        self.query_one(TabbedContent).active = target.pane_id
        self.area(target).focus()

    def action_next_file(self) -> None:
        self._switch_file(1)

    def action_prev_file(self) -> None:
        self._switch_file(-1)

    # ------------------------------------------------------------ saving, reloading, $EDITOR (editor_saving.py)

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
        modified = [buf.rel for buf in self.buffers.values() if buf.modified]
        if not modified:
            self.app.pop_screen()
            return

        def decided(discard: bool | None) -> None:
            if discard:
                self.app.pop_screen()

        self.app.push_screen(
            ConfirmModal(
                "Discard unsaved edits?",
                f"Unsaved edits in {', '.join(modified)}. Close the editor and lose them?",
                confirm="Discard",
                danger=True,
            ),
            decided,
        )
