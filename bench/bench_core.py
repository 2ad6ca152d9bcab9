"""Core benchmarks: discovery, `validate --all` over 1,000 modules, a one-module `cogn validate` process.

    .venv/bin/python bench/bench_core.py [--count 1000] [--repeat 5]

Targets (issue "Core"): validate --all of 1,000 modules < 2 s; one-module
`cogn validate` process well under 0.3 s; peak memory < 150 MB for 1,000 modules.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import child_peak_rss_mb, machine, report, timed
from genmodules import generate

COGN = [sys.executable, "-m", "cogtui.cli"]


def run_cli(args: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(COGN + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    from cogtui.core.module.discovery import SearchPath, discover
    from cogtui.core.workspace import Workspace

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "modules", args.count)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "COGNITIVE_MODULES_PATH": ""}
        os.chdir(tmp)
        sp = SearchPath.from_environment([root], cwd=Path(tmp), home=home, env={})
        disc = timed(lambda: discover(sp), args.repeat)
        ws = Workspace(sp, discover(sp))
        val = timed(lambda: list(ws.validate_all(jobs=1)), args.repeat)
        val_par = timed(lambda: list(ws.validate_all()), args.repeat)
        serial_env = {**env, "COGTUI_JOBS": "1"}
        proc_serial = [run_cli(["validate", "--all", "--path", str(root)], serial_env) for _ in range(args.repeat)]
        peak_all = child_peak_rss_mb()  # the serial process holds everything itself: the worst case
        proc_all = [run_cli(["validate", "--all", "--path", str(root)], env) for _ in range(args.repeat)]
        one = next(root.iterdir())
        proc_one = [run_cli(["validate", str(one)], env) for _ in range(max(args.repeat, 10))]
        results = {
            "modules": args.count,
            "discovery_s (median)": statistics.median(disc),
            "validate_all in-process, 1 job_s (median)": statistics.median(val),
            "validate_all in-process, all cores_s (median)": statistics.median(val_par),
            "cogn validate --all process, 1 job_s (median)": statistics.median(proc_serial),
            "cogn validate --all process, all cores_s (median)": statistics.median(proc_all),
            "cogn validate ONE process_s (median)": statistics.median(proc_one),
            "peak_rss_mb (cogn validate --all, 1 job)": peak_all,
        }
    report("core", results, machine())


if __name__ == "__main__":
    main()
