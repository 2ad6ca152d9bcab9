"""Every benchmark, one after another, then each figure that has a target against it (`make bench`).

    .venv/bin/python bench/run_all.py [--full] [core schema runtime streams startup history migrate tui tmux first_frame dashboard hostile eval caching judge]

By default each script runs at a reduced size chosen so that the whole set
finishes in under three minutes on the reference machine (BENCHMARKS.md);
`--full` runs each at its own default size (the sizes BENCHMARKS.md quotes
for the scale figures). Each script runs in its own process (so one's imports
and caches do not flatter the next) and prints its figures as it goes. A
failing script is reported and the rest still run; the exit status says
whether all of them finished.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ORDER = (
    "core",
    "schema",
    "runtime",
    "streams",
    "startup",
    "history",
    "history_scale",
    "history_concurrency",
    "migrate",
    "tui",
    "tmux",
    "first_frame",
    "dashboard",
    "hostile",
    "eval",
    "caching",
    "judge",
)
QUICK: dict[str, list[str]] = {
    "core": ["--count", "150", "--repeat", "2"],
    "schema": ["--repeat", "3"],
    "runtime": ["--runs", "50"],
    "streams": ["--repeat", "2"],
    "startup": ["--repeat", "9", "--importtime-runs", "3"],
    "history": ["--runs", "10000", "--single", "300", "--repeat", "3"],
    "history_scale": ["--runs", "20000", "--repeat", "3"],
    "history_concurrency": ["--no-baseline"],
    "migrate": ["--count", "60", "--repeat", "1"],
    "tui": ["--modules", "200", "--repeat", "3", "--skip-stream"],
    "tmux": ["--writes", "10", "--repeat", "7"],
    "first_frame": ["--repeat", "15"],  # the least of 7 moved with the bare app's luckiest start
    "dashboard": ["--runs", "5000", "--repeat", "2"],
    "eval": ["--cases", "50", "--repeat", "1", "--skip-engine"],  # the 50 goldens
}
_AT_MOST = re.compile(r"\(target\s*(<=|<|>=)\s*([0-9.]+)")


def verdict(key: str, value: Any) -> str:
    """'PASS' / 'MISS' for a `(target <= N)` or `(target >= N)` figure; '' when the target is not a simple bound."""
    if isinstance(value, bool):  # a script's own "targets_met"
        return "PASS" if value else "MISS"
    if isinstance(value, str) and value.endswith((": met", ": MISSED")):
        return "PASS" if value.endswith(": met") else "MISS"
    bound = _AT_MOST.search(key)
    if bound is None or not isinstance(value, (int, float)):
        return ""
    limit = float(bound.group(2))
    op = bound.group(1)
    ok = value <= limit if op == "<=" else value >= limit if op == ">=" else value < limit
    return "PASS" if ok else "MISS"


def run_one(name: str, full: bool) -> tuple[int, dict[str, Any]]:
    script = HERE / f"bench_{name}.py"
    # Like `make bench`: compiled modules are kept (an empty PYTHONDONTWRITEBYTECODE is off), as an install does.
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    proc = subprocess.Popen(
        [sys.executable, str(script), *([] if full else QUICK.get(name, []))],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    results: dict[str, Any] = {}
    for line in proc.stdout:
        print(line, end="", flush=True)
        if line.startswith('{"bench"'):
            results = json.loads(line).get("results", {})
    return proc.wait(), results


def main(argv: list[str]) -> int:
    full = "--full" in argv
    chosen = [a for a in argv if a != "--full"] or list(ORDER)
    unknown = [name for name in chosen if name not in ORDER]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(ORDER)}", file=sys.stderr)
        return 2
    failed: list[str] = []
    targets: list[str] = []
    started_all = time.perf_counter()
    load_before = os.getloadavg()[0]
    for name in chosen:
        print(f"\n=== bench_{name}.py", flush=True)
        started = time.perf_counter()
        code, results = run_one(name, full)
        print(
            f"=== bench_{name}.py: {'ok' if code == 0 else f'exit status {code}'} in {time.perf_counter() - started:.0f} s"
        )
        if code != 0:
            failed.append(name)
        for key, value in results.items():
            if "target" in key:
                mark = verdict(key, value)
                targets.append(f"  {name:9} {key}: {value}" + (f"  [{mark}]" if mark else ""))
    print(
        f"\n=== figures with a target ({time.perf_counter() - started_all:.0f} s in all; "
        f"1-minute load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after)"
    )
    print("\n".join(targets) or "  (none)")
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
