"""`cogn test` on a module that cannot run (contract_status.run_blockers): said once, with the refusal's code and
suggestion, its cases counted as failed, exit 1; never one failed diff per case; other modules still run."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_json import document
from modkit import run_cogn

MODULES = Path(__file__).resolve().parents[1] / "modules"


def _world(tmp_path: Path) -> Path:
    root = tmp_path / "mods"
    for name in ("code-reviewer", "release-notes"):
        shutil.copytree(MODULES / name, root / name)
    (root / "code-reviewer" / "schema.json").unlink()
    return root


def test_a_module_that_cannot_run_is_said_once(tmp_path: Path) -> None:
    root = _world(tmp_path)
    proc = run_cogn(["--path", str(root), "test", "--all"], cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    refusals = [line for line in lines if "CANNOT RUN" in line]
    assert len(refusals) == 1 and "code-reviewer: E4000" in refusals[0] and "schema.json is missing" in refusals[0]
    assert "suggestion: Run `cogn validate code-reviewer`" in proc.stdout
    assert not any("code-reviewer/case" in line for line in lines)  # no per-case diff
    assert "✓ pass  release-notes/case1" in proc.stdout
    assert lines[-1] == "5 cases: 2 passed, 3 failed (3 of modules that cannot run)"


def test_json_names_the_refusal(tmp_path: Path) -> None:
    root = _world(tmp_path)
    proc = run_cogn(["--path", str(root), "test", "code-reviewer", "--json"], cwd=tmp_path)
    assert proc.returncode == 1
    doc = document(proc.stdout, "test")
    assert (doc["summary"]["passed"], doc["summary"]["failed"], doc["summary"]["cannot_run"]) == (0, 3, 3)
    (entry,) = doc["modules"]
    assert entry["module"] == "code-reviewer" and entry["cases"] == []
    assert entry["cannot_run"]["code"] == "E4000"
