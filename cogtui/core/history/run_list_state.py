"""One module's past runs as the history screen shows them: a single state object the screen draws from.

The screen feeds it the read's result (or why the history could not be read), the highlighted row and
the marked run, and draws the title, the table's mark, the view pane and which keys the footer offers
(`can`) from it alone. The screen reads again whenever it is shown (a failed read is tried again then);
a run that is marked stays marked only while it is listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from cogtui.core.history.records import RunRecord


class ListPhase(StrEnum):
    LOADING = "loading"
    READY = "ready"
    EMPTY = "empty"
    FAILED = "failed"


RUNS_LISTED = 500  # the newest runs of a module the history screen lists
NO_RUNS = "No runs of this module yet. Press r on it in the browser to run it."


@dataclass
class RunListState:
    module: str
    phase: ListPhase = ListPhase.LOADING
    runs: list[RunRecord] = field(default_factory=list)
    error: str = ""
    cursor: int = 0
    marked: int | None = None  # the id of the run `d` compares with
    total: int = 0  # the module's runs in the history: more than are listed when over RUNS_LISTED

    def loaded(self, runs: list[RunRecord], total: int | None = None) -> bool:
        """A read's result (the newest runs, and how many the module has in all); False (nothing changes) when
        it lists the runs already shown. The screen reads again each time it is shown (a re-run from it adds
        a run): the highlighted run stays highlighted."""
        shown = self.phase in (ListPhase.READY, ListPhase.EMPTY)
        total = max(total or 0, len(runs))
        if shown and [r.id for r in runs] == [r.id for r in self.runs] and total == self.total:
            return False
        self.total = total
        highlighted = self.current.id if self.current is not None else None
        self.runs, self.error = list(runs), ""
        self.cursor = next((i for i, r in enumerate(self.runs) if r.id == highlighted), 0)
        self.phase = ListPhase.READY if runs else ListPhase.EMPTY
        if self.marked is not None and self.find(self.marked) is None:
            self.marked = None
        return True

    def failed(self, error: str) -> None:
        self.phase, self.error, self.runs, self.marked = ListPhase.FAILED, error, [], None

    def highlight(self, row: int) -> None:
        if self.runs:
            self.cursor = max(0, min(row, len(self.runs) - 1))

    def find(self, run_id: int | None) -> RunRecord | None:
        return next((r for r in self.runs if r.id == run_id), None)

    @property
    def current(self) -> RunRecord | None:
        return self.runs[self.cursor] if self.phase is ListPhase.READY and 0 <= self.cursor < len(self.runs) else None

    def mark(self) -> RunRecord | None:
        """Mark the highlighted run (the one `d` compares with); returns it."""
        run = self.current
        if run is not None:
            self.marked = run.id
        return run

    def comparison(self) -> tuple[RunRecord, RunRecord] | None:
        """(the marked run, the highlighted one) when `d` has two different runs to compare."""
        base, run = self.find(self.marked), self.current
        return (base, run) if base is not None and run is not None and base.id != run.id else None

    def can(self, action: str) -> bool:
        """The keys the footer offers: none of the run keys without a run, compare only with two runs."""
        if action == "compare":
            return self.comparison() is not None
        if action in ("rerun", "copy", "mark"):
            return self.current is not None
        return True

    def title(self) -> str:
        if self.phase is ListPhase.LOADING:
            return f"{self.module} — reading the run history…"
        if self.phase is ListPhase.FAILED:
            return f"{self.module} — the run history could not be read"
        n = len(self.runs)
        marked = f" · run #{self.marked} marked (d compares)" if self.marked is not None else ""
        if self.total > n:  # not all of them: said, never a count that reads as the whole
            return f"{self.module} — the newest {n:,} of {self.total:,} runs{marked}"
        return f"{self.module} — {n:,} run{'s' * (n != 1)}{marked}"
