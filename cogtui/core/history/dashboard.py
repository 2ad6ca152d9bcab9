"""What the insights dashboard shows, read from the configured history in one go, and the cheap
check it polls to notice runs recorded by other writers (`cogn run`, other TUIs, imports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cogtui.core.history.location import default_location
from cogtui.core.history.store import History


@dataclass(frozen=True)
class DashboardData:
    """One read of the history for one module filter (None: all modules)."""

    module: str | None
    history_exists: bool
    modules: list[str] = field(default_factory=list)
    insights: list[dict[str, Any]] = field(default_factory=list)
    custom_enums: list[dict[str, Any]] = field(default_factory=list)
    timeline: list[tuple[float, int]] = field(default_factory=list)
    latest_id: int = 0  # the newest run when read: polling compares it to notice other writers' runs
    skipped: list[str] = field(default_factory=list)  # damaged rows left out of the aggregates, said
    # What runs that failed their contract carried, left out (HIST-1): runs, insights, custom_enums.
    excluded: dict[str, int] = field(default_factory=dict)


def read_dashboard(module: str | None, examples: int, buckets: int) -> DashboardData:
    """A missing history file is not created: no runs yet is a state, not an error."""
    location = default_location()
    if not location.exists():
        return DashboardData(module, history_exists=False)
    with History(location) as history:
        latest = history.latest_id()  # first: a run added while aggregating is picked up by the next poll
        aggregate = history.insights(module, examples=examples)
        return DashboardData(
            module,
            True,
            history.modules(),
            aggregate["insights"],
            aggregate["custom_enums"],
            history.insight_timeline(module, buckets),
            latest,
            list(history.skipped),
            aggregate["excluded"],
        )


def latest_run_id() -> int:
    """The newest run's id in the configured history (0 when there is none yet)."""
    location = default_location()
    if not location.exists():
        return 0
    with History(location) as history:
        return history.latest_id()


ROW_RUNS = 100  # the newest insights (or enum uses) of a row the detail view lists


def read_row_runs(
    mapping: str | None = None, module: str | None = None, field: str | None = None, value: str | None = None
) -> dict[str, Any]:
    """The runs behind one dashboard row (History.insight_runs for a mapping group, enum_runs for a
    custom enum value when `field` is given): every item with its full text, newest first."""
    location = default_location()
    if not location.exists():
        return {"runs": 0, "items": []}
    with History(location) as history:
        if field is not None and value is not None and module is not None:
            found = history.enum_runs(module, field, value, ROW_RUNS)
        else:
            found = history.insight_runs(mapping, module, ROW_RUNS)
        return {**found, "skipped": list(history.skipped)}
