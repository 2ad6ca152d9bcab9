"""Two or more installs of cogtui, one command, runs interleaved: what a change to start-up buys.

    .venv/bin/python bench/ab_installs.py OLD_VENV NEW_VENV [--repeat 25] [-- validate PATH]

Each VENV is a regular (non-editable) install, e.g. `python3 -m venv V && V/bin/pip install ./tree`. Every
round runs the command once with each install, in turn, as a fresh process (`VENV/bin/cogn ...`), so load on a
shared machine hits all alike. Printed per install: the median and least wall time, and the median and least
CPU time (user + system), in milliseconds, and each median's difference to the first install's. The default
command is a one-module validate of the bundled code-reviewer (issue 31's budget: under 100 ms wall).
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

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ["validate", str(ROOT / "modules" / "code-reviewer")]


def one_run(executable: str, command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Wall and CPU seconds of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen([executable, *command], env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    argv = sys.argv[1:]
    command = DEFAULT
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1 :]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("venvs", nargs="+", help="virtual environments with cogtui installed")
    ap.add_argument("--repeat", type=int, default=25)
    args = ap.parse_args(argv)
    labels = [Path(v).name for v in args.venvs]
    executables = [str(Path(v) / "bin" / "cogn") for v in args.venvs]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "PYTHONDONTWRITEBYTECODE")}
        env.update(HOME=tmp, COGTUI_DATA_DIR=tmp, COGTUI_CONFIG_FILE=str(Path(tmp) / "config.yaml"), NO_COLOR="1")
        for exe in executables:  # warm the file cache and .pyc files
            one_run(exe, command, env, tmp)
        walls: list[list[float]] = [[] for _ in executables]
        cpus: list[list[float]] = [[] for _ in executables]
        load = os.getloadavg()[0]
        for round_ in range(args.repeat):
            order = range(len(executables)) if round_ % 2 == 0 else reversed(range(len(executables)))
            for i in order:
                wall, cpu = one_run(executables[i], command, env, tmp)
                walls[i].append(wall * 1000)
                cpus[i].append(cpu * 1000)
    print(f"cogn {' '.join(command)}: {args.repeat} interleaved runs, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
    print(f"{'install':<16}{'wall median':>12}{'least':>8}{'CPU median':>12}{'least':>8}{'Δ wall':>9}{'Δ CPU':>8}")
    base_wall, base_cpu = statistics.median(walls[0]), statistics.median(cpus[0])
    for label, w, c in zip(labels, walls, cpus, strict=True):
        mw, mc = statistics.median(w), statistics.median(c)
        print(
            f"{label:<16}{mw:>12.1f}{min(w):>8.1f}{mc:>12.1f}{min(c):>8.1f}"
            f"{mw - base_wall:>+9.1f}{mc - base_cpu:>+8.1f}"
        )


if __name__ == "__main__":
    main()
