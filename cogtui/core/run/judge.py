"""Rubric judges (docs/golden-tests.md, `$judge`): a golden case whose answer is scored by a model.

A golden's expected file may hold `"$judge": {"rubric": "...", "pass_score": 0.7}` beside its `data` or
`$validate`. Tools that do not know it ignore it. Once the envelope passes the contract checks, the
built-in module `cogtui-judge` (package data: cogtui/builtin) reads the rubric, the envelope and the case's
input, and answers `score` (0-1), `verdict`, `rationale` and `evidence`. The case passes only when the
contract checks pass *and* the score reaches `pass_score` (GOLD-9). The judge is a module like any other: its
answer is checked against its own contract, so a judge that answers out of contract or times out fails the
case with its E-code (`judge:E3001`), never passes it.

The judge runs on a target of its own (`--judge-provider/--judge-model`, or `judge:` in config.yaml), never
silently on the module's: with none set, a `$judge` case says so and what to set (GOLD-10). A replay answer is
a recorded one, not a model's: with no judge target it is judged on its contract alone, and says that too.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from cogtui.core.module.model import Module
from cogtui.core.records import field, record, replace
from cogtui.core.rules.judge_spec import DEFAULT_PASS_SCORE, JudgeSpec
from cogtui.core.run.manifest_policy import TEST, without_runtime_meta
from cogtui.core.run.providers.base import Provider
from cogtui.core.run.run_types import RunOptions, RunResult
from cogtui.core.run.runner import run_module
from cogtui.core.settings.config import Config

# The case codes a judged golden adds to an eval's (beside an E-code and `mismatch`, EVAL-2).
LOW_SCORE = "low-score"  # the judge scored the answer below pass_score
NO_JUDGE = "no-judge"  # a model's answer with a rubric, and no judge target to score it
BAD_RUBRIC = "bad-rubric"  # the expected file's `$judge` cannot be used
JUDGE_FAILED = "judge:"  # + the judge's own E-code: it answered out of contract, timed out, could not run

# What a case's judging came to.
JUDGED = "judged"
NOT_JUDGED = "not judged"  # a replay answer with no judge target: the contract alone decides
SKIPPED = "skipped"  # the contract checks failed: nothing to score
FAILED = "failed"  # no judge target, a broken `$judge`, or a judge that could not answer

MISSING = (
    "this case has a $judge rubric and no judge target is set: pass --judge-provider P [--judge-model M], or set "
    "`judge: {provider: P, model: M}` in config.yaml (the judge never runs on the module's own target unasked)"
)

# The same for the TUI, whose way to set a judge is config.yaml.
MISSING_CONFIG = (
    "this case has a $judge rubric and no judge target is set: set `judge: {provider: P, model: M}` in config.yaml "
    "(the judge never runs on the module's own target unasked)"
)


@record(frozen=False)
class JudgeSetup:
    """Who judges `$judge` cases: the judge's provider (None: no target is set, and `missing` says what to set)
    and how a run on it is made (the caller's deadline, retries and timeouts)."""

    provider: Provider | None = None
    missing: str = MISSING
    options: Callable[[Provider], RunOptions] = RunOptions


@record(frozen=False)
class Judgement:
    """What judging one case came to: the judge's answer, whether the case passes it, and the judge's run."""

    status: str  # JUDGED, NOT_JUDGED, SKIPPED or FAILED
    passed: bool
    pass_score: float
    score: float | None = None
    verdict: str | None = None  # the judge's own word; the score decides (GOLD-9)
    rationale: str = ""
    evidence: list[str] = field(default_factory=list)
    code: str | None = None  # LOW_SCORE, NO_JUDGE, BAD_RUBRIC or judge:<E-code> when the case fails on it
    reason: str = ""  # one line for the case's reasons
    input: Any = field(default=None, compare=False, repr=False)  # the judge's input (what history records)
    result: RunResult | None = field(default=None, compare=False, repr=False)  # the judge's run

    def to_json(self) -> dict[str, Any]:
        doc = judged_json(self)
        return {"status": doc.pop("status"), "passed": self.passed, **doc}


# What a judging's JSON shows of the judge's answer, in this order: a case's (Judgement, `cogn test --json`) and an
# eval cell's (eval/model.py's CellJudge, `cogn eval --json` and baselines) write the same keys.
JUDGED_KEYS = ("status", "score", "pass_score", "verdict", "rationale", "evidence", "code", "reason")


def judged_json(judged: object) -> dict[str, Any]:
    """The JUDGED_KEYS of a Judgement or a CellJudge, read from its attributes of the same names."""
    return {key: getattr(judged, key) for key in JUDGED_KEYS}


def judge_provider(config: Config, provider: str | None = None, model: str | None = None) -> Provider | None:
    """The judge's target: `--judge-provider/--judge-model`, else `judge:` in config.yaml; None when neither names
    one (GOLD-10). UnknownProvider for a name that is no provider, or a model without a provider to run it on."""
    from cogtui.core.run.providers import UnknownProvider, make_provider

    name = provider or config.judge_provider
    if name is None:
        if model:
            raise UnknownProvider(
                "--judge-model needs a judge provider: --judge-provider P, or judge.provider in config.yaml"
            )
        return None
    if model is None and (provider is None or provider == config.judge_provider):
        model = config.judge_model
    return make_provider(name, model, config)


def same_target_note(judge: str, targets: list[str]) -> str:
    """What to say when the judge was set to run on a target under test: allowed, since it was asked for."""
    if judge not in targets or judge == "replay":  # replay answers from files: it grades nothing of its own
        return ""
    return f"the judge runs on {judge}, a target under test: a model grading its own answers tends to be lenient"


@cache
def judge_module() -> Module:
    """The built-in judge, loaded once from the package (cogtui/builtin/cogtui-judge)."""
    from cogtui.builtin import JUDGE_DIR
    from cogtui.core.module.loader import load_module

    return load_module(JUDGE_DIR)


def judge_input(spec: JudgeSpec, module: str, envelope: dict[str, Any], case_input: Any) -> dict[str, Any]:
    """What the judge reads. The meta the runtime fills (trace_id, latency_ms...) is left out: it is no part of
    the answer, and keeping it would make every judge request unique to the response cache."""
    return {
        "rubric": spec.rubric,
        "candidate": without_runtime_meta(envelope),
        "case_input": case_input,
        "module": module,
        "pass_score": spec.pass_score,
    }


def skipped(spec: JudgeSpec | None) -> Judgement:
    """The contract checks failed: the rubric is not asked about (a judge costs a call)."""
    return Judgement(
        SKIPPED, False, spec.pass_score if spec else DEFAULT_PASS_SCORE, reason="not judged: the contract checks failed"
    )


def bad_rubric(problem: str) -> Judgement:
    return Judgement(
        FAILED, False, DEFAULT_PASS_SCORE, code=BAD_RUBRIC, reason=f"{problem} (the expected file's $judge)"
    )


async def judge_case(
    setup: JudgeSetup | None, spec: JudgeSpec, module: Module, case_input: Any, candidate: RunResult
) -> Judgement:
    """Score `candidate` (a run that passed the contract checks) against `spec` with the built-in judge."""
    if setup is None or setup.provider is None:
        if candidate.provider == "replay":
            why = "rubric not judged: a replay answer is recorded, not a model's; set a judge target to score it"
            return Judgement(NOT_JUDGED, True, spec.pass_score, reason=why)
        missing = setup.missing if setup is not None else MISSING
        return Judgement(FAILED, False, spec.pass_score, code=NO_JUDGE, reason=missing)
    judge = judge_module()
    doc = judge_input(spec, module.name, candidate.envelope, case_input)
    result = await run_module(judge, doc, replace(setup.options(setup.provider), caller=TEST, resolver=None))
    return _read(spec, doc, result)


def _read(spec: JudgeSpec, doc: dict[str, Any], result: RunResult) -> Judgement:
    """The judge's envelope as a judgement: its E-code when it is not ok (the runner checked its contract)."""
    envelope = result.envelope
    found = envelope.get("data")
    data: dict[str, Any] = found if isinstance(found, dict) else {}
    score = data.get("score")
    if envelope.get("ok") is not True or isinstance(score, bool) or not isinstance(score, (int, float)):
        found = envelope.get("error")
        error: dict[str, Any] = found if isinstance(found, dict) else {}
        code = str(error.get("code") or "E3001")
        message = str(error.get("message") or "its answer has no score")
        reason = f"the judge could not score the answer: {code} {message}"
        return Judgement(
            FAILED, False, spec.pass_score, code=JUDGE_FAILED + code, reason=reason, input=doc, result=result
        )
    score = float(score)
    verdict = str(data.get("verdict", ""))
    evidence = [str(e) for e in data.get("evidence") or [] if isinstance(e, str)]
    passed = score >= spec.pass_score
    said = f"score {score:.2f} {'≥' if passed else '<'} pass_score {spec.pass_score:.2f}"
    if (verdict == "pass") != passed:
        said += f" (the judge's verdict says {verdict}: the score decides)"
    reason = said if passed else f"the judge scored the answer below the rubric's bar: {said}"
    return Judgement(
        JUDGED,
        passed,
        spec.pass_score,
        score,
        verdict,
        str(data.get("rationale", "")),
        evidence,
        None if passed else LOW_SCORE,
        reason,
        doc,
        result,
    )


__all__ = [
    "BAD_RUBRIC",
    "JUDGED",
    "JUDGE_FAILED",
    "LOW_SCORE",
    "MISSING",
    "MISSING_CONFIG",
    "NOT_JUDGED",
    "NO_JUDGE",
    "JudgeSetup",
    "Judgement",
    "bad_rubric",
    "judge_case",
    "judge_input",
    "judge_module",
    "judge_provider",
    "same_target_note",
    "skipped",
]
