"""The cogtui Textual app: wiring only. Screens hold the UI, the core holds the rules, workers do the slow parts."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.command import Provider
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.signal import Signal

from cogtui.core.files.terminal_text import visible
from cogtui.core.settings.config import Config, load_config, save_setting
from cogtui.core.settings.locations import outbox_dir

from . import terminal_gone
from .key_pipeline import KeyPipeline, KeySettled
from .keys import bindings, keymap_problems
from .messages import HistoryWaiting, Navigate, ReportsReady, WatchState
from .run_drafts import RunDrafts
from .store import ModuleStore
from .stylesheets import STYLES
from .terminal_guard import TerminalGuard
from .theming import Theming
from .worker_failures import WorkerFailed

if TYPE_CHECKING:
    import argparse

    from cogtui.core.authoring.migration.review import ReviewPlan


def module_commands() -> type[Provider]:
    """The palette's module commands, imported when the palette first opens (not before the first frame)."""
    from .commands import ModuleCommands

    return ModuleCommands


class CogtuiApp(Theming):  # Theming is an App that reports its workers' failures
    TITLE = "cogtui"
    # Only what the first screen needs; each other screen brings its own as its DEFAULT_CSS (stylesheets.py).
    CSS_PATH: ClassVar[list[str | PurePath]] = [STYLES / "app.tcss", STYLES / "browser.tcss"]
    BINDINGS = bindings("app.help", "app.palette", "app.quit", "app.force_quit", "app.theme")
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = App.COMMANDS | {module_commands}

    def __init__(
        self,
        paths: list[str] | None = None,
        config: Config | None = None,
        cwd: Path | None = None,
        review: Path | None = None,
        review_plans: list[ReviewPlan] | None = None,
        watch: bool | None = None,
        theme: str | None = None,
        detect_terminal: bool = False,
    ) -> None:
        """`theme` is for this session only (`--theme`); `detect_terminal` picks the ANSI theme without truecolor."""
        super().__init__()
        self.config = config or load_config()
        self.store = ModuleStore.from_paths(paths or [], cwd)
        self.review = review
        self.review_plans = review_plans  # `cogtui review -`: the plan read from stdin
        self.watching = self.config.watch if watch is None else watch
        self.watch_note, self.watch_stopped = "", False
        self.watch_changed: Signal[None] = Signal(self, "watch-changed")
        self.modules_changed: Signal[list[Path] | None] = Signal(self, "modules-changed")
        self.history_waiting = 0
        self.history_changed: Signal[None] = Signal(self, "history-changed")
        self.run_drafts = RunDrafts()  # what was typed on each module's run screen, until cogtui quits
        self._search_path_said: set[str] = set()
        self.animation_level = "full" if self.config.animations else "none"
        self.start_themes(theme, detect_terminal)
        self.set_keymap(self.config.keymap)  # before mount too: a later change recomposes the footer
        self.keys_in_order = KeyPipeline(self, super().on_event)
        self.terminal_guard = TerminalGuard()
        self._terminal_gone = False  # its hang-up seen: quitting

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification: a plain message (`markup=False`: it quotes files, models or history) and the
        title are shown visibly escaped; a markup message is code's own text."""
        shown = message if markup else visible(message)
        super().notify(shown, title=visible(title, single_line=True), severity=severity, timeout=timeout, markup=markup)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Every rendered line passes the terminal guard first (terminal_guard.py: the one choke point)."""
        return [self.terminal_guard, *super().get_line_filters()]

    async def on_event(self, event: events.Event) -> None:
        """Keys from the terminal go through the pipeline: each settles before the next is dispatched."""
        if KeyPipeline.takes(event):
            await self.keys_in_order.receive(event)
        else:
            await super().on_event(event)

    @on(KeySettled)
    def _key_settled(self, message: KeySettled) -> None:
        self.keys_in_order.marker_arrived(message)

    def key_time(self) -> float:
        """When the key being handled arrived from the terminal, else now (Textual's monotonic clock)."""
        at = self.keys_in_order.pressed_at()
        return time.monotonic() if at is None else at

    # ------------------------------------------------------------ start

    def on_mount(self) -> None:
        # What start-up has to say comes after the first frame: the modules first, then the toasts (a toast
        # mounts and animates widgets the first frame would otherwise wait for).
        self.call_after_refresh(self._say_start_notes)
        if self.config.keymap:  # after the first frame: it imports every screen to know every binding
            self.call_after_refresh(self.report_keymap_problems)
        self.call_after_refresh(self._resume_collector)
        if not self.is_headless and (fd := terminal_gone.terminal_fd()) is not None:
            self.set_interval(terminal_gone.CHECK_EVERY_S, partial(self._check_terminal, fd), name="terminal hang-up")
        if self.review is not None:
            from .screens.migrate.screen import MigrationScreen

            # Pushed over the blank default screen of review mode (get_default_screen).
            self.push_screen(MigrationScreen.for_review(self.review, self.review_plans))
            return
        # After the first frame: module names show at once, statuses fill in as validation reports.
        self.call_after_refresh(self._after_first_frame)

    def _check_terminal(self, fd: int) -> None:
        """The terminal hung up and no SIGHUP ended cogtui: quit as `q` does with nothing to ask (terminal_gone.py)."""
        if terminal_gone.hung_up(fd) and not self._terminal_gone:
            self._terminal_gone = True
            from . import quitting

            quitting.stop_everything(self, then=self.exit)

    def _say_start_notes(self) -> None:
        """The terminal's theme choice, theme files and config.yaml that could not be used, search path problems."""
        if self.terminal_note:
            self.say_terminal_note()
        for problem in self.theme_problems:
            self.notify(problem, title="Theme", severity="warning", timeout=8, markup=False)
        for problem in self.config.problems:
            self.notify(problem, title="config.yaml", severity="warning", timeout=8, markup=False)
        self.report_search_path_problems()

    def get_default_screen(self) -> Screen[Any]:
        """The browser is the first screen itself, so the very first frame already shows the modules."""
        if self.review is not None:
            return super().get_default_screen()
        from .screens.browser import BrowserScreen

        return BrowserScreen()

    def _resume_collector(self) -> None:
        """After the first frame: if start-up paused the cyclic collector (cli._start_tui), what start-up made
        lives as long as the app, so it is frozen out of the collector's reach before it is turned back on."""
        if not gc.isenabled():
            gc.freeze()
            gc.enable()

    def _after_first_frame(self) -> None:
        self.validate_all()
        if self.watching:
            self.start_watching()
        if outbox_dir().is_dir():  # a run was kept once: the history modules are loaded only then
            self.deliver_kept_runs()

    @work(name="record the kept runs", thread=True, group="history", exit_on_error=False)
    def deliver_kept_runs(self) -> None:
        """Runs kept while the history could not take them are recorded as cogtui starts (outbox.py)."""
        from cogtui.core.history.run_record import deliver_waiting

        self.post_message(HistoryWaiting(deliver_waiting()))

    @on(HistoryWaiting)
    def _history_waiting(self, message: HistoryWaiting) -> None:
        if message.count != self.history_waiting:
            self.history_waiting = message.count
            self.history_changed.publish(None)

    def start_watching(self) -> None:
        from .watching import watch_search_path, watch_themes

        self._watch_state(WatchState(""))
        watch_search_path(self)
        watch_themes(self)

    @on(WatchState)
    def _watch_state(self, message: WatchState) -> None:
        self.watch_note, self.watch_stopped = message.note, message.stopped
        self.watch_changed.publish(None)

    # ------------------------------------------------------------ modules

    def validate_all(self) -> None:
        from .watching import validate_entries

        validate_entries(self, self.store.entries)

    def validate_unreported(self, touched: set[Path] | None = None) -> None:
        """After a rediscovery: modules without a report yet (new ones), and those whose files changed."""
        todo = [e for e in self.store.entries if e.path not in self.store.reports or e.path in (touched or ())]
        if todo:
            from .watching import validate_entries

            validate_entries(self, todo, group="revalidate")

    def report_keymap_problems(self) -> None:
        for problem in keymap_problems(self.config):  # quotes config.yaml: plain text, never markup
            self.notify(problem, title="config.yaml keymap", severity="warning", timeout=10, markup=False)

    def report_search_path_problems(self) -> None:
        """Unreadable roots and the like: a notification each, never a crash. A problem is said once, not again
        at each rediscovery while it lasts (said again should it come back after it was gone)."""
        problems = [d.message + (f"\n{d.hint}" if d.hint else "") for d in self.store.index.diagnostics]
        for problem in problems:
            if problem not in self._search_path_said:
                self.notify(problem, title="Search path", severity="warning", timeout=10, markup=False)
        self._search_path_said = set(problems)

    @on(ReportsReady)
    def _apply_reports(self, message: ReportsReady) -> None:
        """The one place module state changes: workers only post."""
        if message.rediscover:
            self.store.rediscover()
            self.report_search_path_problems()
        applied = self.store.apply(message.reports, message.stamps)
        if not applied and not message.rediscover:
            return
        self.modules_changed.publish(None if message.rediscover else [r.path for r in applied])
        if len(message.reports) > 1 and len(self.store.reports) >= len(self.store.entries):
            # Every module is loaded: move those long-lived objects out of the collector's reach, or each
            # full collection walks them all, a pause that grows with the modules, in the middle of typing.
            gc.freeze()

    # ------------------------------------------------------------ actions

    @on(WorkerFailed)
    def _worker_failed(self, message: WorkerFailed) -> None:
        """The one place a worker's unexpected failure reaches the user (worker_failures.py)."""
        self.notify(message.detail, title=f"{message.what} failed", severity="error", timeout=12, markup=False)

    @on(Navigate)
    def _navigate(self, message: Navigate) -> None:
        from . import navigation

        navigation.go(self, message.place)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette entries, but those cogtui's own commands replace (commands.py)."""
        from .commands import REPLACED_SYSTEM_COMMANDS

        return (c for c in super().get_system_commands(screen) if c.title not in REPLACED_SYSTEM_COMMANDS)

    def choose_theme(self, name: str) -> None:
        if self.apply_theme(name):
            self.config.theme = name
            self.persist("theme", name)

    @work(name="save a setting", thread=True, group="persist", exit_on_error=False)
    def persist(self, key: str, value: Any) -> None:
        try:
            save_setting(key, value, self.config.path)
        except (OSError, ValueError) as exc:
            self.call_from_thread(self.notify, f"Could not save {key}: {exc}", severity="error", markup=False)

    async def action_quit(self) -> None:
        """Asks first when edits are unsaved or runs, evals or golden runs are running (quitting.py); runs are
        cancelled and recorded before exit."""
        from . import quitting

        if quitting.quit_pending(self):
            self.notify("Quitting once the cancelled runs are recorded…")
            return
        unsaved = quitting.unsaved_note(self)  # None when no editor holds unsaved edits
        runs = quitting.quit_note(self)  # None when nothing runs (runs, evals, golden runs)
        if unsaved is None and runs is None:
            quitting.stop_everything(self, then=self.exit)  # at once, or once a finished run's record is written
            return
        from .screens.modals import ChoiceModal, ConfirmModal

        if unsaved is None:
            self.push_screen(
                ConfirmModal("Quit while runs are running?", runs or "", confirm="Quit", danger=True),
                lambda ok: quitting.stop_everything(self, then=self.exit) if ok else None,
            )
            return

        def decided(choice: str | None) -> None:
            if choice == "save":
                quitting.save_everything(self, lambda: quitting.stop_everything(self, then=self.exit))
            elif choice == "discard":
                quitting.stop_everything(self, then=self.exit)

        # "Save all and quit" first: it has the focus, so enter alone never loses an edit.
        body = f"{unsaved} Quitting without saving loses them. {runs or ''}".strip()
        choices = [("save", "Save all and quit"), ("discard", "Quit without saving")]
        self.push_screen(ChoiceModal("Unsaved edits", body, choices), decided)


def run_app(args: argparse.Namespace) -> int:
    review = getattr(args, "review", None)
    app = CogtuiApp(
        paths=list(getattr(args, "paths", []) or []),
        review=Path(review) if review else None,
        review_plans=getattr(args, "review_plans", None),
        theme=getattr(args, "theme", None),
        detect_terminal=True,
    )
    app.run()
    return 0
