"""`cogn history check`: the running totals behind insights (rollups.py) against a recount of the rows.

The totals are written in the same transaction as the runs they count, so they
must always equal what the rows say; this reads both in one snapshot and
reports every group where they differ. `insight_exclusions` counts what runs
that failed their contract carried, which is not kept as rows (HIST-1): it is
recounted from those runs' envelopes. Also said: rows of insights kept for
such runs (there must be none), and runs that share their key (the same
module, input, provider, model, millisecond and envelope: what import and the
outbox take for one run).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from cogtui.core.history.backend import Tx
from cogtui.core.history.records import derived_rows
from cogtui.core.history.rollups import ALL_MODULES, COLUMNS, recount

PAGE = 1000
SHOWN = 50  # differences listed; the rest are counted


@dataclass(frozen=True)
class Difference:
    table: str
    group: tuple[Any, ...]  # the total's key: (module, mapping key), (module, hour), ...
    stored: tuple[Any, ...] | None  # the stored counts, None when the total is missing
    recounted: tuple[Any, ...] | None  # the counts from the rows, None when there are no rows for it

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "group": list(self.group),
            "stored": _list(self.stored),
            "recounted": _list(self.recounted),
        }

    def __str__(self) -> str:
        group = ", ".join(str(g) for g in self.group)
        return f"{self.table} ({group}): stored {_shown(self.stored)}, recounted from the rows {_shown(self.recounted)}"


def _list(counts: tuple[Any, ...] | None) -> list[Any] | None:
    return None if counts is None else list(counts)


def _shown(counts: tuple[Any, ...] | None) -> str:
    return "nothing" if counts is None else " / ".join(str(c) for c in counts)


@dataclass
class CheckReport:
    runs: int = 0
    groups: int = 0  # totals compared
    differences: list[Difference] = field(default_factory=list)
    stray_rows: int = 0  # insight and enum rows of runs that failed their contract
    shared_keys: int = 0  # runs whose key another run has too

    @property
    def agrees(self) -> bool:
        return not self.differences and not self.stray_rows

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "totals_compared": self.groups,
            "agrees": self.agrees,
            "differences": [d.to_json() for d in self.differences[:SHOWN]],
            "more_differences": max(0, len(self.differences) - SHOWN),
            "rows_of_failed_runs": self.stray_rows,
            "runs_sharing_a_key": self.shared_keys,
        }


def _keyed(rows: list[tuple[Any, ...]], width: int) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Rows as {key columns: count columns}; counts as plain ints/floats so both backends compare alike."""
    return {tuple(r[:width]): tuple(float(c) if isinstance(c, float) else int(c) for c in r[width:]) for r in rows}


def _compare(table: str, stored: dict[Any, Any], counted: dict[Any, Any], report: CheckReport) -> None:
    report.groups += len(stored.keys() | counted.keys())
    for group in sorted(stored.keys() | counted.keys(), key=repr):
        if stored.get(group) != counted.get(group):
            report.differences.append(Difference(table, group, stored.get(group), counted.get(group)))


def _failed_runs(tx: Tx) -> Iterator[tuple[str, str]]:
    """(module, envelope JSON) of every run that failed its contract, a page at a time."""
    last = 0
    envelope = tx.dialect.select_json("envelope")
    while True:
        rows = tx.rows(
            f"SELECT id, module, {envelope} FROM runs WHERE contract_valid = 0 AND id > ? ORDER BY id LIMIT ?",
            [last, PAGE],
        )
        for _, module, text in rows:
            yield module, text
        if len(rows) < PAGE:
            return
        last = rows[-1][0]


def _exclusions(tx: Tx) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    counted: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for module, text in _failed_runs(tx):
        try:
            insights, enums = derived_rows(json.loads(text))
        except (ValueError, TypeError, RecursionError, AttributeError):
            continue  # a damaged envelope carried nothing readable (the readers skip it too)
        if insights or enums:
            runs, n_insights, n_enums = counted.get((module,), (0, 0, 0))
            counted[(module,)] = (runs + 1, n_insights + len(insights), n_enums + len(enums))
    return counted


def check(tx: Tx) -> CheckReport:
    """Compare every total with a recount, in the one snapshot `tx` reads."""
    report = CheckReport(runs=int(tx.rows("SELECT COUNT(*) FROM runs")[0][0]))
    for table, select in recount(tx.dialect).items():
        key, counts = COLUMNS[table]
        width = len(key.split(","))
        stored = _keyed(tx.rows(f"SELECT {key}, {counts} FROM {table}"), width)
        counted = _keyed(tx.rows(select), width)
        if table == "insight_hours":  # the all-modules rows: the sum of every module's
            every: dict[tuple[Any, ...], int] = {}
            for (_, hour), (n,) in counted.items():
                every[(ALL_MODULES, hour)] = every.get((ALL_MODULES, hour), 0) + n
            counted.update({group: (n,) for group, n in every.items()})
        _compare(table, stored, counted, report)
    stored_exclusions = _keyed(tx.rows("SELECT module, runs, insights, enums FROM insight_exclusions"), 1)
    _compare("insight_exclusions", stored_exclusions, _exclusions(tx), report)
    report.stray_rows = sum(
        int(
            tx.rows(f"SELECT COUNT(*) FROM {table} WHERE run_id IN (SELECT id FROM runs WHERE contract_valid = 0)")[0][
                0
            ]
        )
        for table in ("insights", "custom_enums")
    )
    report.shared_keys = int(tx.rows("SELECT COUNT(*) - COUNT(DISTINCT run_digest) FROM runs")[0][0])
    return report
