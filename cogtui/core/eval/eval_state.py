"""One module's eval as the eval screen shows it: a single state object the worker's messages update.

The eval screen draws its title, the matrix (golden cases × targets), the progress bar, the summary,
the verdict and which keys the footer offers (`can`) from this object alone. Each run of the eval has
a number (`generation`): a cell of an earlier run (the author cancelled, or ran it again) is dropped,
so the matrix never mixes two runs. Done, cancelled, failed and empty are final for their run: a late
cell or result changes nothing. A cancelled eval keeps the cells that finished and shows the others
as cancelled; nothing of it is recorded in the history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from cogtui.core.authoring.accept_state import AcceptState
from cogtui.core.eval.model import Cell, EvalReport


class EvalPhase(StrEnum):
    IDLE = "idle"  # nothing started yet (the module is being loaded)
    RUNNING = "running"
    DONE = "done"
    EMPTY = "empty"  # the module has no golden tests
    CANCELLED = "cancelled"
    FAILED = "failed"  # the module or a target could not be used, or the eval itself failed


FINAL = frozenset({EvalPhase.DONE, EvalPhase.EMPTY, EvalPhase.CANCELLED, EvalPhase.FAILED})


class CellStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    PASSED = "passed"
    FAILED = "failed"
    CANCELLED = "cancelled"  # the eval was cancelled before this cell finished
    NOT_RUN = "not run"  # the eval failed before this cell finished


PENDING = "…"
STATUS_LABELS = {
    CellStatus.PENDING: PENDING,
    CellStatus.RUNNING: "running…",
    CellStatus.CANCELLED: "– cancelled",
    CellStatus.NOT_RUN: "– not run",
}
NO_GOLDENS = "This module has no golden tests (tests/*.input.json → *.expected.json)."


def cell_label(cell: Cell) -> str:
    """A matrix cell: pass or the failure's code, the samples that passed (`--repeat`), and a judged case's score
    (the mean, ± its spread over samples): `✓ pass · 0.86`, `✗ 2/3 low-score · 0.55±0.20`."""
    text = "✓" if cell.passed else "✗"
    if cell.samples > 1:
        text += f" {cell.samples_passed}/{cell.samples}"
    text += " pass" if cell.passed and cell.samples == 1 else "" if cell.passed else f" {cell.code or 'fail'}"
    score = cell.score
    if score is not None and cell.judge is not None:
        spread = cell.judge.spread
        text += f" · {score:.2f}" + (f"±{spread:.2f}" if spread and len(cell.judge.scores) > 1 else "")
    return text + (" (cached)" if cell.cached else "")


def summary_text(report: EvalReport) -> str:
    """Two lines per target: the verdict, then latency, tokens and cost."""
    lines = []
    for s in report.summaries:
        t = s.tokens
        violations = ", ".join(f"{code} ×{n}" for code, n in s.violations.items()) or "no violations"
        cache = (
            f" · cache {t['cache_read']:,} read, {t['cache_write']:,} written"
            if t["cache_read"] or t["cache_write"]
            else ""
        )
        p50 = "-" if s.latency_p50_ms is None else f"{s.latency_p50_ms:,.0f} ms"
        p95 = "-" if s.latency_p95_ms is None else f"{s.latency_p95_ms:,.0f} ms"
        cost = "cost ?" if s.cost_usd is None else f"${s.cost_usd:.4f}"
        cost += f" (cache saved ${s.saved_usd:.4f})" if s.saved_usd else ""
        judged = (
            f" · judge score {s.score_mean:.2f} over {s.judged} case{'s' * (s.judged != 1)}"
            if s.score_mean is not None
            else ""
        )
        lines.append(f"{s.target}  {s.passed}/{s.cases} passed ({s.pass_rate:.0%}){judged} · {violations}")
        judge_cost = (
            ""
            if not s.judged
            else " · judge cost ?"
            if s.judge_cost_usd is None
            else f" · judge ${s.judge_cost_usd:.4f}"
        )
        lines.append(
            f"  p50 {p50} · p95 {p95} · tokens {t['input']:,} in, {t['output']:,} out{cache} · {cost}{judge_cost}"
        )
    return "\n".join(lines)


def judge_text(cell: Cell, judge: str | None) -> str:
    """What the selected cell's pane says about its judging ("" for a case without a rubric): the score against
    the bar (and its samples with `--repeat`), the judge's verdict, rationale and evidence, or why it was not
    scored."""
    j = cell.judge
    if j is None:
        return ""
    who = f" ({judge})" if judge else ""
    if j.score is None:
        return f"judge{who}: {j.status} · {j.reason}"
    lines = [
        f"judge{who}: score {j.score:.2f} {'≥' if j.score >= j.pass_score else '<'} {j.pass_score:.2f}"
        + (f" · verdict {j.verdict}" if j.verdict else "")
    ]
    if len(j.scores) > 1:
        low, high = min(j.scores), max(j.scores)
        lines.append(f"{len(j.scores)} samples: {low:.2f} to {high:.2f}, spread {j.spread or 0:.2f}")
    if j.rationale:
        lines.append(f"rationale: {j.rationale}")
    lines += [f"evidence: “{quote}”" for quote in j.evidence[:5]]
    return "\n".join(lines)


def trend_drawn(rates: list[float]) -> bool:
    """Whether the pass-rate sparkline is shown. It scales to its own lowest and highest value: a steady rate
    (every eval at 100 %, or at 0 %) would draw as the same flat bottom line, and a lone eval as a full bar
    whatever its rate, so then it is hidden and `trend_label` says the numbers."""
    return len(rates) > 1 and min(rates) != max(rates)


def trend_label(rates: list[float]) -> str:
    """The words beside the pass-rate sparkline, oldest rate first: the rates themselves where the bars are
    hidden (`trend_drawn`). Kept short: the bars share the line (80 columns)."""
    if not rates:
        return "no evals recorded yet"
    n, now = len(rates), rates[-1]
    if n == 1:
        return f"pass rate, 1 eval: {now:.0%}"
    if min(rates) == max(rates):
        return f"pass rate, last {n} evals: {now:.0%} each"
    return f"pass rate, last {n} evals"


@dataclass
class EvalState:
    module: str = ""
    cases: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)  # Target.label, in column order
    jobs: int = 0
    cache: str = "off"
    phase: EvalPhase = EvalPhase.IDLE
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (case, target) -> its finished cell
    running: set[tuple[str, str]] = field(default_factory=set)
    report: EvalReport | None = None
    problem: str = ""
    generation: int = 0
    selected: tuple[str, str] | None = None  # the (case, target) whose diff and envelope are shown
    judge: str | None = None  # the rubric judge's target (`judge:` in config.yaml), for `$judge` goldens
    accepting: AcceptState = field(default_factory=AcceptState)  # `a` and `u` (accept_state.py)

    @property
    def final(self) -> bool:
        return self.phase in FINAL

    @property
    def total(self) -> int:
        return len(self.cases) * len(self.targets)

    def loaded(self, module: str, cases: list[str]) -> None:
        """The module is loaded: its name and golden cases."""
        self.module, self.cases = module, list(cases)

    def start(self, targets: list[str], jobs: int, cache: str, judge: str | None = None) -> int:
        """A new run against `targets` (judged by `judge`); returns its number, which its messages carry."""
        self.generation += 1
        self.judge = judge
        self.accepting.rerun()
        self.targets, self.jobs, self.cache = list(dict.fromkeys(targets)), jobs, cache
        self.cells, self.running, self.report, self.problem, self.selected = {}, set(), None, "", None
        self.phase = EvalPhase.RUNNING if self.total else EvalPhase.EMPTY
        return self.generation

    def _current(self, generation: int) -> bool:
        return generation == self.generation and self.phase is EvalPhase.RUNNING

    def cell_started(self, generation: int, case: str, target: str) -> bool:
        if not self._current(generation) or (case, target) in self.cells:
            return False
        self.running.add((case, target))
        return True

    def cell_done(self, generation: int, cell: Cell) -> bool:
        """One finished cell; False (nothing changes) when it belongs to an earlier run or this one is over."""
        if not self._current(generation):
            return False
        self.running.discard((cell.case, cell.target))
        self.cells[(cell.case, cell.target)] = cell
        return True

    def finished(self, generation: int, report: EvalReport) -> bool:
        """The run's report (its cells carry their run ids): the run is done."""
        if not self._current(generation):
            return False
        self.report, self.running = report, set()
        self.cells = {(c.case, c.target): c for c in report.cells}
        self.phase = EvalPhase.DONE
        return True

    def cancel(self) -> bool:
        if self.phase is not EvalPhase.RUNNING:
            return False
        self.phase, self.running = EvalPhase.CANCELLED, set()
        return True

    def failed(self, problem: str, generation: int | None = None) -> None:
        if generation is not None and not self._current(generation):
            return
        self.phase, self.problem, self.running = EvalPhase.FAILED, problem, set()

    def select(self, case: str, target: str) -> None:
        if case in self.cases and target in self.targets:
            self.selected = (case, target)

    def selected_cell(self) -> Cell | None:
        return self.cells.get(self.selected) if self.selected is not None else None

    def status(self, case: str, target: str) -> CellStatus:
        cell = self.cells.get((case, target))
        if cell is not None:
            return CellStatus.PASSED if cell.passed else CellStatus.FAILED
        if (case, target) in self.running:
            return CellStatus.RUNNING
        if self.phase is EvalPhase.CANCELLED:
            return CellStatus.CANCELLED
        return CellStatus.NOT_RUN if self.phase is EvalPhase.FAILED else CellStatus.PENDING

    def label(self, case: str, target: str) -> str:
        """What the matrix shows in a cell (a case whose answer was accepted here says so)."""
        cell = self.cells.get((case, target))
        if cell is None:
            return STATUS_LABELS[self.status(case, target)]
        return cell_label(cell) + (" · accepted" if self.accepting.is_accepted(self.module, case) else "")

    @property
    def failures(self) -> int:
        return sum(1 for c in self.cells.values() if not c.passed)

    def progress(self) -> tuple[int, int]:
        """(cells done, cells) for the progress bar."""
        return len(self.cells), max(self.total, 1)

    def can(self, action: str) -> bool:
        """The keys bound now: cancel only while running, and back (escape) only when it is not; accept once the
        eval is done (on a cell that cannot be accepted it says why), undo once something was accepted."""
        running = self.phase is EvalPhase.RUNNING
        if action == "cancel":
            return running
        if action == "close":
            return not running
        if action in ("rerun", "options"):
            return bool(self.module) and (action == "options" or not running)
        if action == "accept":
            return self.phase is EvalPhase.DONE
        if action == "undo":
            return self.accepting.can_undo()
        return True

    def offers(self, action: str) -> bool:
        """The keys the footer shows: accept only on a failing cell chosen (enter) and not accepted yet."""
        if action == "accept":
            cell = self.selected_cell()
            return (
                self.can(action)
                and cell is not None
                and not cell.passed
                and not self.accepting.is_accepted(self.module, cell.case)
            )
        return self.can(action)

    def accept_target(self) -> Cell | None:
        """The cell `a` would accept the answer of: the chosen one, once done."""
        return self.selected_cell() if self.phase is EvalPhase.DONE else None

    def title(self) -> str:
        if self.phase is EvalPhase.FAILED and not self.module:
            return self.problem
        if not self.module:
            return "Loading the module…"
        n, t = len(self.cases), len(self.targets)
        cache = "" if self.cache == "off" else f" · cache: {self.cache}"
        return f"{self.module} — {n} case{'s' * (n != 1)} × {t} target{'s' * (t != 1)}, {self.jobs} at once{cache}"

    def summary(self) -> str:
        """The line(s) under the matrix: the phase in words, then each target's figures once done."""
        done, total = len(self.cells), self.total
        if self.phase is EvalPhase.EMPTY:
            return NO_GOLDENS
        if self.phase is EvalPhase.FAILED:
            return f"failed: {self.problem}"
        if self.phase is EvalPhase.CANCELLED:
            return f"cancelled after {done} of {total} cells · not recorded in the history · ctrl+r runs it again"
        if self.phase is EvalPhase.DONE and self.report is not None:
            return summary_text(self.report)
        if self.phase is EvalPhase.RUNNING:
            return f"running… {done} of {total} done"
        return ""

    def verdict(self) -> str:
        """What the right pane says when no cell is selected."""
        if self.phase is EvalPhase.DONE:
            failed = self.failures
            return f"all {self.total} passed" if not failed else f"{failed} of {self.total} failed"
        return {EvalPhase.RUNNING: "running…", EvalPhase.CANCELLED: "cancelled"}.get(self.phase, "")
