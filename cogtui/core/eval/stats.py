"""Per-target figures of an eval: pass rate, violations by code, latency percentiles, tokens and cost."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from cogtui.core.eval.model import Cell, TargetSummary

TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def percentile(values: Iterable[float], p: float) -> float | None:
    """The nearest-rank percentile (p in 0..100) of the values; None for none."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def tokens(usage: dict[str, Any]) -> dict[str, int]:
    """input, output, cache_read and cache_write counts of a usage dict; a missing or odd count is 0."""
    out = {}
    for key in TOKEN_KEYS:
        value = usage.get(key)
        out[key.removesuffix("_tokens")] = (
            value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
        )
    return out


def summarise(cells: list[Cell], targets: list[str]) -> list[TargetSummary]:
    out = []
    for target in targets:
        mine = [c for c in cells if c.target == target]
        latencies = [c.latency_ms for c in mine if c.latency_ms is not None and not c.cached]
        totals = Counter({k.removesuffix("_tokens"): 0 for k in TOKEN_KEYS})
        for c in mine:
            totals.update(tokens(c.usage))
        costs = [c.cost_usd for c in mine]
        savings = [c.saved_usd for c in mine]
        scores = [c.score for c in mine if c.score is not None]
        judge_costs = [c.judge.cost_usd for c in mine if c.judge is not None and c.judge.usage]
        out.append(
            TargetSummary(
                target=target,
                cases=len(mine),
                passed=sum(1 for c in mine if c.passed),
                violations=dict(sorted(Counter(c.code for c in mine if c.code).items())),
                latency_p50_ms=percentile(latencies, 50),
                latency_p95_ms=percentile(latencies, 95),
                tokens=dict(totals),
                cost_usd=None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6),
                saved_usd=None if any(c is None for c in savings) else round(sum(c or 0.0 for c in savings), 6),
                cached=sum(1 for c in mine if c.cached),
                score_mean=round(sum(scores) / len(scores), 4) if scores else None,
                judged=len(scores),
                judge_cost_usd=None
                if any(c is None for c in judge_costs)
                else round(sum(c or 0.0 for c in judge_costs), 6),
            )
        )
    return out
