"""Every benchmark, one after another, then each figure that has a target against it (`make bench`), and
BENCHMARKS.md written again from the figures (bench/report_md.py).

    .venv/bin/python bench/run_all.py [--full] [growth reference editor core schema runtime streams startup ... serve judge]

By default each script runs at a reduced size chosen so that the whole set
finishes in under three minutes on the reference machine (BENCHMARKS.md);
`--full` runs each at its own default size (the sizes BENCHMARKS.md quotes
for the scale figures). Each script runs in its own process (so one's imports
and caches do not flatter the next) and prints its figures as it goes. A
failing script is reported and the rest still run; the exit status says
whether all of them finished (bench_growth.py fails when a sweep grows faster
than an exponent of 1.2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from benchutil import machine  # noqa: E402
from report_md import judged as verdict  # noqa: E402
from report_md import record, write  # noqa: E402

ORDER = (
    "growth",
    "reference",
    "editor",
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
    "serve",
    "lsp",
    "judge",
)
QUICK: dict[str, list[str]] = {
    "growth": ["--repeat", "3"],
    "reference": ["--repeat", "7"],
    "editor": ["--keys", "8"],
    "core": ["--count", "150", "--repeat", "2"],
    "schema": ["--repeat", "3"],
    "runtime": ["--runs", "50"],
    "streams": ["--repeat", "2"],
    "startup": ["--repeat", "9", "--importtime-runs", "3"],
    "history": ["--runs", "10000", "--single", "300", "--repeat", "3"],
    "history_scale": ["--runs", "20000", "--repeat", "3"],
    "history_concurrency": ["--no-baseline"],
    "migrate": ["--count", "60", "--repeat", "1"],
    "tui": ["--modules", "200", "--repeat", "7"],
    "tmux": ["--writes", "10", "--repeat", "7"],
    "first_frame": ["--repeat", "15"],  # the least of 7 moved with the bare app's luckiest start
    "dashboard": ["--runs", "5000", "--repeat", "2"],
    "eval": ["--cases", "50", "--repeat", "1", "--skip-engine"],  # the 50 goldens
    "serve": ["--rounds", "1"],  # the 200 runs at once, once
    "lsp": ["--keys", "10", "--repeat", "3"],
}


def run_one(name: str, full: bool) -> tuple[int, dict[str, Any]]:
    """The script's exit status and its report (`{"bench", "machine", "results"}`, the JSON line it prints last)."""
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
    found: dict[str, Any] = {}
    for line in proc.stdout:
        if line.startswith('{"bench"'):
            found = json.loads(line)
        else:
            print(line, end="", flush=True)
    return proc.wait(), found


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
        load = os.getloadavg()[0]
        code, found = run_one(name, full)
        results = found.get("results", {})
        record(name, results, found.get("machine", machine()), code, (load, os.getloadavg()[0]))
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
    write(ROOT / "BENCHMARKS.md", ORDER)
    print(f"\nBENCHMARKS.md written ({(ROOT / 'BENCHMARKS.md').stat().st_size:,} bytes)")
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
