"""Comparing an eval with a baseline: a saved `cogn eval --json` file, or an eval's id in the history (D82).

Cells are matched by (module, case, target). A case that passed in the
baseline and fails now is a regression; one that failed and passes now is an
improvement; cells on only one side are new or gone. A judged case whose score
fell by more than `max_score_drop` (default 0.1) is a score drop, even when it
still passes (D254). Regressions and score drops fail a CI run (and new cells
that fail, D151): a case that was already failing is reported, not fatal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cogtui.core.eval.model import BadReport, EvalReport
from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.decoding import decode_bytes

MAX_BASELINE_BYTES = 64 * 1024 * 1024
REGRESSION, IMPROVEMENT, SAME, NEW, GONE = "regression", "improvement", "same", "new", "gone"
SCORE_DROP = "score-drop"  # still passing (or failing as before), but the judge's score fell past the threshold
MAX_SCORE_DROP = 0.1


class HistoryReader(Protocol):
    """What loading a baseline by id needs from the history."""

    def eval_report(self, eval_id: int) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class Change:
    module: str
    case: str
    target: str
    status: str  # REGRESSION, IMPROVEMENT, SCORE_DROP, SAME, NEW or GONE
    before: str | None  # "pass", or the failure's code; None when the cell is new
    after: str | None  # likewise; None when the cell is gone
    score_before: float | None = None  # the judge's score (mean over samples), when both sides were judged
    score_after: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "case": self.case,
            "target": self.target,
            "status": self.status,
            "before": self.before,
            "after": self.after,
            "score_before": self.score_before,
            "score_after": self.score_after,
        }


@dataclass
class Comparison:
    baseline: str  # what was compared with: the file, or "eval N"
    changes: list[Change] = field(default_factory=list)
    max_score_drop: float = MAX_SCORE_DROP
    pass_rates: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)  # target -> (before, now)

    def of(self, status: str) -> list[Change]:
        return [c for c in self.changes if c.status == status]

    @property
    def regressed(self) -> bool:
        return any(c.status == REGRESSION for c in self.changes)

    @property
    def new_failing(self) -> list[Change]:
        """Cells the baseline does not have that fail now: no known failure, so they fail CI as a regression
        does (D151)."""
        return [c for c in self.of(NEW) if c.after != "pass"]

    @property
    def fails(self) -> bool:
        """What `cogn eval --baseline` exits 1 on: a regression, a score drop (D254), or a new cell that fails
        (D151)."""
        return self.regressed or bool(self.of(SCORE_DROP)) or bool(self.new_failing)

    @property
    def shared(self) -> int:
        """Cells both evals have: none means the baseline is of other modules, cases or targets."""
        return sum(c.status not in (NEW, GONE) for c in self.changes)

    def status_of(self, module: str, case: str, target: str) -> str | None:
        return next((c.status for c in self.changes if (c.module, c.case, c.target) == (module, case, target)), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "regressions": len(self.of(REGRESSION)),
            "improvements": len(self.of(IMPROVEMENT)),
            "score_drops": len(self.of(SCORE_DROP)),
            "max_score_drop": self.max_score_drop,
            "new": len(self.of(NEW)),
            "new_failing": len(self.new_failing),
            "gone": len(self.of(GONE)),
            "shared": self.shared,
            "pass_rates": {t: {"before": b, "now": n} for t, (b, n) in self.pass_rates.items()},
            "changes": [c.to_json() for c in self.changes if c.status != SAME],
        }


def _state(passed: bool, code: str | None) -> str:
    return "pass" if passed else (code or "fail")


def compare(current: EvalReport, baseline: EvalReport, name: str, max_score_drop: float = MAX_SCORE_DROP) -> Comparison:
    before = {c.key: c for c in baseline.cells}
    now = {c.key: c for c in current.cells}
    out = Comparison(name, max_score_drop=max_score_drop)
    for key, cell in now.items():
        old = before.get(key)
        was, score = (old.score if old is not None else None), cell.score
        if old is None:
            status = NEW
        elif old.passed and not cell.passed:
            status = REGRESSION
        elif not old.passed and cell.passed:
            status = IMPROVEMENT
        elif was is not None and score is not None and round(was - score, 6) > max_score_drop:
            status = SCORE_DROP
        else:
            status = SAME
        out.changes.append(
            Change(
                *key,
                status,
                None if old is None else _state(old.passed, old.code),
                _state(cell.passed, cell.code),
                was,
                score,
            )
        )
    for key, old in before.items():
        if key not in now:
            out.changes.append(Change(*key, GONE, _state(old.passed, old.code), None, old.score))
    for target in dict.fromkeys([*current.targets, *baseline.targets]):
        out.pass_rates[target] = (_rate(baseline, target), _rate(current, target))
    return out


def _rate(report: EvalReport, target: str) -> float | None:
    cells = [c for c in report.cells if c.target == target]
    return round(sum(c.passed for c in cells) / len(cells), 4) if cells else None


def is_eval_id(spec: str) -> bool:
    """`--baseline` names an eval in the history (digits, and no file of that name), not a `--json` file."""
    return spec.isdigit() and not Path(spec).exists()


def load_baseline(spec: str, history: HistoryReader | None) -> tuple[EvalReport, str]:
    """(the report, its name) from a `--json` file, or from history when `spec` is an eval id; BadReport otherwise."""
    path = Path(spec)
    if is_eval_id(spec):
        if history is None:
            raise BadReport(f"baseline {spec} is an eval id, but the run history is off")
        doc = history.eval_report(int(spec))
        if doc is None:
            raise BadReport(f"no eval {spec} in the run history (`cogn eval` prints each eval's id)")
        return EvalReport.from_json(doc), f"eval {spec}"
    try:
        if path.stat().st_size > MAX_BASELINE_BYTES:
            raise BadReport(f"baseline {spec} is larger than {MAX_BASELINE_BYTES // (1024 * 1024)} MB")
        doc = json.loads(decode_bytes(path.read_bytes(), path))
    except OSError as exc:
        raise BadReport(f"cannot read baseline {spec}: {exc.strerror or exc}") from None
    except ParseFailure as exc:  # not UTF-8: where, as `cogn check` says it (P005)
        d = exc.diagnostic
        raise BadReport(f"baseline {spec}:{d.line}:{d.column}: {d.message}") from None
    except (ValueError, RecursionError) as exc:
        raise BadReport(f"baseline {spec} is not JSON: {str(exc)[:200]}") from None
    return EvalReport.from_json(doc), spec
