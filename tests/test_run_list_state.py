"""The history screen's one state object (core.history.run_list_state), without a screen."""

from __future__ import annotations

from dataclasses import replace

from history_kit import run

from cogtui.core.history.run_list_state import NO_RUNS, RUNS_LISTED, ListPhase, RunListState


def test_loading_marking_comparing_and_failing() -> None:
    state = RunListState("m")
    assert state.phase is ListPhase.LOADING and state.title() == "m — reading the run history…"
    assert not any(state.can(a) for a in ("rerun", "mark", "compare", "copy")) and state.can("close")
    runs = [replace(run(), id=i) for i in (3, 2, 1)]
    state.loaded(runs)
    assert state.current is runs[0] and state.title() == "m — 3 runs" and not state.can("compare")
    assert state.mark() is runs[0] and state.comparison() is None  # one run cannot be compared with itself
    state.highlight(99)
    assert state.current is runs[2] and state.can("compare") and state.comparison() == (runs[0], runs[2])
    assert state.title() == "m — 3 runs · run #3 marked (d compares)"
    assert not state.loaded(list(runs))  # read again, the same runs: nothing changes
    assert state.current is runs[2] and state.marked == 3
    state.loaded(runs[1:])  # the marked run is no longer listed: nothing stays marked
    assert state.marked is None and state.current is runs[2]  # the highlighted run stays highlighted
    newer = replace(run(), id=4)
    assert state.loaded([newer, *runs[1:]]) and state.current is runs[2]  # a run added on top (a re-run)
    assert state.title() == "m — 3 runs"
    state.loaded([])
    assert state.phase is ListPhase.EMPTY and state.title() == "m — 0 runs" and state.current is None and NO_RUNS
    state.failed("disk on fire")
    assert state.phase is ListPhase.FAILED and state.title() == "m — the run history could not be read"
    assert not state.can("rerun")


def test_a_module_with_more_runs_than_are_listed_says_which_it_lists() -> None:
    """QA: 5,059 runs read as "500 runs"; the screen lists the newest RUNS_LISTED and says of how many."""
    state = RunListState("m")
    runs = [replace(run(), id=i) for i in range(RUNS_LISTED, 0, -1)]
    state.loaded(runs, total=5_059)
    assert state.title() == f"m — the newest {RUNS_LISTED} of 5,059 runs"
    assert state.loaded(runs, total=5_060)  # a run added beyond the list: the count changes, so the title
    assert state.title() == f"m — the newest {RUNS_LISTED} of 5,060 runs"
    assert not state.loaded(runs, total=5_060)
    state.loaded(runs[:2], total=2)
    assert state.title() == "m — 2 runs"
