"""The Makefile's helper targets point at files that exist, and `make bench` knows every benchmark."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_script_the_makefile_runs_exists() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    scripts = re.findall(r"\$\(BIN\)/python\s+([\w./-]+\.py)\b", makefile)
    modules = re.findall(r"\$\(BIN\)/python\s+-m\s+([\w.]+)", makefile)
    assert "bench/run_all.py" in scripts
    for script in scripts:
        assert (ROOT / script).is_file(), f"the Makefile runs {script}, which does not exist"
    for module in modules:
        if module in ("pip", "pytest", "venv"):
            continue
        path = ROOT / Path(*module.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__main__.py").is_file(), f"no module {module}"


def test_run_all_covers_every_benchmark_and_refuses_unknown_names() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import run_all
    finally:
        sys.path.remove(str(ROOT / "bench"))
    on_disk = {p.stem.removeprefix("bench_") for p in (ROOT / "bench").glob("bench_*.py")}
    assert set(run_all.ORDER) == on_disk
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run_all.py"), "nonsense"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and "unknown benchmark(s): nonsense" in proc.stderr


def test_agents_md_lists_every_package_with_a_docstring() -> None:
    """AGENTS.md's layout has a line for each package of cogtui/ and cogtui/core/, and each says what it holds."""
    agents = (ROOT / "AGENTS.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^(cogtui/[\w/]*?)/?\s{2,}", agents, flags=re.MULTILINE))
    for init in sorted([*(ROOT / "cogtui").glob("*/__init__.py"), *(ROOT / "cogtui" / "core").glob("*/__init__.py")]):
        package = init.parent.relative_to(ROOT).as_posix()
        if package == "cogtui/core":
            continue  # its packages are the lines
        assert package in listed, f"AGENTS.md's layout has no line for {package}/"
        assert init.read_text(encoding="utf-8").lstrip().startswith('"""'), f"{package}/__init__.py says nothing"


def test_make_test_runs_every_check_and_pytest() -> None:
    # mypy and lint-imports run beside pytest (a sub-make with -j): a dry run still shows every command.
    proc = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for command in ("ruff check", "ruff format --check", "/mypy", "/lint-imports --no-cache", "-m pytest"):
        assert command in proc.stdout, f"make test no longer runs {command}"


def test_a_failing_check_fails_make_and_says_which(tmp_path: Path) -> None:
    fake = tmp_path / "mypy"
    fake.write_text("#!/bin/sh\necho 'cogtui/x.py:1: error: boom'\nexit 1\n")
    fake.chmod(0o755)
    stamp = tmp_path / ".stamp-dev"  # the dev tools are "installed": make runs the fake one
    stamp.touch()
    proc = subprocess.run(
        ["make", "--no-print-directory", "-o", str(stamp), f"BIN={tmp_path}", f"VENV={tmp_path}", "test-mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "cogtui/x.py:1: error: boom" in proc.stdout and "make test: test-mypy failed" in proc.stdout
    assert "test-mypy] Error 1" in proc.stderr
