"""Quitting (`q`, `ctrl+q`) while runs are running: it asks, and on confirm cancels every run and exits only once
each is recorded in the history as interrupted; declining keeps everything running."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from tuikit import click, copy_modules, endless_replay, isolate, make_app, screen_of, until

from cogtui.core.history.store import History
from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane

MODULE = "incident-narrator"


def outcomes(tmp_path: Path) -> list[str]:
    db = tmp_path / "data" / "history.sqlite3"
    if not db.exists():
        return []
    with History(db) as history:
        return [r.outcome for r in history.runs(MODULE)]


def record_exits(app: CogtuiApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The history's outcomes at the moment the app is told to exit (one list per call)."""
    seen: list[list[str]] = []
    original = app.exit

    def exit_(*args: Any, **kwargs: Any) -> None:
        seen.append(outcomes(tmp_path))
        original(*args, **kwargs)

    monkeypatch.setattr(app, "exit", exit_)
    return seen


async def start_run(app: CogtuiApp, pilot: Pilot[None], module: Path) -> tuple[RunScreen, RunPane]:
    await pilot.pause()
    nav.run_module(app, module)
    await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
    screen = app.screen
    assert isinstance(screen, RunScreen)
    await pilot.press("ctrl+r")
    await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).assembler.chunks > 1, pilot)
    pane = screen.query_one(RunPane)
    assert pane.running
    return screen, pane


async def confirm_modal(app: CogtuiApp, pilot: Pilot[None]) -> ConfirmModal:
    await until(lambda: isinstance(app.screen, ConfirmModal) and bool(app.screen.query("#confirm")), pilot)
    assert isinstance(app.screen, ConfirmModal)
    return app.screen


@pytest.fixture
def slow_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = isolate(monkeypatch, tmp_path)
    endless_replay(monkeypatch)  # a run that lasts until it is quit
    (module,) = copy_modules(root, MODULE)
    return module


async def test_quitting_asks_then_records_the_run_before_exiting(
    slow_module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(slow_module.parent, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        exits = record_exits(app, tmp_path, monkeypatch)
        screen, pane = await start_run(app, pilot, slow_module)
        # ctrl+q: the input editor has focus, where a plain q would be typed (q quits from anywhere else).
        await pilot.press("ctrl+q")
        modal = await confirm_modal(app, pilot)
        assert "1 run is still running" in str(modal.query_one(".dialog-body", Static).render())
        await pilot.press("escape")  # declining: nothing stops
        await until(lambda: app.screen is screen, pilot)
        declined_at = pane.assembler.chunks
        await until(lambda: pane.assembler.chunks >= declined_at + 3, pilot)  # the run streams on after it
        assert pane.running and not exits and app.is_running
        await pilot.press("ctrl+q")
        await confirm_modal(app, pilot)
        await click(pilot, "#confirm")
        await until(lambda: bool(exits), pilot)
        assert exits == [["interrupted"]]  # recorded before the app was told to exit, and only then
        assert pane.result is not None and pane.result.interrupted


async def test_quitting_stops_runs_on_a_run_screen_under_another_screen(
    slow_module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(slow_module.parent, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        exits = record_exits(app, tmp_path, monkeypatch)
        _, pane = await start_run(app, pilot, slow_module)
        await pilot.press("f3")  # the history, on top of the run screen: the run keeps running underneath
        await until(lambda: isinstance(app.screen, HistoryScreen), pilot)
        await pilot.press("q")
        await confirm_modal(app, pilot)
        await click(pilot, "#confirm")
        await until(lambda: bool(exits), pilot)
        assert exits == [["interrupted"]] and pane.result is not None and pane.result.interrupted


async def test_quitting_with_only_finished_runs_does_not_ask(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, MODULE)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        exits = record_exits(app, tmp_path, monkeypatch)
        await pilot.pause()
        nav.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        screen = screen_of(app, RunScreen)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and not screen.query_one(RunPane).running, pilot)
        await pilot.press("ctrl+q")
        await until(lambda: bool(exits), pilot)
        assert not isinstance(app.screen, ConfirmModal)
        assert exits == [["ok"]]  # its record was written before exit
