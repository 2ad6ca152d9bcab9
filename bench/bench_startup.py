"""Start-up and import budget of the headless commands, against the interpreter floor.

    .venv/bin/python bench/bench_startup.py [--repeat 15]

The floor is `python -c pass` with the project's interpreter (site and the
editable install's import hook included). Each command runs as a process;
the figure is the median wall time of `--repeat` runs, interleaved with the
floor so that load on a shared machine hits both alike. Each is also given
in CPU time (user + system of the process, the least of the runs), which
other processes' load hardly moves: on a busy machine that ratio is the one
to read. Compiled bytecode is kept (as an installed package has it), even if
PYTHONDONTWRITEBYTECODE is set. "validate one module (no YAML)" is
code-reviewer with its manifest written as JSON (no PyYAML import). The
import budget is `python -X importtime`: the cumulative import time of the
modules each command loads, and the heaviest third-party ones.
The ratios to the floor are figures, not targets: the start-up budget is an
absolute one (issue 31), a one-module cold `cogn validate` under 100 ms with a
regular install, measured by bench_reference.py.
"""

from __future__ import annotations

import argparse
import json
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
MODULES = ROOT / "modules"
COMMANDS: dict[str, list[str]] = {
    "validate one module": ["-m", "cogtui.cli", "validate", str(MODULES / "code-reviewer")],
    "validate one module (no YAML)": ["-m", "cogtui.cli", "validate", "{json_module}"],
    "validate --all (bundled)": ["-m", "cogtui.cli", "validate", "--all", "--path", str(MODULES)],
    "list": ["-m", "cogtui.cli", "list", "--path", str(MODULES)],
    "run (replay)": [
        *("-m", "cogtui.cli", "run", str(MODULES / "code-reviewer"), "--provider", "replay", "--no-history"),
        *("--input", str(MODULES / "code-reviewer" / "tests" / "case1.input.json")),
    ],
}
WATCHED = ("yaml", "jsonschema_rs", "jsonschema", "referencing", "anthropic", "httpx", "textual", "rich")


def wall(args: list[str], env: dict[str, str], cpu: list[float] | None = None) -> float:
    """Wall seconds of one run; its CPU seconds (user + system) are appended to `cpu`."""
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    if cpu is not None:
        cpu.append(usage.ru_utime + usage.ru_stime)
    return time.perf_counter() - t


def json_module(folder: Path) -> Path:
    """code-reviewer with its manifest written as JSON, YAML's flow style: a module without YAML syntax."""
    import yaml

    target = folder / "code-reviewer"
    shutil.copytree(MODULES / "code-reviewer", target)
    manifest = yaml.safe_load((target / "module.yaml").read_text(encoding="utf-8"))
    (target / "module.yaml").write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    return target


def import_budget(args: list[str], env: dict[str, str], runs: int = 5) -> dict[str, float]:
    """Milliseconds: all imports, and each watched package where it is first imported (cumulative). Each
    figure is the least of `runs` runs: time slices lost to other processes only ever add to it."""
    totals: list[float] = []
    found: dict[str, float] = {}
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", *args], env=env, capture_output=True, text=True, check=False
        )
        total = 0.0
        seen: set[str] = set()
        for line in proc.stderr.splitlines():
            fields = line.split("|")
            if not line.startswith("import time:") or len(fields) != 3 or not fields[1].strip().isdigit():
                continue
            cumulative_ms = int(fields[1]) / 1000
            name = fields[2][1:]  # one space after the bar; more is nesting
            if not name.startswith(" "):
                total += cumulative_ms
            module = name.strip()
            if module in WATCHED and module not in seen:
                seen.add(module)
                found[module] = min(found.get(module, cumulative_ms), cumulative_ms)
        totals.append(total)
    ordered = sorted(found.items(), key=lambda kv: -kv[1])
    return {"all imports": round(min(totals), 1), **{k: round(v, 1) for k, v in ordered}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--importtime-runs", type=int, default=5, help="runs under -X importtime per command")
    args = ap.parse_args()
    results: dict[str, Any] = {"load average (1 min)": round(os.getloadavg()[0], 1)}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "HOME": tmp, "COGNITIVE_MODULES_PATH": "", "COGTUI_DATA_DIR": tmp, "NO_COLOR": "1"}
        env["COGTUI_REPLAY_INTERVAL"] = "0"  # replay paces its chunks (10 ms each): start-up is the figure here
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        where = str(json_module(Path(tmp)))
        commands = {name: [a.replace("{json_module}", where) for a in cmd] for name, cmd in COMMANDS.items()}
        for cmd in commands.values():
            wall(cmd, env)  # warm the file cache and .pyc files
        floor: list[float] = []
        floor_cpu: list[float] = []
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            floor.append(wall(["-c", "pass"], env, floor_cpu))
            for name, cmd in commands.items():
                times[name].append(wall(cmd, env, cpus[name]))
        base = statistics.median(floor)
        results["floor: python -c pass_s (median)"] = base
        results["floor: python -c pass, CPU ms (least)"] = round(min(floor_cpu) * 1000, 1)
        for name in commands:
            med = statistics.median(times[name])
            results[f"{name}_s (median)"] = med
            results[f"{name}: ratio to the floor"] = round(med / base, 2)
            results[f"{name}: CPU ms (least)"] = round(min(cpus[name]) * 1000, 1)
            results[f"{name}: CPU ratio to the floor's"] = round(min(cpus[name]) / min(floor_cpu), 2)
        results["load average (1 min), at the end"] = round(os.getloadavg()[0], 1)
        for name, cmd in commands.items():
            results[f"{name}: imports, ms"] = import_budget(cmd, env, args.importtime_runs)
    report("startup", results, machine())


if __name__ == "__main__":
    main()
