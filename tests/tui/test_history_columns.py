"""The history table fits its terminal (TUI-8): at 120 columns, beside 4-digit run numbers, a model's name is
readable (a date it ends with given up first); at 100 it is cut with an ellipsis; at 80 the short columns
(number, when, outcome, conf, time) all still show, and the table fits: the outcome's "interrupted" and the model
are cut with an ellipsis rather than the model's column scrolling off (TUI-8). Read from the table as drawn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tuikit import copy_modules, isolate, make_app, until

from cogtui.core.history.run_list_state import ListPhase
from cogtui.core.history.store import History, RunRecord
from cogtui.tui import navigation as nav
from cogtui.tui.screens.history.screen import HistoryScreen

MODEL = "claude-sonnet-4-5-20250929"
ENVELOPE = {"ok": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "fine"}, "data": {"rationale": "r"}}


def record(n: int, module: str = "code-reviewer") -> RunRecord:
    outcome = ("ok", "interrupted", "error")[n % 3]
    return RunRecord(
        module, "1", "v2.2", "anthropic", MODEL, {"n": n}, None, ENVELOPE, 1.7e9 + n, 1, 12345, None, outcome
    )


def drawn(table: DataTable) -> list[str]:
    """The table's lines as the terminal shows them (header first)."""
    return [table.render_line(y).text.rstrip() for y in range(table.size.height)]


# #1005 ✗ error, #1004 interrupted, #1003 ✓ ok, as drawn at 120, 100 and 80 columns
AT_120 = r"^\s*10\d\d  \d\d-\d\d \d\d:\d\d  .+  0\.90  12\.3 s  a…/claude-sonnet-4-5$"
AT_100 = r"^\s*10\d\d  \d\d:\d\d  .+  0\.90  12\.3 s  claude-s[a-z-]+…$"
AT_80 = r"^\s*10\d\d  \d\d:\d\d  .+  0\.90  12\.3 s  clau…$"


def shows(table: DataTable, row: str) -> bool:
    """The first three runs are drawn as `row` says (waited for: a resize redraws the table after it)."""
    return all(re.search(row, line) for line in drawn(table)[1:4])


async def test_the_provider_model_fits_at_120_and_degrades_at_100_and_80(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    with History.open_default() as history:
        history.record_many([record(n, "other") for n in range(990)])  # code-reviewer's runs are #991 to #1005
        history.record_many([record(n) for n in range(990, 1005)])
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.history(app, module)
        await until(lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is ListPhase.READY, pilot)
        table = app.screen.query_one(DataTable)
        await until(lambda: shows(table, AT_120) and drawn(table)[0].endswith("provider/model"), pilot)
        assert "interrupted" in drawn(table)[2]

        await pilot.resize_terminal(100, 30)  # the model's name cut with an ellipsis; `when` without its date
        await until(lambda: shows(table, AT_100) and drawn(table)[0].endswith("model"), pilot)

        await pilot.resize_terminal(80, 24)  # the short columns all show; long cells are cut so the table fits
        await until(lambda: shows(table, AT_80) and len(drawn(table)[1]) < 48, pilot)
        assert "interru…" in drawn(table)[2] and drawn(table)[0].endswith("model")
        assert table.max_scroll_x == 0  # nothing scrolls off sideways
