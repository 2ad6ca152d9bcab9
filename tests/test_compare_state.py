"""The state objects of this issue's screens: CompareState (two targets side by side), the run screen's title with
a second target, PromptViewState (the prompt as sent), and what the goldens and eval states say of judged and
accepted cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogtui.core.eval.eval_state import EvalPhase, EvalState, judge_text
from cogtui.core.eval.model import Cell, CellJudge, EvalReport
from cogtui.core.run.compare_state import CompareState
from cogtui.core.run.golden_runner import CaseResult
from cogtui.core.run.golden_state import GoldensState, judge_lines, result_label
from cogtui.core.run.judge import Judgement
from cogtui.core.run.prompt_preview import PromptPreview, PromptViewState
from cogtui.core.run.run_state import Phase, RunScreenState


def envelope(label: str, explain: str = "same") -> dict[str, Any]:
    meta = {"confidence": 0.9, "risk": "low", "explain": explain, "trace_id": label, "latency_ms": 3.0}
    return {"ok": True, "meta": meta, "data": {"label": label, "tags": ["a", "b"], "rationale": "r"}}


def test_compare_marks_the_fields_that_differ_and_not_the_runtimes_meta() -> None:
    state = CompareState.of("openai/gpt-4o-mini", "anthropic/claude-sonnet-5-5")
    assert state.running and state.summary() == "running on both targets…"
    assert state.sides[0].line() == "openai/gpt-4o-mini · running…"
    assert state.finished(0, envelope("bug"), False, 812.0, 0.0012)
    assert state.running  # one side is in
    assert state.finished(1, envelope("feature"), False, 1500.0, None)
    assert not state.finished(1, envelope("late"), False, 1.0, None)  # final: a late result changes nothing
    assert state.differing() == ["data.label"]  # trace_id and latency_ms differ too, and are the runtime's
    rows = {row.path: row for row in state.rows()}
    assert rows["data.label"].left == "bug" and rows["data.label"].right == "feature" and rows["data.label"].differs
    assert not rows["data.tags[1]"].differs and "meta.trace_id" not in rows
    assert state.summary() == "1 field differs (marked ≠)"
    assert state.sides[0].line() == "openai/gpt-4o-mini · ok · 812 ms · $0.0012"
    assert state.sides[1].line().endswith("· 1,500 ms · cost ?")


def test_compare_a_failure_against_an_answer_and_a_cancel() -> None:
    state = CompareState.of("a", "b")
    failed = {"ok": False, "meta": {}, "error": {"code": "E3001", "message": "bad"}}
    state.finished(0, failed, False, 10.0, None)
    state.cancel()
    assert not state.running and state.sides[1].phase is Phase.CANCELLED
    assert state.sides[0].line().startswith("a · ✗ E3001 bad")
    assert {row.path for row in state.rows() if row.differs} == {"ok", "meta", "error.code", "error.message"}


def test_the_run_title_names_the_target_compared_with() -> None:
    state = RunScreenState("code-reviewer")
    state.runs_on("openai", "gpt-4o-mini")
    state.compare_with(" anthropic/claude-sonnet-5-5 ")
    assert state.title() == "code-reviewer · openai gpt-4o-mini vs anthropic/claude-sonnet-5-5"
    state.compare_with("")
    assert state.title() == "code-reviewer · openai gpt-4o-mini"


def test_the_prompt_view_builds_then_shows_the_request_or_the_refusal() -> None:
    state = PromptViewState("code-reviewer")
    assert state.phase == "building" and "building" in state.text()
    preview = PromptPreview(
        "code-reviewer",
        "openai",
        "gpt-4o-mini",
        "SYSTEM",
        [{"role": "user", "text": "USER"}],
        tokens=12,
        counted="an estimate",
    )
    state.ready(preview)
    assert state.phase == "ready" and state.title().startswith("code-reviewer on openai gpt-4o-mini")
    text = state.text()
    assert text.startswith("12 input tokens (an estimate) · cost ?") and "── system ──\nSYSTEM" in text
    assert "── user ──\nUSER" in text
    state.failed("late")  # final
    assert state.phase == "ready"
    refused = PromptViewState("m")
    refused.ready(PromptPreview("m", "replay", "replay", problem={"code": "E1003", "message": "invalid input"}))
    assert refused.phase == "refused" and refused.text().startswith("a run would be refused before any call: E1003")


def judged(score: float | None, passed: bool, status: str = "judged") -> CaseResult:
    judgement = Judgement(
        status, passed, 0.7, score, "pass" if passed else "fail", "It names it.", ["quote"], reason="why"
    )
    return CaseResult("case1", passed, [] if passed else ["why"], judgement=judgement, contract_ok=True)


def test_goldens_labels_and_pane_lines_say_the_score() -> None:
    assert result_label(judged(0.9, True)) == "✓ pass · 0.90"
    assert result_label(judged(0.4, False), accepted=True) == "✗ fail · 0.40 · accepted"
    assert result_label(judged(None, True, "not judged")) == "✓ pass · not judged"
    assert judge_lines(judged(0.9, True), "openai/j") == [
        "judge (openai/j): why · verdict pass",
        "rationale: It names it.",
        "evidence: “quote”",
    ]
    state = GoldensState()
    state.start("m", "replay", 1, judge="openai/j")
    assert not state.can("accept") and state.accept_target() is None
    state.case_done(state.generation, judged(0.4, False))
    assert state.can("accept") and state.accept_target() is not None


def test_the_eval_state_offers_accept_on_a_failing_cell_and_says_the_judge() -> None:
    judge = CellJudge("judged", 0.7, 0.55, "fail", "Misses it.", ["q"], "low-score", "below", [0.5, 0.6])
    failing = Cell("m", "case1", "openai", False, "low-score", ["below"], judge=judge, samples=2, samples_passed=0)
    state = EvalState()
    state.loaded("m", ["case1"])
    generation = state.start(["openai"], 4, "off", judge="anthropic/j")
    assert not state.can("accept") and not state.offers("accept")
    state.cell_done(generation, failing)
    state.finished(generation, EvalReport(["m"], ["openai"], [failing], 0.0))
    assert state.phase is EvalPhase.DONE and state.can("accept") and not state.offers("accept")  # nothing chosen
    state.select("case1", "openai")
    assert state.offers("accept") and state.accept_target() is failing and not state.can("undo")
    text = judge_text(failing, state.judge)
    assert text.splitlines()[:2] == [
        "judge (anthropic/j): score 0.55 < 0.70 · verdict fail",
        "2 samples: 0.50 to 0.60, spread 0.05",
    ]
    assert state.label("case1", "openai") == "✗ 0/2 low-score · 0.55±0.05"


def test_an_accepted_cell_is_marked_and_offers_no_second_accept(tmp_path: Path) -> None:
    from cogtui.core.authoring.golden_accept import Accepted

    failing = Cell("m", "case1", "openai", False, "mismatch")
    state = EvalState()
    state.loaded("m", ["case1"])
    generation = state.start(["openai"], 4, "off")
    state.finished(generation, EvalReport(["m"], ["openai"], [failing], 0.0))
    state.select("case1", "openai")
    done = Accepted("m", "case1", tmp_path / "e.json", tmp_path, b"a", b"b", tmp_path / "backup")
    state.accepting.written(done)
    assert state.label("case1", "openai") == "✗ mismatch · accepted"
    assert not state.offers("accept") and state.can("undo") and state.offers("undo")
