"""Migration benchmark: `cogn migrate --all --dry-run` over 500 legacy modules (v2.1, v1, v0).

    .venv/bin/python bench/bench_migrate.py [--count 500] [--repeat 3]

Target (issue "cogn migrate"): under 5 s for 500 legacy modules, measured as
a whole `cogn` process (start-up included), median of the runs. Also reports
the in-process planning time per module and a real (non-dry-run) `--all` on a
fresh copy, for reference.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import child_peak_rss_mb, machine, report
from genmodules import generate

COGN = [sys.executable, "-m", "cogtui.cli"]
TARGET_S = 5.0


def run_cli(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    t = time.perf_counter()
    proc = subprocess.run(COGN + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from cogtui.core.authoring.migration import plan_migration
    from cogtui.core.module.loader import load_module

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "modules", args.count, legacy_only=True)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {
            **os.environ,
            "HOME": str(home),
            "COGNITIVE_MODULES_PATH": "",
            "COGTUI_DATA_DIR": str(Path(tmp) / "data"),
            "NO_COLOR": "1",
        }
        env.pop("FORCE_COLOR", None)
        os.chdir(tmp)
        dry = [run_cli(["migrate", "--all", "--dry-run", "--path", str(root)], env) for _ in range(args.repeat)]
        peak = child_peak_rss_mb()
        codes = {code for _, code in dry}
        folders = sorted(p for p in root.iterdir() if p.is_dir())
        t = time.perf_counter()
        for folder in folders:
            plan_migration(load_module(folder))
        per_module_ms = (time.perf_counter() - t) / len(folders) * 1000
        real_root = Path(tmp) / "real"
        shutil.copytree(root, real_root)
        real_s, real_code = run_cli(["migrate", "--all", "--path", str(real_root)], env)
        median = statistics.median(s for s, _ in dry)
        results = {
            "modules": args.count,
            "cogn migrate --all --dry-run process_s (median)": median,
            "dry-run exit codes": sorted(codes),
            "plan_migration in-process per module (ms)": round(per_module_ms, 2),
            "cogn migrate --all (apply, backup, validate) process_s": round(real_s, 2),
            "apply exit code": real_code,
            "peak_rss_mb (dry run)": peak,
            "target": f"< {TARGET_S:.0f} s: {'met' if median < TARGET_S else 'MISSED'}",
        }
    report("migrate", results, machine())


if __name__ == "__main__":
    main()
