"""The browser's filter keeps the selection: the cursor stays on the module it was on, and the details follow it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from tuikit import MODULES, isolate, until

from cogtui.core.settings.config import Config
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.widgets.module_tree import ModuleTree

if TYPE_CHECKING:  # the app is imported where a test starts it
    from cogtui.tui.app import CogtuiApp

REALWORLD = Path(__file__).resolve().parents[1] / "realworld"


def _app(tmp_path: Path) -> CogtuiApp:
    return CogtuiApp(paths=[str(MODULES), str(REALWORLD)], cwd=tmp_path, watch=False, config=Config())


def _detail_title(app: CogtuiApp) -> str:
    return str(app.screen.query_one("#detail-body", Static).render()).splitlines()[0]


def _agree(app: CogtuiApp, name: str) -> bool:
    entry = app.screen.query_one(ModuleTree).cursor_entry
    return entry is not None and entry.name == name and _detail_title(app).startswith(f"{name} ")


async def _filter_to_sql_guard(app: CogtuiApp, pilot: Pilot[None]) -> None:
    await until(
        lambda: isinstance(app.screen, BrowserScreen) and bool(app.screen.query_one(ModuleTree).module_nodes), pilot
    )
    await pilot.press("slash", "s", "q", "l")
    await until(lambda: _agree(app, "sql-guard"), pilot)


async def test_clearing_the_filter_keeps_the_selected_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate(monkeypatch, tmp_path)
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _filter_to_sql_guard(app, pilot)
        await pilot.press("escape")  # cleared: every module is back, the cursor stays on sql-guard
        await until(lambda: len(app.screen.query_one(ModuleTree).module_nodes) > 10, pilot)
        await until(lambda: _agree(app, "sql-guard"), pilot)
        await pilot.press("slash", "s", "q", "l", "enter", "slash", "escape")
        await until(lambda: len(app.screen.query_one(ModuleTree).module_nodes) > 10, pilot)
        await until(lambda: _agree(app, "sql-guard"), pilot)


async def test_a_filtered_out_module_hands_the_cursor_to_its_next_neighbour(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    isolate(monkeypatch, tmp_path)
    app = _app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _filter_to_sql_guard(app, pilot)
        # sql-guard is filtered out: the next shown module after it (not the first match, code-review-zh)
        await pilot.press("backspace", "backspace", "backspace", "z", "h")
        await until(lambda: len(app.screen.query_one(ModuleTree).module_nodes) == 2, pilot)
        await until(lambda: _agree(app, "voice-memo-zh"), pilot)
        await pilot.press("enter")  # enter still goes to the first match
        await until(lambda: _agree(app, "code-review-zh"), pilot)
        await pilot.press("r")  # and the keys act on the module the details show
        from cogtui.tui.screens.run.screen import RunScreen

        await until(lambda: isinstance(app.screen, RunScreen), pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen) and screen.module_path.name == "code-review-zh"
