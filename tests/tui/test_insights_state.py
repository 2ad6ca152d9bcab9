"""The insights dashboard renders one state (core.history.dashboard_state) and acts on it (issue 12, items 2 and 4):
after every action the trend, status line, detail and footer agree with the state; runs that failed their
contract are left out and counted; a promotion applied from here is marked ✓ and undone from here; enter
opens the row with every sample in full and the runs behind it; a history that cannot be read is shown as failed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static
from tuikit import copy_modules, isolate, make_app, notices, screen_of, until

from cogtui.core.authoring.promote import apply_promotion
from cogtui.core.authoring.promotion_target import PromotionRequest, plan_promotion
from cogtui.core.history.dashboard_state import ENUMS, Phase
from cogtui.core.history.store import History, RunRecord
from cogtui.core.module.loader import load_module
from cogtui.core.settings import locations as paths
from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.insights.row import InsightRowScreen
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.widgets.insight_tables import CustomEnumTable, InsightTable

T0 = 1_700_000_000.0
LONG = "The reviewer assumed the cache is warm before the request; " * 12  # far past the detail pane's clip
WIDE = "issues[].category.react_hooks_and_effects_misuse"  # wider than the table's 26-column mapping cell


def envelope(ok: bool, mapping: str, text: str, category: Any = "security", more: Any = ()) -> dict[str, Any]:
    insights = [{"text": text, "suggested_mapping": mapping, "evidence": "line 3"}, *more]
    payload = {
        "verdict": "comment",
        "summary": "s",
        "issues": [{"file": "a.py", "category": category, "severity": "low", "title": "t", "detail": "d"}],
        "rationale": "r",
        "extensions": {"insights": insights},
    }
    meta = {"confidence": 0.8, "risk": "low", "explain": "x"}
    if ok:
        return {"ok": True, "meta": meta, "data": payload}
    return {"ok": False, "meta": meta, "error": {"code": "E3001", "message": "no"}, "partial_data": payload}


def record(env_: dict[str, Any], at: float) -> RunRecord:
    outcome = "ok" if env_["ok"] else "error"
    return RunRecord(
        "code-reviewer", "1", "v2.2", "replay", "replay", {"diff": "x"}, None, env_, at, 1, 2, None, outcome
    )


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """code-reviewer on the search path; two valid runs and one that failed its contract (E3001) whose
    partial data holds a mapping and a custom value seen nowhere else."""
    base = isolate(monkeypatch, tmp_path)
    copy_modules(base, "code-reviewer")
    with History.open_default() as h:
        h.record_many(
            [
                record(envelope(True, "assumptions", LONG, {"custom": "concurrency", "reason": "a race"}), T0),
                record(
                    envelope(
                        True,
                        "assumptions",
                        "Assumes one author.",
                        more=[{"text": "The ticket id explains the change", "suggested_mapping": "input.ticket_id"}],
                    ),
                    T0 + 60,
                ),
                record(envelope(True, WIDE, "Hooks misused"), T0 + 70),
                record(envelope(False, "only.in.failed.runs", "ignored", {"custom": "broken", "reason": "x"}), T0 + 90),
            ]
        )
    return base


async def open_dashboard(app: CogtuiApp, pilot: Pilot[None]) -> InsightsScreen:
    await pilot.pause()
    navigation.insights(app, None)
    await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
    screen = app.screen
    assert isinstance(screen, InsightsScreen)
    await until(lambda: screen.state.promotions_read_at >= 0, pilot)
    return screen


def text(screen: Screen[Any], selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def check_agrees(screen: InsightsScreen) -> None:
    """Header (trend), status, detail and footer are what the state says."""
    state = screen.state
    assert text(screen, "#insights-trend-label") == state.trend_label()
    assert text(screen, "#status") == state.status_line()
    offered = {active.binding.action for active in screen.active_bindings.values()}
    for action in ("promote", "undo_promotion"):
        assert (action in offered) == state.can(action), (action, state.current)
    detail = text(screen, "#insight-detail-body")
    document = state.current
    assert document is not None
    name = document["value"] if state.tab == ENUMS else document["suggested_mapping"]
    assert name in detail
    assert ("✓ promoted" in detail) == bool(state.promoted_in(state.tab, document))
    table = screen.query_one(CustomEnumTable if state.tab == ENUMS else InsightTable)
    assert table.cursor_row == state.cursor[state.tab]


async def test_every_action_shows_the_state_and_failed_runs_are_left_out(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(app, pilot)
        check_agrees(screen)
        # Only the two valid runs count; the failed one is counted as left out, in the status line.
        assert [d["suggested_mapping"] for d in screen.state.rows()] == ["assumptions", "input.ticket_id", WIDE]
        assert [d["value"] for d in screen.state.rows(ENUMS)] == ["concurrency"]
        assert "4 insights in 3 mappings" in text(screen, "#status")
        assert "1 run that failed its contract not counted" in text(screen, "#status")
        for keys in (("t",), ("t",), ("r",)):
            await pilot.press(*keys)
            await until(lambda: screen.filled, pilot)
            check_agrees(screen)


async def test_a_promotion_is_marked_and_undone_from_the_dashboard(root: Path, tmp_path: Path) -> None:
    schema = root / "code-reviewer" / "schema.json"
    before = schema.read_bytes()
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(app, pilot)
        assert screen.state.can("promote") and not screen.state.can("undo_promotion")
        await pilot.press("p")
        await until(lambda: isinstance(app.screen, MigrationScreen) and app.screen.slots[0].plan is not None, pilot)
        preview = screen_of(app, MigrationScreen)
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.click("#confirm")
        await until(lambda: preview.slots[0].applied is not None and preview.slots[0].busy is None, pilot)
        await pilot.press("escape")
        # Back on the dashboard: the row is marked, p is no longer offered, u is.
        await until(lambda: app.screen is screen and screen.state.can("undo_promotion"), pilot)
        assert b'"assumptions"' in schema.read_bytes()
        assert str(screen.query_one(InsightTable).get_row_at(0)[0]).startswith("✓ assumptions")
        check_agrees(screen)
        assert not screen.state.can("promote")
        await pilot.press("u")
        await until(lambda: not screen.state.busy and not screen.state.can("undo_promotion"), pilot)
        assert schema.read_bytes() == before
        await until(lambda: screen.state.can("promote"), pilot)
        assert str(screen.query_one(InsightTable).get_row_at(0)[0]) == "assumptions"
        check_agrees(screen)


async def test_enter_opens_the_row_in_full_with_its_runs(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_dashboard(app, pilot)
        assert LONG.strip() not in text(screen, "#insight-detail-body")  # the pane clips a long sample
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, InsightRowScreen) and app.screen.phase == "ready", pilot)
        shown = " ".join(text(app.screen, "#insight-row-runs").split())
        assert " ".join(LONG.split()) in shown  # the whole sample
        assert "2 runs behind this row" in shown and "run 1 " in shown and "run 2 " in shown
        assert "run 4" not in shown  # the failed run is behind no row
        assert "evidence: line 3" in shown
        await pilot.press("escape")
        await until(lambda: app.screen is screen, pilot)
        # Issue 12: mappings wider than their column could not be read; the opened row shows the whole name.
        await pilot.press("down", "down")
        assert screen.query_one(InsightTable).ordered_columns[0].width < len(WIDE)  # cut in the table
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, InsightRowScreen) and app.screen.phase == "ready", pilot)
        assert WIDE in text(app.screen, "#insight-row-title") and "Hooks misused" in text(
            app.screen, "#insight-row-runs"
        )
        await pilot.press("escape")
        await until(lambda: app.screen is screen, pilot)
        await pilot.press("t", "enter")
        await until(lambda: isinstance(app.screen, InsightRowScreen) and app.screen.phase == "ready", pilot)
        shown = text(app.screen, "#insight-row-runs")
        assert "1 run behind this row" in shown and "reason: a race" in shown


async def test_a_history_that_cannot_be_read_is_shown_as_failed(root: Path, tmp_path: Path) -> None:
    where = paths.history_path()
    for extra in where.parent.glob(where.name + "*"):
        extra.unlink()
    where.write_bytes(b"this is not a database " * 100)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        navigation.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.state.phase is Phase.FAILED, pilot)
        screen = screen_of(app, InsightsScreen)
        await pilot.pause()
        assert (
            text(screen, "#status") == screen.state.status_line() == "The run history could not be read (all modules)."
        )
        offered = {active.binding.action for active in screen.active_bindings.values()}
        assert "promote" not in offered and "undo_promotion" not in offered
        await pilot.press("r")  # a reload starts over, and fails again: shown as failed, not as loading
        await until(lambda: screen.state.phase is Phase.FAILED, pilot)
        await pilot.pause()
        assert "could not be read" in text(screen, "#status")
    shutil.rmtree(where.parent, ignore_errors=True)


async def test_an_input_mapping_is_promoted_into_the_input_schema(root: Path, tmp_path: Path) -> None:
    """Issue 12: suggested mappings under input.* could not be promoted; p now plans a field of the input schema."""
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(app, pilot)
        await pilot.press("down")
        assert screen.state.current is not None and screen.state.current["suggested_mapping"] == "input.ticket_id"
        assert screen.state.can("promote")
        await pilot.press("p")
        await until(lambda: isinstance(app.screen, MigrationScreen) and app.screen.slots[0].plan is not None, pilot)
        preview = screen_of(app, MigrationScreen)
        plan = preview.slots[0].plan
        assert plan is not None and not plan.errors and [f.path for f in plan.files] == ["schema.json"]
        added = [line for line in plan.files[0].diff.splitlines() if line.startswith("+") and '"ticket_id"' in line]
        assert added, plan.files[0].diff
        assert "input" in preview.state.heading() and "Promote input.ticket_id" in preview.state.heading()


async def test_only_the_latest_promotion_is_undone_and_an_earlier_one_says_why(root: Path, tmp_path: Path) -> None:
    """Two promotions, made in this order: on the earlier row `u` undoes nothing and says why, in a notification
    and in the detail (MIG-10): which later change stands in the way and where it is undone; undoing the
    later one makes the earlier one the latest, and `u` undoes it there."""
    module = root / "code-reviewer"
    for mapping in ("assumptions", "input.ticket_id"):
        apply_promotion(plan_promotion(PromotionRequest("code-reviewer", mapping=mapping), load_module(module)))
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_dashboard(app, pilot)
        assert screen.state.current is not None and screen.state.current["suggested_mapping"] == "assumptions"
        assert screen.state.can("undo_promotion") and not screen.state.undo_ready()
        why = (
            "u undoes only code-reviewer's latest change, and this promotion ({}) has a later change after it; "
            'the latest is the promotion of "input.ticket_id" ({}). To take this one back, undo it first '
            "(u on its row here), then press u here."
        )
        detail = " ".join(text(screen, "#insight-detail-body").split())
        assert re.search(re.escape(why).replace(re.escape("{}"), r"\d{4}-\d\d-\d\d \d\d:\d\d UTC"), detail), detail
        check_agrees(screen)
        said = notices(app)
        schema = (module / "schema.json").read_text(encoding="utf-8")
        await pilot.press("u")  # said, not silent: nothing is undone
        await until(lambda: bool(said), pilot)
        assert said[-1].startswith("Nothing undone: u undoes only code-reviewer's latest change, and this promotion (")
        assert (
            'the latest is the promotion of "input.ticket_id"' in said[-1] and "latest promotion only" not in said[-1]
        )
        assert (module / "schema.json").read_text(encoding="utf-8") == schema and not screen.state.busy
        await pilot.press("down")
        await until(lambda: screen.state.cursor[screen.state.tab] == 1 and screen.state.undo_ready(), pilot)
        assert "u undoes the promotion" in text(screen, "#insight-detail-body")
        assert "can be undone" not in text(screen, "#insight-detail-body")
        check_agrees(screen)
        await pilot.press("u")
        await until(
            lambda: (
                not screen.state.busy
                and screen.state.current is not None
                and not screen.state.promoted_in(screen.state.tab, screen.state.current)
            ),
            pilot,
        )
        await pilot.press("up")
        await until(lambda: screen.state.cursor[screen.state.tab] == 0 and screen.state.undo_ready(), pilot)
        assert "u undoes the promotion" in text(screen, "#insight-detail-body")
        check_agrees(screen)
