"""Every screen reachable from the browser, over a module folder and a history whose every text field carries
terminal escapes (hostile_world.py): no raw control character is ever on screen, the terminal guard never had
to remove one (every widget showed the text visibly escaped itself), and the escaped text is there to read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_world import EVIL, NAME, RAW, hostile_history, hostile_legacy, hostile_module, screen_text
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable, TabbedContent
from tuikit import editor_ready, isolate, make_app, planned, screen_of, until

from cogtui.core.authoring.migration import plan_migration
from cogtui.core.module.loader import load_module
from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.help import HelpScreen
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.new_module.screen import NewModuleModal
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane

ESCAPED = ("\\x1b]0;PWNED", "\\u001b]0;PWNED")  # as visible() and as JSON show ESC


def check(app: CogtuiApp, where: str, shown: bool = True) -> str:
    text = screen_text(app)
    assert not RAW.search(text), f"{where}: a raw control character is on screen: {RAW.findall(text)}"
    caught = app.terminal_guard.caught
    assert caught == [], f"{where}: shown unescaped, removed by the guard: {caught}\n{text}"
    if shown:
        assert any(e in text for e in ESCAPED), f"{where}: the hostile text is not shown escaped:\n{text}"
    return text


async def back_to_browser(app: CogtuiApp, pilot: Pilot[None]) -> None:
    while not isinstance(app.screen, BrowserScreen):
        app.pop_screen()
        await pilot.pause()


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path, Path]:
    root = isolate(monkeypatch, tmp_path)
    module, legacy = hostile_module(root), hostile_legacy(root)
    hostile_history()
    return root, module, legacy


async def test_every_screen_shows_hostile_text_escaped(world: tuple[Path, Path, Path], tmp_path: Path) -> None:
    root, module, legacy = world
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await until(lambda: len(app.store.reports) == 2, pilot)
        await pilot.pause()
        app.notify(f"note {EVIL}", title=f"title {EVIL}", markup=False)  # what screens do with a file's text
        await until(lambda: bool(app.screen.query("Toast")), pilot)
        check(app, "browser and details, a notification")
        app.action_help()
        await until(lambda: isinstance(app.screen, HelpScreen), pilot)
        check(app, "help", shown=False)
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await until(lambda: isinstance(app.screen, CommandPalette), pilot)
        await pilot.press(*"hostile")
        await until(lambda: "hostile" in screen_text(app) and "Run" in screen_text(app), pilot)
        check(app, "palette")
        await pilot.press("escape")
        app.action_pick_theme()
        await until(lambda: isinstance(app.screen, CommandPalette), pilot)
        check(app, "theme palette", shown=False)
        await pilot.press("escape")

        nav.open_module(app, module, module / "prompt.md")
        await until(lambda: editor_ready(app), pilot)
        await pilot.pause()
        check(app, "editor, prompt.md")
        app.screen.query_one(TabbedContent).active = "contract"
        await pilot.pause()
        check(app, "editor, contract tab")
        await back_to_browser(app, pilot)

        nav.run_module(app, module, json.loads((module / "tests" / f"case{EVIL}.input.json").read_text()))
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        await pilot.press("ctrl+r")
        await until(lambda: bool(app.screen.query(RunPane)) and app.screen.query_one(RunPane).result is not None, pilot)
        await pilot.pause()
        check(app, "run")
        await back_to_browser(app, pilot)

        nav.goldens(app, module)
        await until(
            lambda: isinstance(app.screen, GoldensScreen) and app.screen.query_one(DataTable).row_count == 3, pilot
        )
        await pilot.pause()
        check(app, "goldens")
        await back_to_browser(app, pilot)

        nav.history(app, module)
        await until(lambda: isinstance(app.screen, HistoryScreen) and len(app.screen.runs) >= 3, pilot)
        await pilot.pause()
        check(app, "history")
        await back_to_browser(app, pilot)

        nav.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
        await pilot.pause()
        check(app, "insights")
        await pilot.press("t")
        await pilot.pause()
        check(app, "insights, custom enums")
        await back_to_browser(app, pilot)

        nav.evaluate(app, module)
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.report is not None, pilot)
        await pilot.pause()
        check(app, "eval")
        await back_to_browser(app, pilot)

        nav.migrate(app, [legacy])
        await until(lambda: isinstance(app.screen, MigrationScreen) and all(s.plan for s in app.screen.slots), pilot)
        await pilot.pause()
        check(app, "migrate")
        preview = screen_of(app, MigrationScreen)
        for page in range(1, len(planned(preview.slots[0]).files) + 1):  # every file's diff
            await pilot.press("j")
            await until(lambda: preview.file_index == page, pilot)  # noqa: B023
            check(app, f"migrate, file {page}", shown=False)
        await back_to_browser(app, pilot)

        nav.new_module(app)
        await until(lambda: isinstance(app.screen, NewModuleModal) and bool(app.screen.query("#create")), pilot)
        check(app, "new module")
        await back_to_browser(app, pilot)
        assert NAME in {e.name for e in app.store.entries}


async def test_reviewing_a_saved_plan_of_a_hostile_module(world: tuple[Path, Path, Path], tmp_path: Path) -> None:
    root, _module, legacy = world
    plans = [plan_migration(load_module(legacy)).to_json() | {"result": "would migrate"}]
    plan_file = tmp_path / "PLAN.json"
    plan_file.write_text(json.dumps({"plans": plans, "summary": {"dry_run": True}}), encoding="utf-8")
    app = make_app(root, tmp_path, review=plan_file)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await until(lambda: isinstance(app.screen, MigrationScreen) and bool(app.screen.slots), pilot)
        await pilot.pause()
        check(app, "review")
        await pilot.press("J")  # the module's summary and notes
        await pilot.pause()
        check(app, "review, the module")
        await pilot.press("j")
        await until(lambda: screen_of(app, MigrationScreen).file_index == 1, pilot)
        check(app, "review, a file", shown=False)
