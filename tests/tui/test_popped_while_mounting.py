"""A screen popped while it is still mounting (TUI-7): code can push a screen and pop it in the same turn, or a turn
later, before its `on_mount` (or a refit asked for after a refresh, or the editor's tabs drawn once its module is
read) has run. Popping removes its widgets; what runs late found no table and raised NoMatches, which ends the app.
Each screen kind whose mount reaches for its widgets is pushed and popped at once, then one and two turns later:
the app goes on, back on the browser, and a closed screen starts nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from test_run_loads_off_ui_thread import HeldLoads
from tuikit import copy_modules, isolate, make_app, timers_due, until

from cogtui.core.authoring.editor_state import EditorState
from cogtui.core.eval.model import Target
from cogtui.core.eval.targets import EvalChoice, configured_targets
from cogtui.core.settings.config import Config
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.checking import VALIDATE_DELAY_S
from cogtui.tui.screens.editor.picker import TabPickerModal
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.eval.options import EvalOptions
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.screens.insights.row import InsightRowScreen
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.screens.new_module.screen import NewModuleModal
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.shown import markup

Make = Callable[[Any, Path], Any]

SCREENS: dict[str, Make] = {
    "history": lambda _app, module: HistoryScreen(module),
    "goldens": lambda _app, module: GoldensScreen(module),
    "eval": lambda app, module: EvalScreen(module, app.config),
    "run": lambda _app, module: RunScreen(module),
    "editor": lambda _app, module: EditorScreen(module),
    "insights": lambda _app, _module: InsightsScreen(None),
    "insight row": lambda _app, module: InsightRowScreen(
        "enums", {"module": module.name, "field": "verdict", "value": "maybe"}, module.name
    ),
    "migration": lambda _app, module: MigrationScreen([module]),
    "eval options": lambda _app, _module: EvalOptions(
        configured_targets(Config()), EvalChoice((Target("replay"),)), Config()
    ),
    "confirm": lambda _app, _module: ConfirmModal("Sure?", "Really."),
    "new module": lambda app, _module: NewModuleModal(app.store.search_path, app.store.index),
    "tab list": lambda _app, _module: TabPickerModal([("file-0", markup("module.yaml"))], "file-0", pending="…"),
}


@pytest.fixture
def module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """code-reviewer, copied into an isolated tmp_path."""
    (copied,) = copy_modules(isolate(monkeypatch, tmp_path), "code-reviewer")
    return copied


@asynccontextmanager
async def on_the_browser(module: Path) -> AsyncIterator[tuple[Any, Any]]:
    """(app, pilot): the app on `module`'s folder, its browser shown with the module listed."""
    app = make_app(module.parent, module.parent.parent)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.store.entries), pilot)
        yield app, pilot


@pytest.mark.parametrize("kind", list(SCREENS))
async def test_a_screen_pushed_then_popped_at_once_leaves_the_app_running(kind: str, module: Path) -> None:
    async with on_the_browser(module) as (app, pilot):
        for turns in (0, 1, 2):
            screen = SCREENS[kind](app, module)
            app.push_screen(screen)
            for _ in range(turns):
                await pilot.pause(0)
            app.pop_screen()
            # Wait for the removal itself (a loaded machine takes longer than any fixed pause), or the app's end.
            await until(
                lambda shown=screen: (
                    (isinstance(app.screen, BrowserScreen) and not shown.is_attached) or app.return_code is not None
                ),
                pilot,
            )
            assert app.return_code is None, (kind, turns)  # the app did not end on an unhandled error
        # Every worker the popped screens started has ended (finished, failed or cancelled), and what they posted
        # on their way out has been handled, at no screen.
        await until(lambda: all(worker.is_finished for worker in app.workers), pilot)
        await pilot.pause()
        assert app.return_code is None and isinstance(app.screen, BrowserScreen)


async def test_a_screen_popped_before_it_mounted_starts_nothing(module: Path) -> None:
    """The golden tests screen popped in the turn it was pushed: its mount did not load the module or run a case."""
    async with on_the_browser(module) as (app, pilot):
        screen = GoldensScreen(module)
        app.push_screen(screen)
        app.pop_screen()
        await pilot.pause()  # a mount, had there been one, would have started its load by now
        assert not screen.loads.loading and screen.state.generation == 0 and screen.module is None


async def test_an_editor_closed_as_its_module_arrives_draws_nothing_more(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The editor's module arrives and the editor is popped as its state takes it, before its tabs are drawn: no
    error, and no validation or watcher starts for the closed editor."""
    real_opened = EditorState.opened

    def opened_then_closed(state: EditorState, *args: Any, **kwargs: Any) -> None:
        real_opened(state, *args, **kwargs)
        app.pop_screen()  # in the handler that goes on to draw the tabs

    monkeypatch.setattr(EditorState, "opened", opened_then_closed)
    async with on_the_browser(module) as (app, pilot):
        editor = EditorScreen(module)
        app.push_screen(editor)
        await until(lambda: not editor.state.loading, pilot)
        await timers_due(pilot, VALIDATE_DELAY_S)  # a validation it started would have begun by now
        assert app.return_code is None and isinstance(app.screen, BrowserScreen)
        assert editor.state.files and editor.state.changes == 0  # its files were read; nothing validated them


@pytest.mark.parametrize("kind", ["goldens", "eval", "run"])
async def test_a_screen_popped_while_its_module_loads_does_nothing_with_it(
    kind: str, module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The module a screen reads as it opens arrives after the screen was closed: nothing is drawn or run."""
    async with on_the_browser(module) as (app, pilot):
        loads = HeldLoads(monkeypatch, module)
        screen = SCREENS[kind](app, module)
        app.push_screen(screen)
        await until(lambda: bool(loads.on_ui_thread), pilot)  # its load is under way, held
        app.pop_screen()
        loads.release()
        await loads.answered(pilot)
        assert app.return_code is None and isinstance(app.screen, BrowserScreen)
        assert screen.module is None  # the load it asked for, if it was handled at all, was left alone
