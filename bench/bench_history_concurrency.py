"""A hundred `cogn run` processes recording at once into one PostgreSQL history: none lost, and how fast.

    .venv/bin/python bench/bench_history_concurrency.py [--runs 100] [--no-baseline]

Three rounds, each `--runs` real `cogn run` processes (replay provider) started together, on a PostgreSQL
server started in a temp folder (tests/pgserver.py):

1. a fresh database: the processes race to create the schema (one migrates, the others wait on the lock),
   then record; every run must be in the database;
2. the same with `--no-history` (the baseline: what the processes cost without recording);
3. the server stopped: every run is kept in the outbox; then the server starts and one `cogn history flush`
   delivers them all.

Target (issue 36): no run lost in rounds 1 and 3.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))
import psycopg  # noqa: E402
from benchutil import machine, report  # noqa: E402
from history_kit import cogn_env  # noqa: E402
from pgserver import PostgresServer  # noqa: E402

MODULES = REPO / "modules"
GOLDEN = MODULES / "code-reviewer" / "tests" / "case1.input.json"


def env_for(folder: Path, url: str) -> dict[str, str]:
    return {**cogn_env(folder, url), "PYTHONDONTWRITEBYTECODE": ""}  # compiled modules kept, as an install does


def at_once(env: dict[str, str], inputs: list[str], *extra: str) -> tuple[float, list[str]]:
    """Start one `cogn run` per input together; (seconds until the last ended, each one's stderr)."""
    argv = [sys.executable, "-m", "cogtui.cli", "--path", str(MODULES), "run", "code-reviewer", "--json", *extra]
    started = time.perf_counter()
    procs = [
        subprocess.Popen([*argv, "--input", i], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for i in inputs
    ]
    errors = [p.communicate(timeout=900)[1] for p in procs]
    elapsed = time.perf_counter() - started
    failed = [(p.returncode, e) for p, e in zip(procs, errors, strict=True) if p.returncode not in (0, 1)]
    if failed:
        raise SystemExit(f"{len(failed)} runs failed; the first: exit {failed[0][0]}: {failed[0][1]}")
    return elapsed, errors


def count(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT COUNT(*) FROM runs").fetchone()
        return int(row[0]) if row else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--no-baseline", action="store_true", help="skip the round without recording")
    args = ap.parse_args(argv)
    n = args.runs
    server = PostgresServer().start()
    results: dict[str, Any] = {"runs started at once": n}
    try:
        with tempfile.TemporaryDirectory(prefix="cogtui-bench-") as tmp:
            folder = Path(tmp)
            url = server.new_database()
            env = env_for(folder, url)
            # Round 1: the golden input, so every run carries insights and all of them update the same totals.
            seconds, errors = at_once(env, [str(GOLDEN)] * n)
            warned = sum(1 for e in errors if "warning" in e)
            recorded = count(url)
            results["fresh database: runs recorded"] = recorded
            results["fresh database: runs lost (target <= 0)"] = n - recorded
            results["fresh database: runs kept in the outbox"] = warned
            results["fresh database: wall s, all runs"] = round(seconds, 2)
            results["fresh database: runs per second"] = round(n / seconds, 1)
            if not args.no_baseline:
                base, _ = at_once(env, [str(GOLDEN)] * n, "--no-history")
                results["baseline without recording: wall s"] = round(base, 2)
                results["recording's share of the wall time, %"] = round(100 * (seconds - base) / seconds, 1)
            # Round 3: distinct inputs (distinct keys), the server stopped while they run.
            url2 = server.new_database()
            env2 = env_for(folder / "down", url2)
            server.halt()
            try:
                inputs = [json.dumps({"diff": f"diff --git a/f{i} b/f{i}\n+line {i}\n"}) for i in range(n)]
                kept_seconds, errors = at_once(env2, inputs)
            finally:
                server.resume()
            results["server down: runs kept"] = sum(1 for e in errors if "It is kept in" in e)
            started = time.perf_counter()
            flushed = subprocess.run(
                [sys.executable, "-m", "cogtui.cli", "history", "flush", "--json"],
                env=env2,
                capture_output=True,
                text=True,
                timeout=900,
            )
            flush_seconds = time.perf_counter() - started
            delivered = json.loads(flushed.stdout)["summary"] if flushed.returncode == 0 else {"recorded": 0}
            recorded = count(url2)
            results["server down: wall s, all runs"] = round(kept_seconds, 2)
            results["server down, then flush: runs recorded"] = recorded
            results["server down, then flush: runs lost (target <= 0)"] = n - recorded
            results["flush: s (one process, all kept runs)"] = round(flush_seconds, 2)
            results["flush: runs delivered"] = delivered.get("recorded")
    finally:
        server.stop()
    report("history concurrency (PostgreSQL)", results, machine())
    lost = (
        results["fresh database: runs lost (target <= 0)"] + results["server down, then flush: runs lost (target <= 0)"]
    )
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
