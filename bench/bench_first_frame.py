"""CPU time until the first frame: cogtui on the bundled modules against a bare Textual app, headless 120x40.

    .venv/bin/python bench/bench_first_frame.py [--repeat 9]

Each start is a fresh process that runs the app headless and records its own CPU time (user + system,
`time.process_time`) when the first frame has been drawn: a callback given to `call_after_refresh` from
`on_mount`. The bare app shows one `Static`, as in bench_tmux.py; cogtui is started the way
`cogtui` starts it (the cyclic collector paused before the TUI is imported, cli._start_tui) and its
callback comes after the browser's first frame, with the module names in it, ahead of the app's own
after-first-frame work (validation, watching). CPU time is what other
processes' load hardly moves, so this ratio is the steadier companion of bench_tmux.py's wall-clock
one (issue 16's target: <= 1.25x). Least and median of the runs; the two kinds alternate.

`--against DIR` adds a third kind, interleaved with the two: cogtui imported from another checkout (its
folder put first on PYTHONPATH, e.g. `git archive <commit> | tar -x -C DIR`), to measure a change's gain
before and after in the same minutes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, report

ROOT = Path(__file__).resolve().parents[1]
BARE = """
import time
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("ready-bare")
    def on_mount(self):
        self.call_after_refresh(self.first_frame)
    def first_frame(self):
        print(time.process_time()); self.exit()
Bare().run(headless=True, size=(120, 40))
"""
COGTUI = """
import gc, sys, time
gc.disable()  # as cli._start_tui does before importing the TUI
import cogtui.cli
from cogtui.tui.app import CogtuiApp
class Timed(CogtuiApp):
    def on_mount(self):  # Textual calls CogtuiApp.on_mount next (each class's handler in turn)
        self.call_after_refresh(self.first_frame)  # before the app's own (validation starts after it)
    def first_frame(self):
        print(time.process_time()); self.exit()
Timed(paths=[sys.argv[1]]).run(headless=True, size=(120, 40))
"""


def cpu_ms(code: str, env: dict[str, str]) -> float:
    proc = subprocess.run(  # run from outside the checkout: with --against, PYTHONPATH decides which cogtui
        [sys.executable, "-c", code, str(ROOT / "modules")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=env["HOME"],  # a temporary folder
    )
    lines = proc.stdout.split()
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"the app did not start: {proc.stderr[-2000:]}")
    return float(lines[0]) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--against", type=Path, help="another checkout's folder: its cogtui, interleaved")
    args = ap.parse_args()
    results: dict[str, Any] = {"load average (1 min)": round(os.getloadavg()[0], 1)}
    bare: list[float] = []
    ours: list[float] = []
    theirs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(HOME=tmp, COGTUI_DATA_DIR=f"{tmp}/data", COGTUI_CACHE_DIR=f"{tmp}/cache", TERM="xterm-256color")
        env["COGNITIVE_MODULES_PATH"] = ""
        other = {**env, "PYTHONPATH": str(args.against.resolve())} if args.against else None
        for i in range(args.repeat + 1):  # the first start of each fills caches (.pyc, theme cache): not counted
            b, o = cpu_ms(BARE, env), cpu_ms(COGTUI, env)
            t = cpu_ms(COGTUI, other) if other else 0.0
            if i:
                bare.append(b)
                ours.append(o)
                theirs.append(t)
    results["bare Textual app, CPU ms at the first frame (least)"] = round(min(bare), 1)
    results["cogtui, CPU ms at the first frame (least)"] = round(min(ours), 1)
    results["first frame CPU ratio, least (target <= 1.25)"] = round(min(ours) / min(bare), 2)
    results["first frame CPU ratio, median"] = round(statistics.median(ours) / statistics.median(bare), 2)
    if args.against:
        results[f"cogtui of {args.against}, CPU ms at the first frame (least)"] = round(min(theirs), 1)
        results[f"cogtui of {args.against}, ratio least"] = round(min(theirs) / min(bare), 2)
        results[f"cogtui of {args.against}, ratio median"] = round(
            statistics.median(theirs) / statistics.median(bare), 2
        )
    results["load average (1 min), at the end"] = round(os.getloadavg()[0], 1)
    report("first_frame", results, machine())


if __name__ == "__main__":
    main()
