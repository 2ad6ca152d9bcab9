"""The insights dashboard over a history with damaged rows: what was skipped is counted on the status line in
the warning colour and said once in a warning notification; the rest is shown (issue 11). The history screen
lists the sound runs of the same history."""

from __future__ import annotations

from pathlib import Path

import pytest
from history_kit import T0, insight, raw, run, with_insights
from textual.content import Content
from textual.widgets import Static
from tuikit import isolate, make_app, notices, screen_of, until

from cogtui.core.history.store import History
from cogtui.tui import navigation as nav
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.widgets.insight_tables import InsightTable


async def test_skipped_rows_are_counted_and_said(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    with History.open_default() as history:
        history.record_many([run("m", with_insights(insight("data.x"), insight("data.y")), T0 + i) for i in range(3)])
    location = str(tmp_path / "data" / "history.sqlite3")
    # A rollup row no reader can use (data.y's), and a run whose envelope is not one.
    raw(location, "UPDATE insight_stats SET last_ts = ? WHERE mapping_key LIKE '%y%'", (float("inf"),))
    raw(location, "UPDATE runs SET envelope = ? WHERE id = 1", ('"not an envelope"',))
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        seen = notices(app)
        nav.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
        screen = screen_of(app, InsightsScreen)
        status = screen.query_one("#status", Static).render()
        assert isinstance(status, Content)
        assert (
            "all modules  ·  ⚠ " in str(status) and "warning" in str(status) and "damaged rows skipped" in str(status)
        )
        warned = [span for span in status.spans if "warning" in str(span.style)]
        assert warned, "the count is in the warning colour"
        said = [n for n in seen if n.startswith("Run history: ")]
        assert len(said) == 1 and "skipped" in said[0], seen
        screen.load()  # the dashboard reads again (as when new runs arrive): the same damage is not said again
        await until(lambda: screen.filled, pilot)
        assert len([n for n in seen if n.startswith("Run history: ")]) == 1
        table = screen.query_one(InsightTable)
        assert [d["suggested_mapping"] for d in table.documents] == ["data.x"]  # the rest is shown
        nav.history(app, tmp_path / "m")  # the run whose envelope is damaged is left out, the others listed
        await until(lambda: isinstance(app.screen, HistoryScreen) and len(app.screen.runs) == 2, pilot)


async def test_a_sound_history_says_nothing_of_the_kind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    with History.open_default() as history:
        history.record_many([run("m", with_insights(insight("data.x")), T0)])
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notices(app)
        nav.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
        assert "skipped" not in str(app.screen.query_one("#status", Static).render())
        assert not [n for n in seen if n.startswith("Run history: ")]
