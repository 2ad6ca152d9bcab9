"""Every benchmark, one after another, with its default sizes (`make bench`).

    .venv/bin/python bench/run_all.py [core runtime history migrate tui dashboard]

Each script runs in its own process (so one's imports and caches do not
flatter the next) and prints its figures as it goes; copy them into
BENCHMARKS.md with the date and machine. A failing script is reported and
the rest still run; the exit status says whether all of them finished.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ("core", "runtime", "history", "history_scale", "migrate", "tui", "dashboard")


def main(argv: list[str]) -> int:
    chosen = argv or list(ORDER)
    unknown = [name for name in chosen if name not in ORDER]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(ORDER)}", file=sys.stderr)
        return 2
    failed = []
    for name in chosen:
        script = HERE / f"bench_{name}.py"
        print(f"\n=== {script.name}", flush=True)
        started = time.perf_counter()
        code = subprocess.run([sys.executable, str(script)], check=False).returncode
        print(
            f"=== {script.name}: {'ok' if code == 0 else f'exit status {code}'} "
            f"in {time.perf_counter() - started:.0f} s",
            flush=True,
        )
        if code != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
