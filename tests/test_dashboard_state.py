"""The insights dashboard's one state object (core.history.dashboard_state), without a screen."""

from __future__ import annotations

from typing import Any

from cogtui.core.history.dashboard import DashboardData
from cogtui.core.history.dashboard_state import (
    ENUMS,
    INSIGHTS,
    NO_RUNS,
    UNDO_LATEST_ONLY,
    InsightsState,
    Phase,
    row_key,
)

GROUP = {
    "suggested_mapping": "assumptions",
    "count": 3,
    "modules": ["a", "b"],
    "examples": [],
    "first_seen": "2026-11-25T07:00:00.000Z",
    "last_seen": "2026-11-25T09:30:00.000Z",
}
UNMAPPED = {**GROUP, "suggested_mapping": None, "count": 1, "modules": ["a"]}
VALUE = {"module": "a", "field": "kind", "value": "hybrid", "count": 2, "reasons": []}


def data(module: str | None = None, excluded: int = 0, **kw: Any) -> DashboardData:
    left_out = {"runs": excluded, "insights": excluded, "custom_enums": 0}
    fields: dict[str, Any] = dict(insights=[GROUP, UNMAPPED], custom_enums=[VALUE], timeline=[(0.0, 1), (1.0, 3)])
    return DashboardData(module, True, ["a", "b"], **{**fields, **kw}, latest_id=7, excluded=left_out)


def test_a_read_for_another_filter_is_ignored_and_a_failure_is_shown_until_the_next_read() -> None:
    state = InsightsState(None)
    assert state.phase is Phase.LOADING and state.status_line() == "Reading all modules…"
    assert not state.loaded(data("b"))  # answers a filter the user has left
    assert state.phase is Phase.LOADING and state.data is None
    assert state.loaded(data(None))
    assert state.status_line() == "4 insights in 2 mappings  ·  2 custom enum values  ·  all modules"
    state.failed("disk on fire")
    assert state.status_line() == "The run history could not be read (all modules)."
    state.reading("a")  # a new filter: the old rows and marks go
    assert state.phase is Phase.LOADING and state.data is None and state.promoted == {}
    assert state.status_line() == "Reading a…"


def test_the_excluded_count_and_the_trend() -> None:
    state = InsightsState(None)
    state.loaded(data(excluded=2))
    assert state.status_line().endswith("all modules  ·  2 runs that failed their contract not counted")
    assert state.trend_label() == "Insights 2026-11-25 07:00–09:30, peak 3"
    state.loaded(data(excluded=1, insights=[], custom_enums=[], timeline=[]))
    assert state.empty and "1 run that failed its contract not counted" in state.empty_hint()
    assert state.trend_label() == "Insights over time: none yet"
    assert InsightsState(None).empty_hint() == NO_RUNS


def test_what_the_footer_offers_follows_the_row_and_its_promotion() -> None:
    state = InsightsState(None)
    assert not state.can("promote") and not state.can("undo_promotion") and state.can("reload")
    state.loaded(data())
    assert state.can("promote") and not state.can("undo_promotion")
    key = row_key(INSIGHTS, GROUP)
    state.promotions_known(7, {key: ("a",)}, {key: ("a",)})
    assert not state.fully_promoted(INSIGHTS, GROUP) and state.can("promote")  # b has not got it yet
    assert state.can("undo_promotion")
    state.promotions_known(7, {key: ("a", "b")}, {})
    assert state.fully_promoted(INSIGHTS, GROUP) and not state.can("promote")
    assert state.can("undo_promotion") and not state.undo_ready()  # offered, to say why not (MIG-10)
    state.highlight(INSIGHTS, 1)  # no mapping: nothing to promote
    assert state.current is UNMAPPED and not state.can("promote")
    state.highlight(INSIGHTS, 99)
    assert state.cursor[INSIGHTS] == 1
    state.switch_tab()
    assert state.tab == ENUMS and state.current is VALUE and state.can("promote")
    state.start("Planning")
    assert not state.can("promote") and state.status_line() == "Planning…"
    state.finish()
    assert state.can("promote")


def test_a_promoted_row_that_cannot_be_undone_says_why() -> None:
    state = InsightsState(None)
    state.loaded(data())
    key = row_key(INSIGHTS, GROUP)
    assert state.undo_refusal() is None and not state.can("undo_promotion")  # not promoted: nothing to undo
    state.promotions_known(7, {key: ("a", "b")}, {key: ("b",)})
    assert state.can("undo_promotion") and state.undo_ready() and state.undo_refusal() is None  # b's latest change
    state.promotions_known(7, {key: ("a", "b")}, {})  # a later change came after it in both
    # u is still offered: pressed, it says why nothing is undone (MIG-10)
    assert state.can("undo_promotion") and not state.undo_ready() and state.undo_refusal() == UNDO_LATEST_ONLY
    # With each module's reason read (promotion_target.undo_refusal), those are what it says (MIG-10).
    state.promotions_known(7, {key: ("a", "b")}, {}, {key: ("a: a later change came.", "b: no backup.")})
    assert state.undo_refusal() == "a: a later change came. b: no backup." and state.can("undo_promotion")
    state.start("Planning")
    assert state.undo_refusal() is None and not state.can("undo_promotion")  # busy: neither offered nor refused
