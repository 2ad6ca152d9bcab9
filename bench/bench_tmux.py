"""The real binary in tmux, as a user sees it: first screen, and a file fixed or broken by another program.

    .venv/bin/python bench/bench_tmux.py [--writes 20] [--repeat 5]    (--writes 0: first screens only)

Black box: `cogtui` runs in its own tmux server (`tmux -L <unique>`), 120x40;
the script reads the screen with `tmux capture-pane` every 3 ms (10 ms while
timing first screens: each read is a process competing for the two cores).
First screen: from starting the process until the bundled modules' names are
on screen, against a bare Textual app showing one word (the two alternate, so
load on a shared machine hits both alike). Then another program breaks a
module's manifest (tier: bogus) and fixes it again, `--writes` times each: the
time until the module's line in the browser shows the new status. Last, the
editor: a real-world module (tests/realworld/code-review-zh, whose goldens are
contracts) open in the editor on its manifest, another program breaks and
fixes the manifest, then the schema (a file not in view): the time until the
editor's status line shows ✗ or "✓ valid".
Targets (issue 16): first screen <= 1.25x the bare app; p95 <= 250 ms each way.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, report

ROOT = Path(__file__).resolve().parents[1]
BARE = "from textual.app import App\nfrom textual.widgets import Static\nclass B(App):\n    def compose(self):\n        yield Static('ready-bare')\nB().run()\n"
MODULE = "code-reviewer"
REALWORLD = "code-review-zh"


class Tmux:
    def __init__(self, command: str, env: dict[str, str]) -> None:
        self.socket = f"cogtui-bench-{os.getpid()}-{time.monotonic_ns()}"
        subprocess.run(
            ["tmux", "-L", self.socket, "new-session", "-d", "-x", "120", "-y", "40", command], env=env, check=True
        )

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "capture-pane", "-p"], capture_output=True, text=True, check=False
        ).stdout

    def wait_for(self, predicate: Any, timeout: float = 60, poll: float = 0.003) -> float:
        """Seconds from now until the screen satisfies `predicate`, reading it every `poll` seconds (each read
        starts a tmux client process: CPU taken from the app under test on a two-core machine)."""
        t = time.perf_counter()
        while time.perf_counter() - t < timeout:
            if predicate(self.screen()):
                return time.perf_counter() - t
            time.sleep(poll)
        raise TimeoutError("the screen never showed it")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)


def status_line(screen: str) -> str:
    return next((line for line in screen.splitlines() if MODULE in line), "")


def editor_line(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def round_trips(t: Tmux, target: Path, bad: str, line: Any, writes: int) -> tuple[list[float], list[float]]:
    """Milliseconds from another program's write to the screen showing it, broken then fixed, `writes` times."""
    good = target.read_text(encoding="utf-8")
    broken, fixed = [], []
    for _ in range(writes):
        started = time.perf_counter()
        target.write_text(bad, encoding="utf-8")
        t.wait_for(lambda s: "✗" in line(s), timeout=30)
        broken.append((time.perf_counter() - started) * 1000)
        time.sleep(0.2)
        started = time.perf_counter()
        target.write_text(good, encoding="utf-8")
        t.wait_for(lambda s: "✓" in line(s), timeout=30)
        fixed.append((time.perf_counter() - started) * 1000)
        time.sleep(0.2)
    return broken, fixed


def record(results: dict[str, Any], where: str, broken: list[float], fixed: list[float]) -> None:
    for label, ms in (("broken -> ✗", broken), ("fixed -> ✓", fixed)):
        ms = sorted(ms)
        results[f"{where}: file {label} on screen, median ms"] = round(statistics.median(ms), 1)
        results[f"{where}: file {label} on screen, p95 ms (target <= 250)"] = round(
            ms[max(0, int(len(ms) * 0.95) - 1)], 1
        )


def editor_bench(tmp: str, env: dict[str, str], cogtui: str, writes: int, results: dict[str, Any]) -> None:
    """The editor open on a real-world module's manifest; its manifest, then its schema, broken and fixed."""
    root = Path(tmp) / "realworld"
    shutil.copytree(ROOT / "tests" / "realworld" / REALWORLD, root / REALWORLD)
    t = Tmux(f"cd {tmp} && {cogtui} --path realworld", env)
    try:
        t.wait_for(lambda s: f"✓ {REALWORLD}" in s)  # its line in the tree, validated
        subprocess.run(["tmux", "-L", t.socket, "send-keys", "Enter"], check=True)
        t.wait_for(lambda s: "module.yaml" in editor_line(s) and "✓ valid" in editor_line(s))
        manifest = root / REALWORLD / "module.yaml"
        bad = manifest.read_text(encoding="utf-8").replace("tier: decision", "tier: bogus")
        record(results, f"editor, {REALWORLD} manifest", *round_trips(t, manifest, bad, editor_line, writes))
        schema = root / REALWORLD / "schema.json"
        bad = schema.read_text(encoding="utf-8").replace('"type": "object"', '"type": "objet"', 1)
        record(results, f"editor, {REALWORLD} schema", *round_trips(t, schema, bad, editor_line, writes))
    finally:
        t.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--writes", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is not installed")
    results: dict[str, Any] = {"load average (1 min)": round(os.getloadavg()[0], 1)}
    with tempfile.TemporaryDirectory() as tmp:
        mods = Path(tmp) / "mods"
        shutil.copytree(ROOT / "modules", mods)
        (Path(tmp) / "bare.py").write_text(BARE, encoding="utf-8")
        env = {
            **os.environ,
            "HOME": tmp,
            "COGTUI_DATA_DIR": str(Path(tmp) / "data"),
            "COGTUI_CACHE_DIR": str(Path(tmp) / "cache"),
            "COGNITIVE_MODULES_PATH": "",
            "TERM": "xterm-256color",
        }
        cogtui = str(Path(sys.executable).with_name("cogtui"))
        bare, ours = [], []
        for i in range(args.repeat + 1):  # the first start of each fills caches: not counted
            t = Tmux(f"{sys.executable} {tmp}/bare.py", env)
            took = t.wait_for(lambda s: "ready-bare" in s, poll=0.01)
            t.close()
            t = Tmux(f"cd {tmp} && {cogtui} --path mods", env)
            mine = t.wait_for(lambda s: MODULE in s, poll=0.01)
            if i:
                bare.append(took)
                ours.append(mine)
            if i < args.repeat:
                t.close()
        results["bare Textual app, first screen in tmux_s (median)"] = statistics.median(bare)
        results["cogtui, first screen with modules in tmux_s (median)"] = statistics.median(ours)
        results["first screen ratio (target <= 1.25)"] = round(statistics.median(ours) / statistics.median(bare), 2)
        manifest = mods / MODULE / "module.yaml"
        bad = manifest.read_text(encoding="utf-8").replace("tier: decision", "tier: bogus")
        try:
            if args.writes:  # --writes 0: the first screens only
                t.wait_for(lambda s: "✓" in status_line(s))
                record(results, f"browser, {MODULE} manifest", *round_trips(t, manifest, bad, status_line, args.writes))
        finally:
            t.close()
        if args.writes:
            editor_bench(tmp, env, cogtui, args.writes, results)
        results["load average (1 min), at the end"] = round(os.getloadavg()[0], 1)
    report("tmux", results, machine())


if __name__ == "__main__":
    main()
