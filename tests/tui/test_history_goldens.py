"""History (open, re-run, compare) and golden tests (progress, pass/fail table, a failing case's diff)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, ProgressBar
from tuikit import copy_modules, ended, isolate, make_app, screen_of, until

from cogtui.core.history.store import History, RunRecord
from cogtui.tui import navigation as nav
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane
from cogtui.tui.widgets.text_views import CodeView


def _record(tmp_path: Path, module: Path, confidence: float, verdict: str) -> None:
    expected = json.loads((module / "tests" / "case1.expected.json").read_text())
    env = json.loads(json.dumps(expected))
    env["meta"]["confidence"] = confidence
    env["data"]["verdict"] = verdict
    run = RunRecord(
        module=module.name,
        module_version="2.2.1",
        module_format="v2.2",
        provider="replay",
        model="replay",
        input=json.loads((module / "tests" / "case1.input.json").read_text()),
        args=None,
        envelope=env,
        started_at=time.time(),
        ttfc_ms=5.0,
        total_ms=20.0,
        usage=None,
        outcome="ok",
    )
    with History(tmp_path / "data" / "history.sqlite3") as history:
        history.record(run)


def _view_text(screen: Screen[Any]) -> str:
    return screen.query_one(CodeView).text


async def test_history_lists_compares_and_reruns(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    _record(tmp_path, module, 0.86, "request_changes")
    _record(tmp_path, module, 0.70, "comment")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.history(app, module)
        await until(
            lambda: isinstance(app.screen, HistoryScreen) and app.screen.query_one(DataTable).row_count == 2, pilot
        )
        screen = screen_of(app, HistoryScreen)
        await until(lambda: '"verdict"' in _view_text(screen), pilot)  # the highlighted run's envelope, once shown
        await pilot.press("space", "down", "d")
        await pilot.pause()
        diff = _view_text(screen)
        assert '-    "verdict": "comment"' in diff and '+    "verdict": "request_changes"' in diff
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, RunScreen) and list(app.screen.query(RunPane)), pilot)
        await until(lambda: app.screen.query_one(RunPane).result is not None, pilot)
        assert ended(app.screen.query_one(RunPane)).ok
        await pilot.press("escape")  # back to the history: the re-run is listed
        await until(lambda: app.screen is screen and screen.query_one(DataTable).row_count == 3, pilot)
        assert screen.state.title().startswith("code-reviewer — 3 runs · run #2 marked")  # the mark is kept


async def test_history_without_runs_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        nav.history(app, module)
        await until(lambda: isinstance(app.screen, HistoryScreen) and "No runs" in _view_text(app.screen), pilot)


async def test_goldens_progress_and_table(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.goldens(app, module)
        await until(
            lambda: isinstance(app.screen, GoldensScreen) and app.screen.query_one(DataTable).row_count == 3, pilot
        )
        screen = screen_of(app, GoldensScreen)
        bar = screen.query_one(ProgressBar)
        assert bar.progress == bar.total == 3
        assert all(r.passed for r in screen.results.values())
        assert "all 3 passed" in str(screen.query_one("#goldens-title").render())
        assert '"ok": true' in _view_text(screen)  # the first case, under the cursor


async def test_goldens_failure_shows_reasons_and_diff(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "json-patch-generator")
    # A golden that breaks its own tier's gate: replay answers with it, the exec gate turns it into E2001.
    expected_path = module / "tests" / "case1.expected.json"
    expected = json.loads(expected_path.read_text())
    expected["meta"]["confidence"] = 0.8
    expected_path.write_text(json.dumps(expected, indent=2), encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.goldens(app, module)
        await until(
            lambda: (
                isinstance(app.screen, GoldensScreen)
                and app.screen.module is not None
                and len(app.screen.results) == len(app.screen.module.tests)
            ),
            pilot,
        )
        screen = screen_of(app, GoldensScreen)
        failing = [r for r in screen.results.values() if not r.passed]
        assert [r.name for r in failing] == ["case1"]
        assert "E2001" in failing[0].reasons[0]
        table = screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("case2"))
        table.move_cursor(row=table.get_row_index("case1"))
        await pilot.pause()
        text = _view_text(screen)
        assert "E2001" in text and "+++ actual" in text


def _cell_colour(table: DataTable[object], row: int, column: int) -> object:
    value = table.get_cell_at(Coordinate(row, column))
    return value.style.color if isinstance(value, Text) and isinstance(value.style, Style) else None


def _ok_row(table: DataTable[object]) -> int | None:
    """The first row whose outcome (column 3) is a success."""
    return next((r for r in range(table.row_count) if str(table.get_cell_at(Coordinate(r, 3))).startswith("✓")), None)


async def test_a_theme_switch_recolours_outcomes_and_results(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Outcome, result and matrix cells are Rich text in the theme's colours: a new theme draws them in its own."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    _record(tmp_path, module, 0.86, "request_changes")
    app = make_app(root, tmp_path)

    def success() -> object:
        return Color.parse(app.theme_variables["success"]).rich_color

    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.goldens(app, module)
        await until(
            lambda: isinstance(app.screen, GoldensScreen) and app.screen.query_one(DataTable).row_count == 3, pilot
        )
        goldens = app.screen.query_one(DataTable)
        before = success()
        assert _cell_colour(goldens, 0, 1) == before
        nav.evaluate(app, module)  # the eval's matrix too, underneath the history
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.report is not None, pilot)
        matrix = app.screen.query_one("#eval-matrix", DataTable)
        assert _cell_colour(matrix, 0, 1) == before
        nav.history(app, module)  # goldens and eval stay underneath: every screen hears the switch
        await until(
            lambda: isinstance(app.screen, HistoryScreen) and _ok_row(app.screen.query_one(DataTable)) is not None,
            pilot,
        )
        history = app.screen.query_one(DataTable)
        ok_row = _ok_row(history)  # the eval's runs are listed too, one of them failed (newest first, in any order)
        assert ok_row is not None
        app.theme = "cogtui-light" if app.theme != "cogtui-light" else "cogtui-dark"
        await pilot.pause()
        assert success() != before
        assert _cell_colour(history, ok_row, 3) == success()
        assert _cell_colour(goldens, 0, 1) == success()
        assert _cell_colour(matrix, 0, 1) == success()
