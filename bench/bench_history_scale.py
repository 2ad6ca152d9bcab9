"""Insights over a million runs, on SQLite and on PostgreSQL (issue 15).

    .venv/bin/python bench/bench_history_scale.py [--runs 1000000] [--backend both|sqlite|postgresql]
                                                  [--url postgresql://...] [--repeat 5] [--seed 1]

The store is created by cogtui (its migrations), then filled by bulk insert
in SQL with the rows `History.record` would write: runs with a small envelope,
and their insight and custom-enum rows (0-5 insights per run, mappings
Pareto-distributed as in bench_history.py; a custom enum value in 14 % of
runs); the running totals are then recomputed from the rows (`rollups.rebuild`). Then every query is
timed through the `History` API. Without --url a throwaway PostgreSQL server
is started in a temp folder (tests/pgserver.py).

Targets: the insights dashboard's read (`insights()`, `modules()`,
`insight_timeline()`) over 1,000,000 runs under 1 s on PostgreSQL and under
2 s on SQLite (median of --repeat).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))
from bench_history import MAPPINGS, MODULES, make_run  # noqa: E402
from benchutil import machine, report, timed  # noqa: E402

from cogtui.core.history import rollups  # noqa: E402
from cogtui.core.history.backend import SQLiteTx  # noqa: E402
from cogtui.core.history.postgres import PostgresTx  # noqa: E402
from cogtui.core.history.store import History  # noqa: E402

REASONS = ["not in the enum", "new area", "seen twice"]
CUSTOM = ["race-condition", "i18n", "licensing", "telemetry", "accessibility", "migration", "flaky"]
ENVELOPE_OK = json.dumps({"ok": True, "meta": {"confidence": 0.8, "risk": "low", "explain": "e"}, "data": {}})
ENVELOPE_ERR = json.dumps(
    {"ok": False, "meta": {"confidence": 0.2, "risk": "high", "explain": "e"}, "error": {"code": "E3001"}}
)
SLOTS = 1000


def lookup_tables(seed: int) -> dict[str, list[tuple[Any, ...]]]:
    """Small tables the SQL fill joins against: module names, 1,000 mapping slots drawn from the
    Pareto distribution of bench_history.py (10 % without a mapping), custom values and reasons."""
    rng = random.Random(seed)
    slots = [
        (i, MAPPINGS[min(int(rng.paretovariate(1.2)) - 1, len(MAPPINGS) - 1)] if rng.random() < 0.9 else None)
        for i in range(SLOTS)
    ]
    return {
        "b_mods": list(enumerate(MODULES)),
        "b_slots": slots,
        "b_ks": [(k, None) for k in range(1, 6)],
        "b_custom": list(enumerate(CUSTOM)),
        "b_reasons": list(enumerate(REASONS)),
    }


# The fill, in SQL (C speed: a Python loop over a million runs takes many minutes on a busy machine).
# {series} yields i = 1..n; {hex} is the 64-hex-digit rendering of i. Run i: a module by i % 40,
# started 37 s after the previous one, ok 92 % of the time; (i * 7919) % 6 insights (0-5, 2.5 on
# average) whose mapping comes from the slots; a custom enum value in 14 % of runs.
FILL = [
    """INSERT INTO runs (id, module, module_version, module_format, provider, model, input, input_hash, args,
        envelope, error_code, started_at, ttfc_ms, total_ms, usage, outcome, session_id, run_digest)
    SELECT i, m.v, '2.2.0', 'v2.2', 'anthropic', 'claude-sonnet', {json_input}, {hex}, NULL,
        CASE WHEN i % 100 < 92 THEN {ok} ELSE {err} END, CASE WHEN i % 100 < 92 THEN NULL ELSE 'E3001' END,
        {t0} + i * 37.0, 300.0, 2000.0, NULL, CASE WHEN i % 100 < 92 THEN 'ok' ELSE 'error' END, NULL, {hex}
    FROM {series} JOIN b_mods m ON m.k = i % {n_mods}""",
    """INSERT INTO insights (run_id, module, ts, suggested_mapping, text, evidence)
    SELECT r.id, r.module, r.started_at, s.v, 'The schema has no place for this', 'line 3'
    FROM runs r JOIN b_ks ks ON ks.k <= (r.id * 7919) % 6 JOIN b_slots s ON s.k = (r.id * 31 + ks.k * 7907) % {slots}""",
    """INSERT INTO custom_enums (run_id, module, ts, field, value, reason)
    SELECT r.id, r.module, r.started_at, 'issues[].category', c.v, rs.v
    FROM runs r JOIN b_custom c ON c.k = r.id % {n_custom} JOIN b_reasons rs ON rs.k = r.id % {n_reasons}
    WHERE (r.id * 104729) % 100 < 14""",
]


def fill(conn: Any, dialect: str, n: int, seed: int) -> None:
    """Fill an empty, migrated store with n runs and their rows, then recompute the running totals."""
    pg = dialect == "postgresql"
    ph = "%s" if pg else "?"
    for table, rows in lookup_tables(seed).items():
        conn.execute(f"CREATE TEMP TABLE {table} (k INTEGER PRIMARY KEY, v TEXT)")
        cur = conn.cursor()
        cur.executemany(f"INSERT INTO {table} VALUES ({ph}, {ph})", rows)
    t0 = time.time() - n * 37.0
    sqlite_series = f"(WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < {n}) SELECT i FROM g)"
    params = {
        "series": f"generate_series(1, {n}) AS g(i)" if pg else sqlite_series,
        "hex": "lpad(to_hex(i), 64, '0')" if pg else "printf('%064x', i)",
        "json_input": """CAST('{"i":' || i || '}' AS jsonb)""" if pg else """'{"i":' || i || '}'""",
        "ok": f"CAST('{ENVELOPE_OK}' AS jsonb)" if pg else f"'{ENVELOPE_OK}'",
        "err": f"CAST('{ENVELOPE_ERR}' AS jsonb)" if pg else f"'{ENVELOPE_ERR}'",
        "t0": repr(t0),
        "n_mods": len(MODULES),
        "slots": SLOTS,
        "n_custom": len(CUSTOM),
        "n_reasons": len(REASONS),
    }
    for statement in FILL:
        conn.execute(statement.format(**params))
    tx = PostgresTx(conn) if pg else SQLiteTx(conn)
    rollups.rebuild(tx)
    if pg:
        for table in ("runs", "insights", "custom_enums"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")


def fill_sqlite(path: Path, n: int, seed: int) -> None:
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    fill(conn, "sqlite", n, seed)
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def fill_postgres(url: str, n: int, seed: int) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        with conn.transaction():
            fill(conn, "postgresql", n, seed)
        conn.execute("VACUUM ANALYZE")  # what autovacuum does after a bulk load: index-only scans need it


def measure(where: str, repeat: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with History(where) as h:
        ins, enums = h._query("SELECT (SELECT COUNT(*) FROM insights), (SELECT COUNT(*) FROM custom_enums)")[0]
        out["runs"], out["insight_rows"], out["custom_enum_rows"] = h.count(), int(ins), int(enums)

        def dashboard() -> None:
            h.insights(examples=5)
            h.modules()
            h.insight_timeline(buckets=48)

        one = MODULES[0]
        cases: dict[str, Callable[[], Any]] = {
            "dashboard read: insights + modules + timeline (s)": dashboard,
            "insights() (s)": h.insights,
            "insights(one module) (s)": lambda: h.insights(one),
            "insight_timeline() (s)": h.insight_timeline,
            "modules() (s)": h.modules,
            "runs(limit=200) (s)": lambda: h.runs(limit=200),
            "latest_id() (s)": h.latest_id,
            "count() (s)": h.count,
        }
        dashboard()  # warm the caches once, as a running TUI has them
        for name, fn in cases.items():
            out[name] = round(statistics.median(timed(fn, repeat)), 4)
        rng = random.Random(seed)
        per_call = []
        for i in range(200):
            run = make_run(rng, i, time.time())
            t = time.perf_counter()
            h.record(run)
            per_call.append((time.perf_counter() - t) * 1000)
        out["record one run, median (ms)"] = round(statistics.median(per_call), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=1_000_000)
    ap.add_argument("--backend", choices=("both", "sqlite", "postgresql"), default="both")
    ap.add_argument("--url", help="an empty PostgreSQL database to use instead of a throwaway server")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    results: dict[str, Any] = {}
    if args.backend in ("both", "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "history.sqlite3"
            History(path).close()
            t = time.perf_counter()
            fill_sqlite(path, args.runs, args.seed)
            fill = time.perf_counter() - t
            results["sqlite"] = {"bulk fill (s)": round(fill, 1), **measure(str(path), args.repeat, args.seed)}
            results["sqlite"]["file (MB)"] = round(sum(f.stat().st_size for f in Path(tmp).iterdir()) / 2**20)
            print(json.dumps(results["sqlite"], indent=2), flush=True)
    if args.backend in ("both", "postgresql"):
        server = None
        url = args.url
        if url is None:
            from pgserver import PostgresServer

            server = PostgresServer().start()
            url = server.new_database()
        try:
            History(url).close()
            t = time.perf_counter()
            fill_postgres(url, args.runs, args.seed)
            fill = time.perf_counter() - t
            results["postgresql"] = {"bulk fill (s)": round(fill, 1), **measure(url, args.repeat, args.seed)}
            print(json.dumps(results["postgresql"], indent=2), flush=True)
        finally:
            if server is not None:
                server.stop()
    key = "dashboard read: insights + modules + timeline (s)"
    results["targets_met"] = all(
        results[b][key] < limit for b, limit in (("sqlite", 2.0), ("postgresql", 1.0)) if b in results
    )
    report("history_scale", results, machine())


if __name__ == "__main__":
    main()
