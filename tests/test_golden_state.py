"""The goldens screen's one state object (core.run.golden_state), without a screen."""

from __future__ import annotations

from cogtui.core.run.golden_runner import CaseResult
from cogtui.core.run.golden_state import GoldensPhase, GoldensState


def test_a_run_its_results_and_a_stale_result_of_an_earlier_run() -> None:
    state = GoldensState()
    assert state.title() == "Loading the module…" and not state.final
    first = state.start("m", "replay", 2)
    assert state.phase is GoldensPhase.RUNNING and state.title() == "m — 2 golden tests via replay"
    assert state.case_done(first, CaseResult("case1", True)) and state.progress() == (1, 2)
    second = state.start("m", "replay", 2)  # run again
    assert state.results == [] and state.progress() == (0, 2)
    assert not state.case_done(first, CaseResult("case2", True))  # the earlier run's: dropped
    assert state.case_done(second, CaseResult("case1", True))
    assert state.summary() == "running… 1 of 2 done"
    assert state.case_done(second, CaseResult("case2", False, ["E3001 bad"]))
    assert state.phase is GoldensPhase.DONE and state.summary() == "1 of 2 failed" and state.failures == 1
    assert not state.case_done(second, CaseResult("case3", True))  # done is final
    assert state.result("case2") is not None and state.result("nope") is None
    assert state.title() == "m — 1 of 2 failed via replay"  # the outcome in the title, before the provider


def test_the_pane_shows_the_case_under_the_cursor_only_once_the_run_is_done() -> None:
    """Issue 30: the first row was highlighted while the pane said "Highlight a case to see its diff"."""
    state = GoldensState()
    generation = state.start("m", "replay", 3)
    state.case_done(generation, CaseResult("case1", True))
    assert state.shown_case() is None and not state.highlight("case1")  # running: no case shown, none highlighted
    state.case_done(generation, CaseResult("case2", False, ["E3001 bad"]))
    state.case_done(generation, CaseResult("case3", False, ["E3001 worse"]))
    shown = state.shown_case()
    assert shown is not None and shown.name == "case2"  # the first failing case
    assert state.highlight("case1") and state.shown_case() == state.result("case1")
    assert not state.highlight("case1") and not state.highlight("nope")
    state.start("m", "replay", 3)
    assert state.shown_case() is None and state.highlighted == ""


def test_no_goldens_and_failures_are_final() -> None:
    state = GoldensState()
    state.start("m", "replay", 0)
    assert state.phase is GoldensPhase.EMPTY and state.final and "no golden tests" in state.summary()
    assert state.title() == "m — 0 golden tests via replay"
    generation = state.start("m", "openai", 1)
    state.failed("no key", generation - 1)  # an earlier run's failure: ignored
    assert state.phase is GoldensPhase.RUNNING
    state.failed("no key", generation)
    assert state.phase is GoldensPhase.FAILED and state.title() == "no key" and state.summary() == ""
    assert not state.case_done(generation, CaseResult("case1", True))


def test_a_module_that_cannot_run_is_one_failure_and_ends_a_run_still_going() -> None:
    state = GoldensState()
    running = state.start("m", "replay", 2)
    state.cannot_run("m", {"code": "E4000", "message": "module m cannot run: x", "suggestion": "Fix it."})
    assert state.phase is GoldensPhase.FAILED and state.final and state.results == []
    assert state.title() == "E4000 module m cannot run: x Fix it."
    assert not state.case_done(running, CaseResult("case1", False, ["E4000"]))  # the run it replaced: dropped
