"""What an eval produces: one cell per golden case x target, a summary per target, and the report as JSON.

The JSON document (`cogn eval --json`, and what history keeps for baselines)
has `"format": "cogtui-eval/1"`; `EvalReport.from_json` reads it back and
refuses anything else with a message (a baseline file is user input).
"""

from __future__ import annotations

from typing import Any

from cogtui.core.records import field, record

FORMAT = "cogtui-eval/1"
MISMATCH = "mismatch"  # a failing cell whose envelope is ok but differs from the golden (D81)


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


@record(frozen=False)
class Cell:
    """One golden case run against one target."""

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
    run_id: int | None = None  # the run in history, once recorded
    # In memory only (the TUI shows them): the run's envelope, the golden, and their diff.
    envelope: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    expected: Any = field(default=None, compare=False, repr=False)
    diff: str = field(default="", compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.module, self.case, self.target)

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
            keys = ("id", "started_at", "modules", "targets", "jobs")
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
        )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
