"""The browser's status line counts the runs waiting in the history's outbox: those kept before cogtui started
(delivered as it starts when the history takes them), and a run from the run screen the history refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from history_kit import run
from textual.widgets import Static
from tuikit import copy_modules, isolate, make_app, open_run, until

from cogtui.core.history.location import HistoryLocation
from cogtui.core.history.outbox import Outbox
from cogtui.core.history.store import History
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen


def _status(app: CogtuiApp) -> str:
    screen = app.screen
    return str(screen.query_one("#status", Static).render()) if isinstance(screen, BrowserScreen) else ""


def _history(tmp_path: Path) -> Path:
    return tmp_path / "data" / "history.sqlite3"


def _keep(tmp_path: Path, count: int) -> Outbox:
    outbox = Outbox(HistoryLocation(path=_history(tmp_path)))
    for i in range(count):
        outbox.keep(run(started_at=1e9 + i), "the history was unreachable")
    return outbox


async def test_runs_kept_before_cogtui_started_are_counted_until_the_history_takes_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    _keep(tmp_path, 2)
    _history(tmp_path).mkdir(parents=True)  # a folder where the history file should be: it cannot be opened
    app: CogtuiApp = make_app(root, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(lambda: "2 runs waiting to be recorded" in _status(app), pilot)
    _history(tmp_path).rmdir()
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:  # the history opens now: delivered as cogtui starts
        await until(lambda: not Outbox(HistoryLocation(path=_history(tmp_path))).path.exists(), pilot)
        with History(_history(tmp_path)) as history:
            assert history.count() == 2
        await pilot.pause()
        assert app.history_waiting == 0 and "waiting" not in _status(app) and "1 module" in _status(app)


async def test_a_run_the_history_refuses_is_counted_in_the_status(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    _history(tmp_path).mkdir(parents=True)
    app: CogtuiApp = make_app(root, tmp_path)
    said: list[str] = []
    notify = app.notify

    def record(message: str, **kw: Any) -> None:
        said.append(message)
        notify(message, **kw)

    monkeypatch.setattr(app, "notify", record)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_run(app, pilot, module)
        await pilot.press("ctrl+r")
        await until(lambda: app.history_waiting == 1, pilot)
        kept = Outbox(HistoryLocation(path=_history(tmp_path))).path
        assert any(m.startswith("The run was not recorded") and f"It is kept in {kept}" in m for m in said), said
        await pilot.press("escape")
        await until(lambda: "1 run waiting to be recorded" in _status(app), pilot)
