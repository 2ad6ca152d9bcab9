"""`--repeat N`: each case run N times against each target, folded into one cell (D253).

A model is not deterministic, and one run proves little. The cell of N samples passes only when every sample
passes (a case that fails one time in three fails CI, and its pass rate says how often); its failure is the
first failing sample's (code, reasons, diff and envelope), else the first sample's. Latency is the samples'
median, tokens and cost their sum, and a judged case's score the mean of the samples' scores, with their
spread (standard deviation).
"""

from __future__ import annotations

from statistics import mean, median
from typing import Any

from cogtui.core.eval.model import Cell, CellJudge
from cogtui.core.eval.stats import TOKEN_KEYS, tokens


def fold(samples: list[Cell]) -> Cell:
    """One cell for the samples of one (module, case, target), in the order they were run."""
    first = samples[0]
    if len(samples) == 1:
        return first
    shown = next((c for c in samples if not c.passed), first)
    latencies = [c.latency_ms for c in samples if c.latency_ms is not None]
    return Cell(
        first.module,
        first.case,
        first.target,
        all(c.passed for c in samples),
        shown.code,
        list(shown.reasons),
        round(median(latencies), 1) if latencies else None,
        _usage([c.usage for c in samples]),
        _sum([c.cost_usd for c in samples]),
        _sum([c.saved_usd for c in samples]),
        all(c.cached for c in samples),
        first.run_id,
        _judge([c.judge for c in samples], shown.judge),
        len(samples),
        sum(1 for c in samples if c.passed),
        envelope=shown.envelope,
        expected=shown.expected,
        diff=shown.diff,
    )


def _usage(usages: list[dict[str, Any]]) -> dict[str, Any]:
    """The samples' tokens added up (an empty usage stays empty: no call was made)."""
    if not any(usages):
        return {}
    out = {key: 0 for key in TOKEN_KEYS}
    for usage in usages:
        for key, value in tokens(usage).items():
            out[f"{key}_tokens"] += value
    return out


def _sum(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else round(sum(v or 0.0 for v in values), 8)


def _judge(judges: list[CellJudge | None], shown: CellJudge | None) -> CellJudge | None:
    """The samples' judging: the shown sample's words, the mean of every score, the cost of every judge call."""
    present = [j for j in judges if j is not None]
    if shown is None or not present:
        return shown
    scores = [score for j in present for score in j.scores]
    return CellJudge(
        shown.status,
        shown.pass_score,
        round(mean(scores), 4) if scores else None,
        shown.verdict,
        shown.rationale,
        list(shown.evidence),
        shown.code,
        shown.reason,
        scores,
        _sum([j.cost_usd for j in present if j.usage]),
        _usage([j.usage for j in present]),
        shown.run_id,
        all(j.cached for j in present),
    )


__all__ = ["fold"]
