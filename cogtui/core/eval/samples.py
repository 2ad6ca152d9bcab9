"""`--repeat N`: each case run N times, folded into one result: an eval's cell per target (EVAL-7), or a case of
`cogn test` (GOLD-12). Both commands fold their samples with the rules here.

A model is not deterministic, and one run proves little. A case of N samples passes only when every sample
passes (a case that fails one time in three fails CI, and its pass rate says how often); its failure is the
first failing sample's (code, reasons, diff and envelope), else the first sample's. Latency is the samples'
median, tokens and cost their sum, and a judged case's score the mean of the samples' scores, with their
spread (standard deviation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import median
from typing import TYPE_CHECKING, Any, TypeVar

from cogtui.core.eval.model import Cell, CellJudge, mean_score, spread
from cogtui.core.eval.stats import TOKEN_KEYS, tokens
from cogtui.core.records import field, record

if TYPE_CHECKING:
    from cogtui.core.run.golden_runner import CaseResult

T = TypeVar("T")


def repeated(items: Sequence[T], n: int) -> list[T]:
    """Each item `n` times, its samples side by side (what `grouped` folds back)."""
    return [item for item in items for _ in range(max(1, n))]


def grouped(results: Sequence[T], n: int) -> list[list[T]]:
    """The results of `repeated(items, n)`, one list of samples per item."""
    n = max(1, n)
    return [list(results[i : i + n]) for i in range(0, len(results), n)]


def shown_sample(samples: Sequence[T], passed: Callable[[T], bool]) -> T:
    """The sample that speaks for the others: the first failing one, else the first."""
    return next((s for s in samples if not passed(s)), samples[0])


@record(frozen=False)
class CaseSamples:
    """One golden case of `cogn test` run `samples` times: the sample shown and what the samples add up to."""

    shown: CaseResult
    samples: int = 1
    samples_passed: int = 0
    scores: list[float] = field(default_factory=list)  # one per sample the judge scored

    @property
    def passed(self) -> bool:
        return self.samples_passed == self.samples

    @property
    def pass_rate(self) -> float:
        return self.samples_passed / self.samples if self.samples else 0.0

    @property
    def score(self) -> float | None:
        return mean_score(self.scores)

    @property
    def spread(self) -> float | None:
        return spread(self.scores)

    def to_json(self) -> dict[str, Any]:
        """The shown sample's case (`cogn test --json`), with the samples' counts; its judging carries the mean
        score, every score and their spread, as an eval cell's does."""
        out = self.shown.to_json()
        out["passed"] = self.passed
        if out.get("judge") is not None:
            out["judge"] = {**out["judge"], "score": self.score, "scores": self.scores, "spread": self.spread}
        return {**out, "samples": self.samples, "samples_passed": self.samples_passed, "pass_rate": self.pass_rate}


def fold_cases(samples: list[CaseResult]) -> CaseSamples:
    """One case of `cogn test` for its samples, in the order they were run."""
    scores = [s.judgement.score for s in samples if s.judgement is not None and s.judgement.score is not None]
    return CaseSamples(
        shown_sample(samples, lambda s: s.passed), len(samples), sum(1 for s in samples if s.passed), scores
    )


def fold(samples: list[Cell]) -> Cell:
    """One cell for the samples of one (module, case, target), in the order they were run."""
    first = samples[0]
    if len(samples) == 1:
        return first
    shown = shown_sample(samples, lambda c: c.passed)
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
        mean_score(scores),
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


__all__ = ["CaseSamples", "fold", "fold_cases", "grouped", "repeated", "shown_sample"]
