"""The run and golden screens with a misconfigured provider, and closing the run screen while runs are running."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Select, Static
from tuikit import click, copy_modules, ended, isolate, make_app, open_run, press_run_again, screen_of, until

from cogtui.core.history.store import History
from cogtui.core.settings.config import Config
from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane


def record_notifications(app: CogtuiApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every notification's text (screens notify through the app)."""
    messages: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        messages.append(message)
        original(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", notify)
    return messages


# ---------------------------------------------------------------- an unknown provider name


async def test_an_unknown_provider_in_the_environment_falls_back_to_replay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGNITIVE_PROVIDER", "antropic")
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        notes = record_notifications(app, monkeypatch)
        screen = await open_run(app, pilot, module)
        assert screen.query_one("#run-provider", Select).value == "replay"
        assert any("antropic" in n for n in notes), notes
        await pilot.press("ctrl+r")  # and it runs, on replay
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        assert ended(screen.query_one(RunPane)).ok


async def test_the_run_screen_reads_the_apps_config_not_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)  # no config.yaml on disk: only the app's Config names the provider
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, config=Config(provider="antropic"))
    async with app.run_test(size=(120, 36)) as pilot:
        notes = record_notifications(app, monkeypatch)
        screen = await open_run(app, pilot, module)
        assert screen.query_one("#run-provider", Select).value == "replay"
        assert any("antropic" in n for n in notes), notes


async def test_goldens_with_an_unknown_provider_fall_back_to_replay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGNITIVE_PROVIDER", "antropic")
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        notes = record_notifications(app, monkeypatch)
        await pilot.pause()
        nav.goldens(app, module)
        await until(
            lambda: isinstance(app.screen, GoldensScreen) and app.screen.query_one(DataTable).row_count == 3, pilot
        )
        screen = screen_of(app, GoldensScreen)
        assert "via replay" in str(screen.query_one("#goldens-title", Static).render())
        assert all(r.passed for r in screen.results.values())
        assert sum("antropic" in n for n in notes) == 1, notes
        await pilot.press("ctrl+r")  # a rerun does not repeat the warning
        await until(lambda: screen.query_one(DataTable).row_count == 3 and len(screen.results) == 3, pilot)
        assert sum("antropic" in n for n in notes) == 1, notes


# ---------------------------------------------------------------- closing with runs in other tabs


def _runs(tmp_path: Path, module: str) -> list[Any]:
    db = tmp_path / "data" / "history.sqlite3"
    if not db.exists():
        return []
    with History(db) as history:
        return history.runs(module)


async def _start_runs(screen: RunScreen, pilot: Pilot[None], n: int) -> list[RunPane]:
    for i in range(n):
        await press_run_again(pilot)  # each a deliberate press: one run each (TUI-5)
        await until(
            lambda i=i: len(screen.query(RunPane)) == i + 1 and screen.query(RunPane)[i].assembler.chunks > 1, pilot
        )
    panes = list(screen.query(RunPane))
    assert all(p.running for p in panes)
    return panes


async def test_closing_asks_then_cancels_and_records_every_running_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.1")  # runs that last long enough to be cancelled
    (module,) = copy_modules(root, "incident-narrator")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        first, second, third = await _start_runs(screen, pilot, 3)
        await pilot.press("escape")  # cancels the active tab's run only
        await until(lambda: third.result is not None, pilot)
        assert ended(third).interrupted and first.running and second.running
        # Escape again: two runs still run in other tabs, so it asks; declining keeps everything.
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.press("escape")
        await until(lambda: app.screen is screen, pilot)
        assert first.running and second.running
        # Confirming cancels both, waits for their history records, then goes back.
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await click(pilot, "#confirm")
        await until(lambda: not isinstance(app.screen, (RunScreen, ConfirmModal)), pilot)
        runs = _runs(tmp_path, "incident-narrator")  # already recorded when the screen closed
        assert [r.outcome for r in runs] == ["interrupted"] * 3
        assert first.result is not None and first.result.interrupted
        assert second.result is not None and second.result.interrupted


async def test_closing_with_only_finished_runs_does_not_ask(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and not screen.query_one(RunPane).running, pilot)
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, RunScreen), pilot)
        assert not isinstance(app.screen, ConfirmModal)
