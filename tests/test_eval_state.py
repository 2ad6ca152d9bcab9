"""The eval screen's one state object (core.eval.eval_state), without a screen."""

from __future__ import annotations

from cogtui.core.eval.eval_state import PENDING, CellStatus, EvalPhase, EvalState, trend_drawn, trend_label
from cogtui.core.eval.model import Cell, EvalReport
from cogtui.core.eval.stats import summarise


def cell(case: str, passed: bool = True, target: str = "replay") -> Cell:
    return Cell("m", case, target, passed, None if passed else "E3001")


def report(*cells: Cell) -> EvalReport:
    result = EvalReport(["m"], ["replay"], list(cells), 0.0)
    result.summaries = summarise(result.cells, result.targets)
    return result


def test_cells_fill_the_matrix_and_a_stale_cell_of_an_earlier_run_is_dropped() -> None:
    state = EvalState()
    assert state.title() == "Loading the module…" and not state.can("rerun") and state.can("close")
    state.loaded("m", ["case1", "case2"])
    first = state.start(["replay", "replay"], 4, "off")  # a label given twice is one column
    assert state.targets == ["replay"] and state.phase is EvalPhase.RUNNING
    assert state.title() == "m — 2 cases × 1 target, 4 at once" and state.progress() == (0, 2)
    assert state.can("cancel") and not state.can("close") and not state.can("rerun") and state.can("options")
    assert state.label("case1", "replay") == PENDING and state.summary() == "running… 0 of 2 done"
    assert state.cell_started(first, "case1", "replay") and state.status("case1", "replay") is CellStatus.RUNNING
    assert state.cell_done(first, cell("case1")) and state.label("case1", "replay") == "✓ pass"
    assert not state.cell_started(first, "case1", "replay")  # finished already: not running again
    assert state.progress() == (1, 2) and state.verdict() == "running…"
    state.select("case2", "replay")
    assert state.selected == ("case2", "replay") and state.selected_cell() is None
    state.select("nope", "replay")  # not a cell of the matrix: the selection stays
    assert state.selected == ("case2", "replay")
    second = state.start(["replay"], 4, "any")  # run again
    assert state.cells == {} and state.selected is None and state.title().endswith("· cache: any")
    assert not state.cell_done(first, cell("case2"))  # the earlier run's: dropped
    assert not state.finished(first, report(cell("case1"), cell("case2")))
    assert state.cell_done(second, cell("case1")) and state.cell_done(second, cell("case2", passed=False))
    assert state.label("case2", "replay") == "✗ E3001" and state.failures == 1
    done = report(cell("case1"), cell("case2", passed=False))
    assert state.finished(second, done) and state.phase is EvalPhase.DONE and state.final
    assert state.verdict() == "1 of 2 failed" and state.summary().startswith("replay  1/2 passed (50%) · E3001 ×1")
    assert not state.cell_done(second, cell("case1", passed=False))  # done is final
    assert state.label("case1", "replay") == "✓ pass" and state.can("rerun") and not state.can("cancel")


def test_cancel_keeps_the_finished_cells_and_is_final() -> None:
    state = EvalState()
    state.loaded("m", ["case1", "case2", "case3"])
    generation = state.start(["replay"], 1, "off")
    state.cell_done(generation, cell("case1"))
    state.cell_started(generation, "case2", "replay")
    assert state.cancel() and state.phase is EvalPhase.CANCELLED and state.final
    assert [state.status(c, "replay") for c in ("case1", "case2", "case3")] == [
        CellStatus.PASSED,
        CellStatus.CANCELLED,
        CellStatus.CANCELLED,
    ]
    assert state.label("case2", "replay") == "– cancelled" and state.verdict() == "cancelled"
    assert state.summary().startswith("cancelled after 1 of 3 cells · not recorded")
    assert not state.cell_done(generation, cell("case2")) and not state.finished(generation, report(cell("case1")))
    assert not state.cancel() and state.progress() == (1, 3)
    assert state.can("rerun") and state.can("close") and not state.can("cancel")


def test_no_goldens_and_failures_are_final() -> None:
    state = EvalState()
    state.loaded("m", [])
    state.start(["replay"], 4, "off")
    assert state.phase is EvalPhase.EMPTY and state.final and "no golden tests" in state.summary()
    assert state.progress() == (0, 1) and state.title() == "m — 0 cases × 1 target, 4 at once"
    state.loaded("m", ["case1"])
    generation = state.start(["replay"], 4, "off")
    state.failed("no key", generation - 1)  # an earlier run's failure: ignored
    assert state.phase is EvalPhase.RUNNING
    state.failed("no key", generation)
    assert state.phase is EvalPhase.FAILED and state.summary() == "failed: no key" and state.title().startswith("m —")
    assert not state.cell_done(generation, cell("case1")) and state.label("case1", "replay") == "– not run"
    unloaded = EvalState()
    unloaded.failed("not a module folder")
    assert unloaded.title() == "not a module folder" and not unloaded.can("rerun") and not unloaded.can("options")


def test_the_trend_label_says_what_a_flat_sparkline_cannot() -> None:
    """The sparkline scales to its own range: 100 % every time draws like 0 % every time (a flat bottom line),
    and one eval as a full bar whatever its rate."""
    assert trend_label([]) == "no evals recorded yet"
    assert trend_label([0.5]) == "pass rate, 1 eval: 50%"
    assert trend_label([1.0, 1.0, 1.0]) == "pass rate, last 3 evals: 100% each"
    assert trend_label([0.0, 0.0]) == "pass rate, last 2 evals: 0% each"
    assert trend_label([1.0, 0.5, 0.75]) == "pass rate, last 3 evals"  # the bars show it: lowest to highest


def test_the_sparkline_is_drawn_only_where_its_bars_mean_something() -> None:
    assert not trend_drawn([])
    assert not trend_drawn([0.0])  # a lone eval would be a full bar, even at 0 %
    assert not trend_drawn([1.0, 1.0, 1.0])  # steady at 100 % would be the flat bottom line, as at 0 %
    assert trend_drawn([1.0, 0.5]) and trend_drawn([0.0, 1.0, 1.0])
