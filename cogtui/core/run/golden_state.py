"""A module's golden tests as one screen shows them: a single state object each case's result updates.

The goldens screen draws its title, progress bar, table and summary from this object only. Each
run of the cases has a number (`generation`): a result from an earlier run (the author pressed
"run again" while cases were still coming in) is dropped, so the table never mixes two runs.
Done and failed are final for their run: a late result does not change them.

The table's cursor and the view pane agree (`shown_case`): while the cases run, no case is highlighted and the pane
says how far the run is; once it is done, the cursor is on a case (the first failing one, else the first) and the
pane shows that case, the summary moving to the title.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cogtui.core.run.golden_runner import CaseResult


def result_label(result: CaseResult, accepted: bool = False) -> str:
    """The table's result cell: pass or fail, a judged case's score, and an answer accepted here."""
    text = "✓ pass" if result.passed else "✗ fail"
    judgement = result.judgement
    if judgement is not None and judgement.score is not None:
        text += f" · {judgement.score:.2f}"
    elif judgement is not None and judgement.status == "not judged":
        text += " · not judged"
    return text + (" · accepted" if accepted else "")


def judge_lines(result: CaseResult, judge: str | None) -> list[str]:
    """What the view pane says about a `$judge` case's judging: the score against its bar and the judge's words,
    or why it was not scored."""
    j = result.judgement
    if j is None or j.status == "skipped":
        return []
    who = f" ({judge})" if judge else ""
    if j.score is None:
        return [f"judge{who}: {j.status} · {j.reason}"]
    lines = [f"judge{who}: {j.reason}" + (f" · verdict {j.verdict}" if j.verdict else "")]
    if j.rationale:
        lines.append(f"rationale: {j.rationale}")
    return lines + [f"evidence: “{quote}”" for quote in j.evidence[:5]]


class GoldensPhase(StrEnum):
    IDLE = "idle"  # nothing started yet (the module is being loaded)
    RUNNING = "running"
    DONE = "done"
    EMPTY = "empty"  # the module has no golden tests
    FAILED = "failed"  # the module or the provider could not be used


FINAL = frozenset({GoldensPhase.DONE, GoldensPhase.EMPTY, GoldensPhase.FAILED})


@dataclass
class GoldensState:
    module: str = ""
    provider: str = ""
    total: int = 0
    phase: GoldensPhase = GoldensPhase.IDLE
    results: list[CaseResult] = field(default_factory=list)
    problem: str = ""
    generation: int = 0
    highlighted: str = ""  # the case under the table's cursor, once the run is done
    judge: str | None = None  # the rubric judge's target (`judge:` in config.yaml), for `$judge` goldens

    @property
    def final(self) -> bool:
        return self.phase in FINAL

    def start(self, module: str, provider: str, total: int, judge: str | None = None) -> int:
        """A new run of `total` cases (`$judge` ones scored by `judge`); returns its number, which its results
        carry."""
        self.generation += 1
        self.module, self.provider, self.total, self.judge = module, provider, total, judge
        self.results, self.problem, self.highlighted = [], "", ""
        self.phase = GoldensPhase.RUNNING if total else GoldensPhase.EMPTY
        return self.generation

    def case_done(self, generation: int, result: CaseResult) -> bool:
        """One case's result; False (nothing changes) when it belongs to an earlier run or this one is over."""
        if generation != self.generation or self.phase is not GoldensPhase.RUNNING:
            return False
        self.results.append(result)
        if len(self.results) >= self.total:
            self.phase = GoldensPhase.DONE
            failing = next((r for r in self.results if not r.passed), self.results[0])
            self.highlighted = failing.name  # the case to look at first
        return True

    def highlight(self, name: str) -> bool:
        """The table's cursor moved to `name`: True when the pane now shows it (only once the run is done)."""
        if self.phase is not GoldensPhase.DONE or self.result(name) is None or name == self.highlighted:
            return False
        self.highlighted = name
        return True

    def shown_case(self) -> CaseResult | None:
        """The case the view pane shows (and the table's cursor is on): the highlighted one once the run is done;
        None while it runs (the pane says how far it is, and no row is highlighted)."""
        return self.result(self.highlighted) if self.phase is GoldensPhase.DONE else None

    def cannot_run(self, module: str, error: dict[str, Any]) -> None:
        """The module cannot run at all (manifest_policy.run_refusal): said once, no case is run."""
        self.generation += 1  # results of a run still going are stale
        self.module, self.results, self.highlighted = module, [], ""
        self.failed(f"{error.get('code')} {error.get('message')} {error.get('suggestion') or ''}".strip())

    def failed(self, problem: str, generation: int | None = None) -> None:
        if generation is not None and generation != self.generation:
            return
        self.phase, self.problem = GoldensPhase.FAILED, problem

    def can(self, action: str) -> bool:
        """`a` (accept the shown case's answer) once the run is done; on a case that passes it says why."""
        if action == "accept":
            return self.phase is GoldensPhase.DONE
        return True

    def accept_target(self) -> CaseResult | None:
        """The case whose answer `a` would accept: the one shown, once the run is done."""
        return self.shown_case()

    def result(self, name: str) -> CaseResult | None:
        return next((r for r in self.results if r.name == name), None)

    @property
    def failures(self) -> int:
        return sum(1 for r in self.results if not r.passed)

    def progress(self) -> tuple[int, int]:
        """(cases done, cases) for the progress bar."""
        return len(self.results), max(self.total, 1)

    def title(self) -> str:
        if self.phase is GoldensPhase.FAILED:
            return self.problem
        if not self.module:
            return "Loading the module…"
        if self.phase is GoldensPhase.DONE:  # the outcome first: a narrow title keeps it
            return f"{self.module} — {self.summary()} via {self.provider}"
        tests = f"{self.total} golden test{'s' * (self.total != 1)}"
        return f"{self.module} — {tests} via {self.provider}"

    def summary(self) -> str:
        """What the view pane says when no case is highlighted."""
        if self.phase is GoldensPhase.EMPTY:
            return "This module has no golden tests (tests/*.input.json → *.expected.json)."
        if self.phase is GoldensPhase.FAILED:
            return ""
        if self.phase is GoldensPhase.RUNNING or self.phase is GoldensPhase.IDLE:
            return f"running… {len(self.results)} of {self.total} done"
        if not self.failures:
            return f"all {self.total} passed"
        return f"{self.failures} of {self.total} failed"
