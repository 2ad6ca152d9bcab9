"""The insights queries, the same statements on SQLite and PostgreSQL.

Insights and custom enum values get their own rows when a run is recorded, and
running totals per group (rollups.py) in the same transaction, so "which
suggested mappings keep coming back?" reads one row per (module, mapping),
not a million envelopes; examples are an index walk over the insight rows.
The timeline counts insight rows in SQL when its slices are narrower than an
hour, and the hourly totals when they are wider (each hour falls wholly into
the slice where it starts).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from cogtui.core.history.backend import Tx
from cogtui.core.history.records import iso_utc
from cogtui.core.history.rollups import ALL_MODULES, HOUR, text_of

MAX_REASONS = 5
Note = Callable[[str], None]  # where a reader says it skipped damaged rows (History.skipped)


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


# What each cell must be: SQLite keeps anything in any column (a blob, text in a number column),
# so a damaged row is dropped from the aggregate, and counted, rather than crash a reader.
_KINDS: dict[str, Callable[[Any], bool]] = {
    "s": lambda v: isinstance(v, str),
    "S": lambda v: v is None or isinstance(v, str),
    "n": _finite,
    "i": lambda v: isinstance(v, int) and not isinstance(v, bool),
}


def sound(rows: list[tuple[Any, ...]], kinds: str, table: str, note: Note) -> list[tuple[Any, ...]]:
    """The rows whose cells are of `kinds` (one letter per column, see _KINDS); the others are noted."""
    good = [r for r in rows if len(r) == len(kinds) and all(_KINDS[k](v) for k, v in zip(kinds, r, strict=True))]
    if len(good) < len(rows):
        bad = len(rows) - len(good)
        note(f"{table}: {bad} damaged row{'s' * (bad != 1)} skipped")
    return good


def _ignore(_: str) -> None:
    return None


def where_module(module: str | None) -> tuple[str, list[Any]]:
    return ("WHERE module = ?", [module]) if module is not None else ("", [])


EXAMPLE_BATCH = 50  # mappings per statement: one round trip to a database server instead of one per mapping


def examples(
    tx: Tx, mappings: list[str | None], module: str | None, n: int, note: Note = _ignore
) -> dict[str | None, list[dict[str, Any]]]:
    """The latest `n` insights of each mapping: for each, an index walk backwards over ts, no sort;
    the walks are sent together (UNION ALL). (`= ?` / `IS NULL` rather than `IS ?` so the planner
    always sees an equality.)"""
    found: dict[str | None, list[tuple[Any, ...]]] = {m: [] for m in mappings}
    if n > 0:
        for start in range(0, len(mappings), EXAMPLE_BATCH):
            parts, params = [], []
            for i, mapping in enumerate(mappings[start : start + EXAMPLE_BATCH]):
                cond, cond_params = (
                    ("suggested_mapping IS NULL", []) if mapping is None else ("suggested_mapping = ?", [mapping])
                )
                if module is not None:
                    cond, cond_params = cond + " AND module = ?", [*cond_params, module]
                parts.append(
                    f"SELECT * FROM (SELECT {start + i} AS g, ts, id, text, evidence, module FROM insights WHERE {cond} "
                    f"ORDER BY ts DESC, id DESC LIMIT ?) AS e{i}"
                )
                params += [*cond_params, n]
            for g, *row in sound(tx.rows(" UNION ALL ".join(parts), params), "inisSs", "insights", note):
                found[mappings[g]].append(tuple(row))
    return {  # UNION ALL promises no order: newest first again (ties: the later recorded)
        m: [
            {"text": t, "evidence": e, "module": mod, "ts": iso_utc(ts)}
            for ts, _, t, e, mod in sorted(rows, reverse=True)
        ]
        for m, rows in found.items()
    }


def custom_enums(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """Roll (module, field, value, reason, count) rows up to one entry per value."""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for mod, field, value, reason, n in rows:
        g = groups.setdefault((mod, field, value), {"count": 0, "reasons": []})
        g["count"] += n
        if reason is not None:
            g["reasons"].append((reason, n))
    ordered = sorted(groups.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    return [
        {
            "module": mod,
            "field": field,
            "value": value,
            "count": g["count"],
            "reasons": [r for r, _ in sorted(g["reasons"], key=lambda rn: (-rn[1], rn[0]))[:MAX_REASONS]],
        }
        for (mod, field, value), g in ordered
    ]


def insights(tx: Tx, module: str | None, n_examples: int, note: Note = _ignore) -> dict[str, Any]:
    """The `cogn insights --json` document (see History.insights)."""
    where, params = where_module(module)
    groups: dict[str | None, dict[str, Any]] = {}
    # One row per (module, mapping); rolling up across modules in Python
    # is a few hundred steps and lets one covering index serve both filters.
    stats = tx.rows(f"SELECT mapping_key, module, n, first_ts, last_ts FROM insight_stats {where}", params)
    for key, mod, n, first, last in sound(stats, "ssinn", "insight_stats", note):
        mapping = text_of(key)
        g = groups.setdefault(mapping, {"count": 0, "modules": set(), "first": first, "last": last})
        g["count"] += int(n)
        g["modules"].add(mod)
        g["first"], g["last"] = min(g["first"], first), max(g["last"], last)
    ordered = sorted(groups.items(), key=lambda kv: (-kv[1]["count"], kv[0] is None, kv[0] or ""))
    latest = examples(tx, [mapping for mapping, _ in ordered], module, n_examples, note)
    out = [
        {
            "suggested_mapping": mapping,
            "count": g["count"],
            "modules": sorted(g["modules"]),
            "examples": latest[mapping],
            "first_seen": iso_utc(g["first"]),
            "last_seen": iso_utc(g["last"]),
        }
        for mapping, g in ordered
    ]
    enum_rows = sound(
        tx.rows(f"SELECT module, field, value, reason_key, n FROM enum_stats {where}", params),
        "ssssi",
        "enum_stats",
        note,
    )
    return {
        "insights": out,
        "custom_enums": custom_enums([(m, f, v, text_of(r), int(n)) for m, f, v, r, n in enum_rows]),
        "excluded": excluded(tx, module, note),
    }


def excluded(tx: Tx, module: str | None, note: Note = _ignore) -> dict[str, int]:
    """What runs that failed their contract carried, left out of the aggregates (HIST-1)."""
    where, params = where_module(module)
    rows = sound(
        tx.rows(f"SELECT module, runs, insights, enums FROM insight_exclusions {where}", params),
        "siii",
        "insight_exclusions",
        note,
    )
    return {
        "runs": sum(int(r) for _, r, _, _ in rows),
        "insights": sum(int(i) for _, _, i, _ in rows),
        "custom_enums": sum(int(e) for _, _, _, e in rows),
    }


def timeline(tx: Tx, module: str | None, buckets: int, note: Note = _ignore) -> list[tuple[float, int]]:
    """See History.insight_timeline."""
    where, params = where_module(module)
    lo, hi = tx.rows(f"SELECT MIN(first_ts), MAX(last_ts) FROM insight_stats {where}", params)[0]
    if lo is None:
        return []
    if not (_finite(lo) and _finite(hi)):  # a damaged total: the span from the sound rows (one per group)
        spans = sound(
            tx.rows(f"SELECT first_ts, last_ts FROM insight_stats {where}", params), "nn", "insight_stats", note
        )
        if not spans:
            return []
        lo, hi = min(first for first, _ in spans), max(last for _, last in spans)
    width = (hi - lo) / buckets if hi > lo else 1.0
    counts = [0] * buckets
    if width >= HOUR:
        hours = tx.rows(
            "SELECT hour, n FROM insight_hours WHERE module = ?", [ALL_MODULES if module is None else module]
        )
        for hour, n in sound(hours, "ii", "insight_hours", note):
            counts[min(max(0, int((hour * HOUR - lo) // width)), buckets - 1)] += int(n)
        return [(lo + i * width, counts[i]) for i in range(buckets)]
    d = tx.dialect
    # LEAST(..., buckets - 1): the last insight sits exactly on the end edge.
    bucket = f"{d.least}({d.floor_int.format('(ts - ?) / ?')}, ?)"
    rows = tx.rows(
        f"SELECT {bucket} AS b, COUNT(*) FROM insights {where} GROUP BY b", [lo, width, buckets - 1, *params]
    )
    for b, n in sound(rows, "ni", "insights", note):
        counts[min(max(0, int(b)), buckets - 1)] += n
    return [(lo + i * width, counts[i]) for i in range(buckets)]


# A skip scan over runs_by_module_time: one index probe per module, not a pass over every run.
MODULES = """WITH RECURSIVE m(module) AS (
    SELECT MIN(module) FROM runs
    UNION ALL
    SELECT (SELECT MIN(module) FROM runs WHERE module > m.module) FROM m WHERE m.module IS NOT NULL
) SELECT module FROM m WHERE module IS NOT NULL"""


def modules(tx: Tx) -> list[str]:
    # One order on every backend, whatever its collation; a damaged cell (a blob) is shown as text.
    return sorted(r[0] if isinstance(r[0], str) else str(r[0]) for r in tx.rows(MODULES))
