"""Growth sweeps: how the cost of `cogn validate` grows with the work it is given (issue 31).

    .venv/bin/python bench/bench_growth.py [--repeat 3]

Three sweeps, each size a `cogn` process run `--repeat` times (the sizes interleaved, so load on a shared
machine hits them alike):

- **diagnostics**: api-naming-reviewer whose examples/output.json lists N changes, each without its required
  `risk` (one located warning each; at 2,000 the file is 640 KB): `cogn validate`, N = 250 ... 8,000.
- **modules**: `cogn validate --all` over N modules of bench/genmodules.py, in one process (COGTUI_JOBS=1),
  N = 1 ... 1,000.
- **schema**: code-reviewer whose data schema has N more properties: `cogn validate`, N = 625 ... 5,000.

Each row gives the median wall time, the least CPU time (user + system: what other processes' load hardly
moves) and the peak memory. A sweep's growth exponent is the slope of log(CPU beyond the baseline) on
log(N), least squares, where the baseline is the same command given none of the work (no changes, an empty
folder, no added properties): 1 is linear, 2 quadratic. A sweep whose exponent is above 1.2 fails the
script (exit status 1), and so `make bench`.
Targets (issue 31): 2,000 located diagnostics in a 640 KB file <= 0.3 s and 8,000 <= 1 s (wall), growth
exponent <= 1.1, peak memory at 8,000 <= 100 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import growth_exponent, machine, measured, report
from genmodules import generate, stale_example

ROOT = Path(__file__).resolve().parents[1]
MODULES = ROOT / "modules"
COGN = [sys.executable, "-m", "cogtui.cli"]
FAIL_ABOVE = 1.2  # a sweep growing faster than this fails `make bench`
ITEM_BYTES = 320  # each change of the diagnostics sweep: 2,000 of them make the 640 KB file of the issue


def stale_items(folder: Path, count: int) -> list[str]:
    """api-naming-reviewer whose example answer lists `count` changes, each missing `risk`: `cogn validate` args."""
    module = stale_example(folder / f"diagnostics-{count}" / "api-naming-reviewer", count, ITEM_BYTES)
    return ["validate", str(module)]


def many_modules(folder: Path, count: int) -> list[str]:
    root = folder / f"modules-{count}"
    root.mkdir()
    generate(root, count)
    return ["validate", "--all", "--path", str(root)]


def wide_schema(folder: Path, count: int) -> list[str]:
    module = folder / f"schema-{count}" / "code-reviewer"
    shutil.copytree(MODULES / "code-reviewer", module)
    schema = json.loads((module / "schema.json").read_text(encoding="utf-8"))
    fields = schema["data"]["properties"]
    for n in range(count):
        fields[f"field_{n}"] = {"type": "string", "description": f"field {n}", "maxLength": 100, "pattern": "^[a-z]+$"}
    (module / "schema.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    return ["validate", str(module)]


Maker = Callable[[Path, int], list[str]]
SWEEPS: dict[str, tuple[Maker, tuple[int, ...], str, str]] = {
    "diagnostics": (stale_items, (250, 500, 1000, 2000, 8000), "stale example items", "cogn validate MODULE"),
    "modules": (many_modules, (1, 8, 100, 1000), "generated modules", "cogn validate --all --path DIR"),
    "schema": (wide_schema, (625, 1250, 2500, 5000), "added schema properties", "cogn validate MODULE"),
}


def sweep(name: str, folder: Path, env: dict[str, str], repeat: int) -> dict[str, Any]:
    make, sizes, what, shown = SWEEPS[name]
    commands = {0: make(folder, 0), **{n: make(folder, n) for n in sizes}}
    runs: dict[int, list[tuple[float, float, float]]] = {n: [] for n in commands}
    for command in commands.values():
        measured([*COGN, *command], env, cwd=str(folder))  # warm the file cache
    for _ in range(repeat):
        for n, command in commands.items():
            runs[n].append(measured([*COGN, *command], env, cwd=str(folder)))
    base_cpu = min(cpu for _wall, cpu, _peak in runs[0])
    rows = []
    for n in commands:
        walls = [wall for wall, _cpu, _peak in runs[n]]
        rows.append(
            {
                "size": n,
                "wall_s": round(statistics.median(walls), 3),
                "cpu_s": round(min(cpu for _wall, cpu, _peak in runs[n]), 3),
                "peak_mb": max(peak for _wall, _cpu, peak in runs[n]),
            }
        )
    exponent = growth_exponent([(row["size"], row["cpu_s"] - base_cpu) for row in rows if row["size"]])
    return {"what": what, "command": shown, "rows": rows, "exponent": exponent}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", choices=tuple(SWEEPS), action="append", help="run these sweeps only")
    args = ap.parse_args()
    results: dict[str, Any] = {"load average (1 min)": round(os.getloadavg()[0], 1)}
    sweeps: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "COGNITIVE_MODULES_PATH": "", "COGTUI_JOBS": "1", "NO_COLOR": "1"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled modules are kept, as an install has them
        for name in args.only or SWEEPS:
            sweeps[name] = sweep(name, Path(tmp), env, args.repeat)
            for row in sweeps[name]["rows"]:
                print(
                    f"  {name:11} {row['size']:>6,}  {row['wall_s']:.3f} s wall  {row['cpu_s']:.3f} s CPU  "
                    f"{row['peak_mb']:.0f} MB",
                    flush=True,
                )
            print(f"  {name:11} growth exponent {sweeps[name]['exponent']}", flush=True)
    if "diagnostics" in sweeps:
        by_size = {row["size"]: row for row in sweeps["diagnostics"]["rows"]}
        results["2,000 located diagnostics (640 KB), wall s (target <= 0.3)"] = by_size[2000]["wall_s"]
        results["8,000 located diagnostics, wall s (target <= 1)"] = by_size[8000]["wall_s"]
        results["8,000 located diagnostics, peak MB (target <= 100)"] = by_size[8000]["peak_mb"]
        results["diagnostics growth exponent (target <= 1.1)"] = sweeps["diagnostics"]["exponent"]
    for name in ("modules", "schema"):
        if name in sweeps:
            results[f"{name} growth exponent (target <= {FAIL_ABOVE})"] = sweeps[name]["exponent"]
    results["load average (1 min), at the end"] = round(os.getloadavg()[0], 1)
    results["sweeps"] = sweeps
    report("growth", results, machine())
    steep = [name for name, found in sweeps.items() if not found["exponent"] <= FAIL_ABOVE]
    if steep:
        print(f"growth exponent above {FAIL_ABOVE}: {', '.join(steep)}", file=sys.stderr)
    return 1 if steep else 0


if __name__ == "__main__":
    sys.exit(main())
