"""`cogn validate` as a user runs it: a regular (non-editable) install, on eight reference-like modules.

    .venv/bin/python bench/bench_reference.py [--repeat 11]

The install: the wheel built from the sources (as tests/tui/test_wheel_install.py builds it), installed
without its dependencies into a venv of its own under bench/out/ (rebuilt when a source file changed), whose
`.pth` reaches the project venv's site-packages for the dependencies (and not its editable cogtui). The
modules: tests/realworld's seven and the bundled code-reviewer, in one search path folder.

Figures: a one-module cold `cogn validate` (code-reviewer), and `cogn validate --all` over the eight in one
process; the cost of each module after the first is (all eight - one) / 7. Wall times are medians, CPU times
(user + system) the least of the runs; the runs alternate. The TypeScript reference CLI
(`cognitive-modules-cli` on npm) is the comparator when npm can install it into bench/out; when it cannot,
the figure says why and the absolute targets stand alone.
Targets (issue 31): one-module cold validate < 100 ms; each extra module of `validate --all` <= 5 ms;
`validate --all` <= 0.5x the TypeScript CLI's.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, measured, report

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
REFERENCE = [
    *sorted(p for p in (ROOT / "tests" / "realworld").iterdir() if p.is_dir()),
    ROOT / "modules" / "code-reviewer",
]
TS_PACKAGE = "cognitive-modules-cli"


def sources_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "cogtui").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(ROOT).as_posix().encode())
            digest.update(path.read_bytes())
    digest.update((ROOT / "pyproject.toml").read_bytes())
    return digest.hexdigest()[:16]


def regular_install() -> Path:
    """The python of a venv where cogtui is installed from its wheel (built again when the sources changed)."""
    venv = OUT / "regular"
    stamp = venv / "sources.sha256"
    digest = sources_digest()
    python = venv / "bin" / "python"
    if stamp.is_file() and stamp.read_text() == digest and python.exists():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "cogtui", src / "cogtui", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, src / name)
        quiet = {"check": True, "stdout": subprocess.DEVNULL}
        pip = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", f"{tmp}/dist", str(src)]
        subprocess.run(pip, **quiet)  # type: ignore[call-overload]
        (wheel,) = Path(tmp, "dist").glob("cogtui-*.whl")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], **quiet)  # type: ignore[call-overload]
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], **quiet)  # type: ignore[call-overload]
    site = Path(sysconfig.get_paths()["purelib"])  # the project venv's: the dependencies, as plain paths
    target = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (target / "project-dependencies.pth").write_text(f"{site}\n", encoding="utf-8")
    stamp.write_text(digest)
    return python


def typescript_cli() -> tuple[Path | None, str]:
    """The TypeScript CLI's executable installed under bench/out/ts-cli, or None and why not."""
    folder = OUT / "ts-cli"
    found = sorted((folder / "node_modules" / ".bin").glob("cog*")) if folder.is_dir() else []
    if found:
        return found[0], ""
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(
            [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", TS_PACKAGE],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"npm install {TS_PACKAGE} timed out"
    found = sorted((folder / "node_modules" / ".bin").glob("cog*"))
    if proc.returncode != 0 or not found:
        first = next((line for line in proc.stderr.splitlines() if "npm error" in line and "code" not in line), "")
        reason = first.removeprefix("npm error").split(" - ")[0].strip()  # "404 Not Found", without the address
        return None, f"npm install {TS_PACKAGE} failed: {reason or f'exit status {proc.returncode}'}"
    return found[0], ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=11)
    args = ap.parse_args()
    results: dict[str, Any] = {"load average (1 min)": round(os.getloadavg()[0], 1)}
    python = regular_install()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "cognitive" / "modules"  # the project search path of the spec, for either CLI
        for module in REFERENCE:
            shutil.copytree(module, root / module.name, ignore=shutil.ignore_patterns("__pycache__"))
        home = Path(tmp) / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "COGNITIVE_MODULES_PATH": "", "NO_COLOR": "1"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        commands = {
            "one": [str(python), "-m", "cogtui.cli", "validate", str(root / "code-reviewer")],
            "all": [str(python), "-m", "cogtui.cli", "validate", "--all", "--path", str(root)],
        }
        ts, why_not = typescript_cli()
        if ts is not None:
            commands["ts all"] = [str(ts), "validate", "--all"]
        for command in commands.values():
            measured(command, env, cwd=tmp)  # warm the file cache and the compiled modules
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                runs[name].append(measured(command, env, cwd=tmp))
    wall = {name: statistics.median(w for w, _c, _p in found) for name, found in runs.items()}
    cpu = {name: min(c for _w, c, _p in found) for name, found in runs.items()}
    results["one-module cold validate (regular install), ms wall (target < 100)"] = round(wall["one"] * 1000, 1)
    results["one-module cold validate (regular install), ms CPU"] = round(cpu["one"] * 1000, 1)
    results["validate --all, 8 reference-like modules, ms wall"] = round(wall["all"] * 1000, 1)
    results["validate --all, 8 reference-like modules, ms CPU"] = round(cpu["all"] * 1000, 1)
    results["each extra module, ms CPU (target <= 5)"] = round((cpu["all"] - cpu["one"]) * 1000 / 7, 1)
    results["each extra module, ms wall"] = round((wall["all"] - wall["one"]) * 1000 / 7, 1)
    if ts is not None:
        results["TypeScript CLI validate --all, ms wall"] = round(wall["ts all"] * 1000, 1)
        results["validate --all / TypeScript CLI's (target <= 0.5)"] = round(wall["all"] / wall["ts all"], 2)
    else:
        results["TypeScript CLI comparator"] = f"not available: {why_not}"
    results["load average (1 min), at the end"] = round(os.getloadavg()[0], 1)
    report("reference", results, machine())


if __name__ == "__main__":
    main()
