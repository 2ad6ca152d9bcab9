"""Running totals written in the same transaction as the runs they count, so the dashboard's
aggregates cost one row per group instead of a pass over every insight ever recorded.

    insight_stats   (module, mapping) -> count, first and last time seen
    enum_stats      (module, field, value, reason) -> count
    insight_hours   (module, hour) -> count   (the timeline's source for spans of days; module ''
                    holds every module's total, so the all-modules timeline reads one row per hour)
    insight_exclusions  module -> runs, insights, enum values   (runs that failed their contract but
                    carried insights or custom enum values: not counted anywhere else, HIST-1)

NULL cannot be part of a primary key on both backends alike, so a nullable
mapping or reason is kept as a key: "" for none, "=" + the text otherwise.
Writers upsert their totals in one sorted order, so two PostgreSQL
transactions touching the same groups queue instead of deadlocking.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from cogtui.core.history.backend import Dialect, Tx
from cogtui.core.history.records import Rows

HOUR = 3600.0
ALL_MODULES = ""  # insight_hours' module for the total of all modules (a module name is never empty)

TABLES = [
    """CREATE TABLE insight_stats (module TEXT NOT NULL, mapping_key TEXT NOT NULL, n BIGINT NOT NULL,
        first_ts {real} NOT NULL, last_ts {real} NOT NULL, PRIMARY KEY (module, mapping_key))""",
    """CREATE TABLE enum_stats (module TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL,
        reason_key TEXT NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (module, field, value, reason_key))""",
    """CREATE TABLE insight_hours (module TEXT NOT NULL, hour BIGINT NOT NULL, n BIGINT NOT NULL,
        PRIMARY KEY (module, hour))""",
]

# Schema v4 (schema.py): the runs that failed their contract, per module. Its totals cannot be
# recomputed from the insight rows (a failed run has none), so `rebuild` leaves it alone.
EXCLUSIONS = """CREATE TABLE insight_exclusions (module TEXT NOT NULL PRIMARY KEY, runs BIGINT NOT NULL,
    insights BIGINT NOT NULL, enums BIGINT NOT NULL)"""


def key_of(text: str | None) -> str:
    return "" if text is None else "=" + text


def text_of(key: str) -> str | None:
    return None if key == "" else key[1:]


def hour_of(ts: float) -> int:
    return math.floor(ts / HOUR)


@dataclass
class Totals:
    """What one write transaction adds to the running totals."""

    insights: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # -> [n, first, last]
    enums: Counter[tuple[str, str, str, str]] = field(default_factory=Counter)
    hours: Counter[tuple[str, int]] = field(default_factory=Counter)
    excluded: dict[str, list[int]] = field(default_factory=dict)  # module -> [runs, insights, enums]

    def exclude(self, module: str, insights: Rows, enums: Rows) -> None:
        """A run that failed its contract: its insights and enum values are only counted as left out."""
        if insights or enums:
            g = self.excluded.setdefault(module, [0, 0, 0])
            g[0], g[1], g[2] = g[0] + 1, g[1] + len(insights), g[2] + len(enums)

    def add(self, module: str, ts: float, insights: Rows, enums: Rows) -> None:
        for mapping, _, _ in insights:
            g = self.insights.setdefault((module, key_of(mapping)), [0, ts, ts])
            g[0], g[1], g[2] = g[0] + 1, min(g[1], ts), max(g[2], ts)
        if insights:
            self.hours[(module, hour_of(ts))] += len(insights)
            self.hours[(ALL_MODULES, hour_of(ts))] += len(insights)
        for field_, value, reason in enums:
            self.enums[(module, field_ or "", value, key_of(reason))] += 1

    def write(self, tx: Tx) -> None:
        d = tx.dialect
        if self.insights:
            tx.many(
                "INSERT INTO insight_stats (module, mapping_key, n, first_ts, last_ts) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (module, mapping_key) DO UPDATE SET n = insight_stats.n + excluded.n, "
                f"first_ts = {d.least}(insight_stats.first_ts, excluded.first_ts), "
                f"last_ts = {d.greatest}(insight_stats.last_ts, excluded.last_ts)",
                [(m, k, int(n), first, last) for (m, k), (n, first, last) in sorted(self.insights.items())],
            )
        if self.enums:
            tx.many(
                "INSERT INTO enum_stats (module, field, value, reason_key, n) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (module, field, value, reason_key) DO UPDATE SET n = enum_stats.n + excluded.n",
                [(*k, n) for k, n in sorted(self.enums.items())],
            )
        if self.hours:
            tx.many(
                "INSERT INTO insight_hours (module, hour, n) VALUES (?, ?, ?) "
                "ON CONFLICT (module, hour) DO UPDATE SET n = insight_hours.n + excluded.n",
                [(*k, n) for k, n in sorted(self.hours.items())],
            )
        if self.excluded:
            tx.many(
                "INSERT INTO insight_exclusions (module, runs, insights, enums) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (module) DO UPDATE SET runs = insight_exclusions.runs + excluded.runs, "
                "insights = insight_exclusions.insights + excluded.insights, "
                "enums = insight_exclusions.enums + excluded.enums",
                [(m, *g) for m, g in sorted(self.excluded.items())],
            )


MAPPING_KEY = "CASE WHEN suggested_mapping IS NULL THEN '' ELSE '=' || suggested_mapping END"
REASON_KEY = "CASE WHEN reason IS NULL THEN '' ELSE '=' || reason END"
# Each total's columns: its key, then its counts (as stored, and as `recount` counts them again from the rows).
COLUMNS = {
    "insight_stats": ("module, mapping_key", "n, first_ts, last_ts"),
    "enum_stats": ("module, field, value, reason_key", "n"),
    "insight_hours": ("module, hour", "n"),
}


def recount(d: Dialect) -> dict[str, str]:
    """The SELECT that counts each total afresh from the insight and enum rows, in COLUMNS' order
    (insight_hours per module only: its all-modules rows are the sums of those)."""
    hour = d.floor.format(f"ts / {HOUR}")
    return {
        "insight_stats": f"SELECT module, {MAPPING_KEY}, COUNT(*), MIN(ts), MAX(ts) FROM insights "
        f"GROUP BY module, {MAPPING_KEY}",
        "enum_stats": f"SELECT module, field, value, {REASON_KEY}, COUNT(*) FROM custom_enums "
        f"GROUP BY module, field, value, {REASON_KEY}",
        "insight_hours": f"SELECT module, {hour}, COUNT(*) FROM insights GROUP BY module, {hour}",
    }


def rebuild(tx: Tx) -> None:
    """Recompute every total from the insight and enum rows (a migration, or after a bulk load
    that wrote rows directly)."""
    for table, select in recount(tx.dialect).items():
        tx.run(f"DELETE FROM {table}")
        tx.run(f"INSERT INTO {table} ({', '.join(COLUMNS[table])}) {select}")
    tx.run(
        "INSERT INTO insight_hours (module, hour, n) SELECT ?, hour, SUM(n) FROM insight_hours GROUP BY hour",
        [ALL_MODULES],
    )


def create(tx: Tx) -> None:
    for statement in TABLES:
        tx.run(statement.format(real=tx.dialect.real))
    rebuild(tx)


def exclude_failed_runs(tx: Tx) -> None:
    """Schema v4: the insight and enum rows of runs that failed their contract (`contract_valid` 0)
    become counts in insight_exclusions; the rows go, and the other totals are recomputed without them."""
    tx.run(EXCLUSIONS)
    per_run = (
        "SELECT r.module AS module, (SELECT COUNT(*) FROM insights i WHERE i.run_id = r.id) AS ni, "
        "(SELECT COUNT(*) FROM custom_enums c WHERE c.run_id = r.id) AS ne FROM runs r WHERE r.contract_valid = 0"
    )
    tx.run(
        "INSERT INTO insight_exclusions (module, runs, insights, enums) "
        f"SELECT module, COUNT(*), SUM(ni), SUM(ne) FROM ({per_run}) AS x WHERE ni + ne > 0 GROUP BY module"
    )
    for table in ("insights", "custom_enums"):
        tx.run(f"DELETE FROM {table} WHERE run_id IN (SELECT id FROM runs WHERE contract_valid = 0)")
    rebuild(tx)
