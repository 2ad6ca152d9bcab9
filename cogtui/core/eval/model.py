"""What an eval produces: one cell per golden case x target, a summary per target, and the report as JSON.

The JSON document (`cogn eval --json`, and what history keeps for baselines)
has `"format": "cogtui-eval/1"`; `EvalReport.from_json` reads it back and
refuses anything else with a message (a baseline file is user input).
"""

from __future__ import annotations

from typing import Any

from cogtui.core.records import field, record

FORMAT = "cogtui-eval/1"
MISMATCH = "mismatch"  # a failing cell whose envelope is ok but differs from the golden (EVAL-2)


class BadReport(ValueError):
    """A baseline that is not an eval report this cogtui can read."""


@record
class Target:
    """A provider and model to run every case against; `model` None means the provider's default."""

    provider: str
    model: str | None = None

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}" if self.model and self.model != self.provider else self.provider


def mean_score(scores: list[float]) -> float | None:
    """The samples' mean score (`--repeat`), None when nothing was scored."""
    from statistics import mean

    return round(mean(scores), 4) if scores else None


def spread(scores: list[float]) -> float | None:
    """The scores' standard deviation (population): 0 for one sample, None when nothing was scored."""
    from statistics import pstdev

    return round(pstdev(scores), 4) if scores else None


@record(frozen=False)
class CellJudge:
    """A `$judge` case's judging in a cell (run/judge.py): the score (the mean over `--repeat` samples), the
    judge's words, and what its runs cost."""

    status: str  # judged, not judged, skipped or failed (run/judge.py)
    pass_score: float
    score: float | None = None  # the mean of `scores`
    verdict: str | None = None
    rationale: str = ""
    evidence: list[str] = field(default_factory=list)
    code: str | None = None  # why the case fails on it (low-score, no-judge, bad-rubric, judge:<E-code>)
    reason: str = ""
    scores: list[float] = field(default_factory=list)  # one per sample that was scored
    cost_usd: float | None = None  # the judge's calls, priced by the judge's model (None: no price entry)
    usage: dict[str, Any] = field(default_factory=dict)
    run_id: int | None = None  # the judge's run in history, once recorded
    cached: bool = False  # the judge's answer came from the response cache

    @property
    def spread(self) -> float | None:
        """The scores' standard deviation (population): 0 for one sample, None when nothing was scored."""
        return spread(self.scores)

    def to_json(self) -> dict[str, Any]:
        from cogtui.core.run.judge import judged_json  # the keys a case's judgement writes too

        return {
            **judged_json(self),
            "scores": self.scores,
            "spread": self.spread,
            "cost_usd": self.cost_usd,
            "run_id": self.run_id,
            "cached": self.cached,
        }

    @classmethod
    def from_json(cls, doc: Any) -> CellJudge | None:
        """A baseline's judging, as far as it can be read (the score is what a comparison needs)."""
        if not isinstance(doc, dict):
            return None
        scores = [float(x) for x in doc.get("scores") or [] if _number(x)]
        return cls(
            str(doc.get("status") or ""),
            float(doc["pass_score"]) if _number(doc.get("pass_score")) else 0.0,
            float(doc["score"]) if _number(doc.get("score")) else None,
            doc.get("verdict") if isinstance(doc.get("verdict"), str) else None,
            str(doc.get("rationale") or ""),
            [str(e) for e in doc.get("evidence") or [] if isinstance(e, str)],
            doc.get("code") if isinstance(doc.get("code"), str) else None,
            str(doc.get("reason") or ""),
            scores,
        )


@record(frozen=False)
class Cell:
    """One golden case run against one target (`samples` times, with `--repeat`)."""

    module: str
    case: str
    target: str  # Target.label
    passed: bool
    code: str | None = None  # the failure's code: the envelope's error.code, or MISMATCH; None when passed
    reasons: list[str] = field(default_factory=list)
    latency_ms: float | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    saved_usd: float | None = None  # what the provider's prompt cache saved (cache reads at their lower price)
    cached: bool = False  # answered from the response cache (--cache): no model call
    run_id: int | None = None  # the run in history, once recorded (the first sample's)
    judge: CellJudge | None = None  # a `$judge` golden's judging
    samples: int = 1  # runs of the case (`--repeat N`)
    samples_passed: int = 0  # of which passed
    # In memory only (the TUI shows them): the run's envelope, the golden, and their diff.
    envelope: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    expected: Any = field(default=None, compare=False, repr=False)
    diff: str = field(default="", compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.module, self.case, self.target)

    @property
    def score(self) -> float | None:
        return self.judge.score if self.judge is not None else None

    @property
    def pass_rate(self) -> float:
        return self.samples_passed / self.samples if self.samples else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "case": self.case,
            "target": self.target,
            "passed": self.passed,
            "code": self.code,
            "reasons": self.reasons,
            "latency_ms": self.latency_ms,
            "usage": self.usage,
            "cost_usd": self.cost_usd,
            "saved_usd": self.saved_usd,
            "cached": self.cached,
            "run_id": self.run_id,
            "judge": self.judge.to_json() if self.judge is not None else None,
            "samples": self.samples,
            "samples_passed": self.samples_passed,
            "pass_rate": round(self.pass_rate, 4),
        }

    @classmethod
    def from_json(cls, doc: Any) -> Cell:
        if not isinstance(doc, dict):
            raise BadReport("a cell is not an object")
        try:
            module, case, target = (doc[k] for k in ("module", "case", "target"))
            passed = doc["passed"]
        except KeyError as exc:
            raise BadReport(f"a cell has no {exc.args[0]!r}") from None
        if not all(isinstance(x, str) for x in (module, case, target)) or not isinstance(passed, bool):
            raise BadReport("a cell's module, case and target must be text and passed true or false")
        code = doc.get("code")
        latency = doc.get("latency_ms")
        usage = doc.get("usage")
        samples = _int(doc.get("samples")) or 1
        passes = _int(doc.get("samples_passed"))
        return cls(
            module,
            case,
            target,
            passed,
            code if isinstance(code, str) else None,
            [str(r) for r in doc.get("reasons") or [] if isinstance(r, str)],
            float(latency) if isinstance(latency, (int, float)) and not isinstance(latency, bool) else None,
            usage if isinstance(usage, dict) else {},
            None,
            None,
            doc.get("cached") is True,
            _int(doc.get("run_id")),
            CellJudge.from_json(doc.get("judge")),
            samples,
            passes if passes is not None else samples * passed,
        )


@record(frozen=False)
class TargetSummary:
    """One target's line of the matrix: pass rate, violations by code, latency, tokens and cost."""

    target: str
    cases: int
    passed: int
    violations: dict[str, int]  # failure code -> cells
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    tokens: dict[str, int]  # input, output, cache_read, cache_write
    cost_usd: float | None  # None when a model has no price entry
    saved_usd: float | None  # what prompt caching saved, at the same prices
    cached: int  # cells answered from the response cache
    score_mean: float | None = None  # the mean judge score of the cells that were scored
    judged: int = 0  # cells whose answer a judge scored
    judge_cost_usd: float | None = None  # what the judge's calls cost (None: no price entry for its model)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "cases": self.cases,
            "passed": self.passed,
            "pass_rate": round(self.pass_rate, 4),
            "violations": self.violations,
            "latency_p50_ms": self.latency_p50_ms,
            "latency_p95_ms": self.latency_p95_ms,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
            "saved_usd": self.saved_usd,
            "cached": self.cached,
            "score_mean": self.score_mean,
            "judged": self.judged,
            "judge_cost_usd": self.judge_cost_usd,
        }


@record(frozen=False)
class EvalReport:
    """An eval: every cell (case x target) and each target's summary."""

    modules: list[str]
    targets: list[str]
    cells: list[Cell]
    started_at: float
    jobs: int = 4
    id: int | None = None  # the eval's id in history, once recorded
    repeat: int = 1  # samples of each cell (`--repeat N`)
    judge: str | None = None  # the judge's target (Target.label), when one was set
    summaries: list[TargetSummary] = field(default_factory=list)

    def cell(self, module: str, case: str, target: str) -> Cell | None:
        return next((c for c in self.cells if c.key == (module, case, target)), None)

    @property
    def failed(self) -> int:
        return sum(1 for c in self.cells if not c.passed)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "id": self.id,
            "started_at": self.started_at,
            "modules": self.modules,
            "targets": self.targets,
            "jobs": self.jobs,
            "repeat": self.repeat,
            "judge": self.judge,
            "cells": [c.to_json() for c in self.cells],
            "summary": [s.to_json() for s in self.summaries],
        }

    @classmethod
    def from_json(cls, doc: Any) -> EvalReport:
        """A report as history keeps it (`"format": "cogtui-eval/1"`), or the `cogn eval --json` document that
        carries it (`"format": 1`, docs/cli.md); BadReport for anything else."""
        if isinstance(doc, dict) and doc.get("format") == 1 and doc.get("command") == "eval":
            given = doc.get("summary")
            summary: dict[str, Any] = given if isinstance(given, dict) else {}
            keys = ("id", "started_at", "modules", "targets", "jobs", "repeat", "judge")
            doc = {"format": FORMAT, "cells": doc.get("items"), **{k: summary.get(k) for k in keys}}
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise BadReport("not a cogtui eval report (a file from `cogn eval -o FILE` or `cogn eval --json`)")
        cells = doc.get("cells")
        if not isinstance(cells, list):
            raise BadReport("the report has no list of cells")
        started = doc.get("started_at")
        return cls(
            [str(m) for m in doc.get("modules") or [] if isinstance(m, str)],
            [str(t) for t in doc.get("targets") or [] if isinstance(t, str)],
            [Cell.from_json(c) for c in cells],
            float(started) if isinstance(started, (int, float)) and not isinstance(started, bool) else 0.0,
            _int(doc.get("jobs")) or 0,
            _int(doc.get("id")),
            _int(doc.get("repeat")) or 1,
            doc.get("judge") if isinstance(doc.get("judge"), str) else None,
        )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
