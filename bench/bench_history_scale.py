"""Insights over a million runs, on SQLite and on PostgreSQL (issue 15).

    .venv/bin/python bench/bench_history_scale.py [--runs 1000000] [--backend both|sqlite|postgresql]
                                                  [--url postgresql://...] [--repeat 5] [--seed 1]

The store is created by cogtui (its migrations), then filled by bulk insert
(executemany on SQLite, COPY on PostgreSQL) with the rows `History.record`
would write: runs with a small envelope, and their insight and custom-enum
rows (0-5 insights per run, mappings Pareto-distributed as in
bench_history.py; a custom enum value in ~14 % of runs). Then every query is
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))
from bench_history import MAPPINGS, MODULES, make_run  # noqa: E402
from benchutil import machine, report, timed  # noqa: E402

from cogtui.core.history.records import digest  # noqa: E402
from cogtui.core.history.store import History  # noqa: E402

CHUNK = 50_000
REASONS = ["not in the enum", "new area", "seen twice"]
CUSTOM = ["race-condition", "i18n", "licensing", "telemetry", "accessibility", "migration", "flaky"]
RUN_COLUMNS = (
    "id, module, module_version, module_format, provider, model, input, input_hash, args, envelope, error_code, "
    "started_at, ttfc_ms, total_ms, usage, outcome, session_id, run_digest"
)
ENVELOPE_OK = json.dumps({"ok": True, "meta": {"confidence": 0.8, "risk": "low", "explain": "e"}, "data": {}})
ENVELOPE_ERR = json.dumps(
    {"ok": False, "meta": {"confidence": 0.2, "risk": "high", "explain": "e"}, "error": {"code": "E3001"}}
)


def chunks(n: int, seed: int) -> Iterator[tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]]:
    """(runs, insights, custom_enums) rows, CHUNK runs at a time; ids are explicit (1..n)."""
    rng = random.Random(seed)
    t0 = time.time() - n * 37.0
    iid = eid = 0
    for start in range(0, n, CHUNK):
        runs, insights, enums = [], [], []
        for rid in range(start + 1, min(start + CHUNK, n) + 1):
            module = MODULES[rng.randrange(len(MODULES))]
            ts = t0 + rid * 37.0 + rng.random()
            ok = rng.random() < 0.92
            runs.append(
                (
                    rid,
                    module,
                    "2.2.0",
                    "v2.2",
                    "anthropic",
                    "claude-sonnet",
                    f'{{"i":{rid}}}',
                    digest(rid),
                    None,
                    ENVELOPE_OK if ok else ENVELOPE_ERR,
                    None if ok else "E3001",
                    ts,
                    300.0,
                    2000.0,
                    None,
                    "ok" if ok else "error",
                    None,
                    f"{rid:064x}",
                )
            )
            for _ in range(rng.randint(0, 5)):
                iid += 1
                mapping = (
                    MAPPINGS[min(int(rng.paretovariate(1.2)) - 1, len(MAPPINGS) - 1)] if rng.random() < 0.9 else None
                )
                insights.append((iid, rid, module, ts, mapping, "The schema has no place for this", "line 3"))
            if rng.random() < 0.14:
                eid += 1
                enums.append((eid, rid, module, ts, "issues[].category", rng.choice(CUSTOM), rng.choice(REASONS)))
        yield runs, insights, enums


def fill_sqlite(path: Path, n: int, seed: int) -> None:
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    for runs, insights, enums in chunks(n, seed):
        conn.execute("BEGIN")
        conn.executemany(f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({', '.join('?' * 18)})", runs)
        conn.executemany("INSERT INTO insights VALUES (?, ?, ?, ?, ?, ?, ?)", insights)
        conn.executemany("INSERT INTO custom_enums VALUES (?, ?, ?, ?, ?, ?, ?)", enums)
        conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def fill_postgres(url: str, n: int, seed: int) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for runs, insights, enums in chunks(n, seed):
            with conn.transaction(), conn.cursor() as cur:
                for table, cols, rows in (
                    ("runs", RUN_COLUMNS, runs),
                    ("insights", "id, run_id, module, ts, suggested_mapping, text, evidence", insights),
                    ("custom_enums", "id, run_id, module, ts, field, value, reason", enums),
                ):
                    with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                        for row in rows:
                            copy.write_row(row)
        for table in ("runs", "insights", "custom_enums"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
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
