"""A new module's name must be one discovery finds: the scaffold refuses what discovery skips, with its reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cogtui.core.authoring.scaffold import ScaffoldError, check_name, create_module
from cogtui.core.module.discovery import SearchPath, discover, is_candidate_name, skipped_name_reason

MODULES = Path(__file__).resolve().parents[1] / "modules"
SKIPPED = ["triage.bak", "backups", "backup", "notes.orig", "triage.old", "x.tmp", "node_modules", "triage.bak.2"]
FOUND = ["ticket-triage", "bakery", "v2.backend", "orig-notes", "my_backups_tool"]


def _discovered(root: Path, names: list[str], tmp_path: Path) -> set[str]:
    for name in names:  # a real module under each name, so only the name decides
        shutil.copytree(MODULES / "code-reviewer", root / name)
    search_path = SearchPath.from_environment([root], cwd=tmp_path, home=tmp_path / "home", env={})
    return {e.name for e in discover(search_path).entries}


def test_check_name_refuses_exactly_the_names_discovery_skips(tmp_path: Path) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    found = _discovered(root, SKIPPED + FOUND, tmp_path)
    assert found == set(FOUND)
    for name in SKIPPED:
        problem = check_name(name, tmp_path / "elsewhere")
        assert problem is not None and "discovery skips it" in problem, name
        assert skipped_name_reason(name) is not None and not is_candidate_name(name)
    for name in FOUND:
        assert check_name(name, tmp_path / "elsewhere") is None and skipped_name_reason(name) is None


def test_the_reason_names_the_rule() -> None:
    assert "'.bak'" in (skipped_name_reason("triage.bak") or "")
    assert "'backups'" in (skipped_name_reason("backups") or "")
    assert "hidden" in (skipped_name_reason(".triage") or "")


def test_create_module_refuses_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="backups or editor leftovers"):
        create_module(tmp_path, "triage.bak", "decision")
    assert list(tmp_path.iterdir()) == []
