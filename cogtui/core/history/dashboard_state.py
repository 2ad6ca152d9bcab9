"""The insights dashboard as one state object: what it shows is drawn from here, and only from here.

The screen feeds it what happens (a read started, its result, a failed read, the promotion status of
the rows, the highlighted row, the tab, a promotion or an undo being prepared) and draws every part
from it: the trend label, the status line, the empty hint, the tables (with their promoted marks),
the detail pane and which keys the footer offers (`can`). So the status line, the details and the
footer cannot disagree. A read that answers an older filter is ignored; a failed read is shown as
failed until the next read starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cogtui.core.diagnostics import plural
from cogtui.core.history.dashboard import DashboardData

INSIGHTS, ENUMS = "insights", "enums"
RowKey = tuple[str | None, ...]  # ("mapping", mapping) or ("enum", module, field, value)
NO_RUNS = (
    "No runs recorded yet.\n\nRun a module with `cogn run NAME`, or press r on a module in the browser: "
    "its overflow insights and custom enum values collect here, ready to be promoted into the schema."
)


class Phase(StrEnum):
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


def row_key(tab: str, document: dict[str, Any]) -> RowKey:
    if tab == ENUMS:
        return ("enum", str(document["module"]), str(document["field"]), str(document["value"]))
    return ("mapping", document["suggested_mapping"])


UNDO_LATEST_ONLY = (
    "Only a module's latest promotion or migration can be undone, and this is not it: a later change came "
    "after it (or it was made outside cogtui). Undo the later one first, or edit the schema."
)


@dataclass
class InsightsState:
    module: str | None  # the filter: None for all modules
    phase: Phase = Phase.LOADING
    data: DashboardData | None = None
    error: str = ""
    tab: str = INSIGHTS
    cursor: dict[str, int] = field(default_factory=lambda: {INSIGHTS: 0, ENUMS: 0})
    promoted: dict[RowKey, tuple[str, ...]] = field(default_factory=dict)  # row -> modules whose schema holds it
    undoable: dict[RowKey, tuple[str, ...]] = field(default_factory=dict)  # row -> modules it can be undone in
    refusals: dict[RowKey, tuple[str, ...]] = field(default_factory=dict)  # row -> why `u` cannot undo it (MIG-10)
    promotions_read_at: int = -1  # the data's latest_id the promotion status was read for (-1: not yet)
    busy: str = ""  # a promotion or an undo being prepared: no second one meanwhile
    revision: int = 0  # changes whenever the rows or their promoted marks do (the tables redraw then)

    # ------------------------------------------------------------ what happens

    def reading(self, module: str | None) -> None:
        """A read starts (a new filter, a reload, another writer's runs)."""
        if module != self.module:
            self.module, self.data = module, None
            self.cursor = {INSIGHTS: 0, ENUMS: 0}
            self.promoted, self.undoable, self.refusals, self.promotions_read_at = {}, {}, {}, -1
        self.phase, self.error = Phase.LOADING, ""

    def loaded(self, data: DashboardData) -> bool:
        """A read's result; False (and nothing changes) when it answers another filter than the current one."""
        if data.module != self.module:
            return False
        self.data, self.phase, self.error = data, Phase.READY, ""
        self.revision += 1
        for tab in (INSIGHTS, ENUMS):
            self.cursor[tab] = min(self.cursor[tab], max(0, len(self.rows(tab)) - 1))
        return True

    def failed(self, error: str) -> None:
        self.phase, self.error = Phase.FAILED, error

    def promotions_known(
        self,
        latest_id: int,
        promoted: dict[RowKey, tuple[str, ...]],
        undoable: dict[RowKey, tuple[str, ...]],
        refusals: dict[RowKey, tuple[str, ...]] | None = None,
    ) -> None:
        """Which rows are in their modules' schemas, where `u` can undo them, and, where it cannot, why (each
        module's reason, `promotion_target.undo_refusal`)."""
        self.promoted, self.undoable, self.promotions_read_at = promoted, undoable, latest_id
        self.refusals = refusals or {}
        self.revision += 1

    def highlight(self, tab: str, row: int) -> None:
        self.cursor[tab] = max(0, min(row, len(self.rows(tab)) - 1))

    def switch_tab(self) -> None:
        self.tab = ENUMS if self.tab == INSIGHTS else INSIGHTS

    def start(self, what: str) -> None:
        self.busy = what

    def finish(self) -> None:
        self.busy = ""

    # ------------------------------------------------------------ what is shown

    def rows(self, tab: str | None = None) -> list[dict[str, Any]]:
        if self.data is None:
            return []
        return self.data.custom_enums if (tab or self.tab) == ENUMS else self.data.insights

    @property
    def current(self) -> dict[str, Any] | None:
        rows = self.rows()
        row = self.cursor[self.tab]
        return rows[row] if 0 <= row < len(rows) else None

    @property
    def current_key(self) -> RowKey | None:
        document = self.current
        return None if document is None else row_key(self.tab, document)

    def promoted_in(self, tab: str, document: dict[str, Any]) -> tuple[str, ...]:
        return self.promoted.get(row_key(tab, document), ())

    def fully_promoted(self, tab: str, document: dict[str, Any]) -> bool:
        """Every module the row names has it in its schema (the table marks the row ✓)."""
        modules = [document["module"]] if tab == ENUMS else document["modules"]
        done = set(self.promoted_in(tab, document))
        return bool(modules) and all(m in done for m in modules)

    def can(self, action: str) -> bool:
        """Whether the footer offers an action now."""
        document = self.current
        if action in ("promote", "undo_promotion", "open_row") and (document is None or self.busy):
            return False
        if document is None:
            return action not in ("promote", "undo_promotion", "open_row")
        if action == "promote":
            has_target = self.tab == ENUMS or document["suggested_mapping"] is not None
            return has_target and not self.fully_promoted(self.tab, document)
        if action == "undo_promotion":  # offered on every promoted row: where it cannot undo, it says why (MIG-10)
            return bool(self.promoted_in(self.tab, document))
        return True

    def undo_refusal(self) -> str | None:
        """Why `u` cannot undo the highlighted promoted row, or None (not promoted, or it can be undone).

        Undo restores the backup a promotion left, and only a module's latest one (`promotion_target.can_undo`):
        undoing an earlier one would also take back what came after it. Each module's reason says which change
        stands in the way and where it is undone (MIG-10); UNDO_LATEST_ONLY when none was read."""
        document = self.current
        if document is None or self.busy or not self.promoted_in(self.tab, document) or self.undo_ready():
            return None
        return " ".join(self.refusals.get(row_key(self.tab, document), ())) or UNDO_LATEST_ONLY

    def undo_ready(self) -> bool:
        """Whether `u` undoes the highlighted row's promotion now (it is its module's latest change)."""
        document = self.current
        return document is not None and not self.busy and bool(self.undoable.get(row_key(self.tab, document), ()))

    @property
    def empty(self) -> bool:
        return self.phase is Phase.READY and not self.rows(INSIGHTS) and not self.rows(ENUMS)

    def empty_hint(self) -> str:
        if self.data is None or not self.data.history_exists:
            return NO_RUNS
        scope = f" for {self.data.module}" if self.data.module else ""
        return (
            f"No overflow insights or custom enum values recorded{scope} yet.\n\nThey appear here "
            "as runs that pass their contract return `extensions.insights` or `{custom, reason}` enum values."
            + self.excluded_text("\n\n")
        )

    def excluded_text(self, before: str = "") -> str:
        """How many runs failed their contract and were left out (HIST-1); empty when none were."""
        excluded = self.data.excluded if self.data is not None else {}
        runs = excluded.get("runs", 0)
        if not runs:
            return ""
        return f"{before}{plural(runs, 'run')} that failed {'its' if runs == 1 else 'their'} contract not counted"

    def status_line(self) -> str:
        where = self.module or "all modules"
        if self.phase is Phase.FAILED:
            return f"The run history could not be read ({where})."
        if self.busy:
            return f"{self.busy}…"
        if self.phase is Phase.LOADING:
            return f"Reading {where}…"
        insights, enums = self.rows(INSIGHTS), self.rows(ENUMS)
        total = sum(d["count"] for d in insights)
        values = sum(d["count"] for d in enums)
        parts = [
            f"{plural(total, 'insight')} in {plural(len(insights), 'mapping')}",
            plural(values, "custom enum value"),
            where,
        ]
        excluded = self.excluded_text()
        return "  ·  ".join([*parts, excluded] if excluded else parts)

    def trend_label(self) -> str:
        data = self.data
        if data is None:
            return "Insights over time"
        if not data.timeline:
            return "Insights over time: none yet"
        first = min((d["first_seen"] for d in data.insights), default="")
        last = max((d["last_seen"] for d in data.insights), default="")
        same_day = first[:10] == last[:10]  # within one day the dates alone say nothing: show the minutes
        span = f"{first[:10]} {first[11:16]}–{last[11:16]}" if same_day else f"{first[:10]} → {last[:10]}"
        return f"Insights {span}, peak {max(n for _, n in data.timeline):,}"
