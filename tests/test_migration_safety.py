"""Migration and undo never reach outside the module, never destroy later work, and explain a damaged backup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from test_migration_kit import FIXTURES, copy_module, tree

from cogtui.core.authoring.migration import MigrationError, apply_plan, backups_for, plan_migration, undo_latest
from cogtui.core.files.transaction import FileTransaction, OutsideRootError
from cogtui.core.module.loader import load_module


def test_undo_keeps_a_deleted_file_that_was_recreated(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    apply_plan(plan_migration(load_module(root)))
    assert not (root / "MODULE.md").exists()
    (root / "MODULE.md").write_text("MY NEW WORK\n", encoding="utf-8")
    result = undo_latest("v1-triage", root)
    assert "MODULE.md" in result.edited_since
    assert (result.backup_dir / "edited" / "MODULE.md").read_text(encoding="utf-8") == "MY NEW WORK\n"
    assert (root / "MODULE.md").read_text(encoding="utf-8") == (FIXTURES / "v1-triage" / "MODULE.md").read_text(
        encoding="utf-8"
    )


def test_symlinked_examples_outside_the_module_are_refused_untouched(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path / "mods")
    shared = tmp_path / "shared-examples"
    shutil.move(str(root / "examples"), shared)
    (shared / "someone-elses.txt").write_text("keep me\n", encoding="utf-8")
    (root / "examples").symlink_to(shared, target_is_directory=True)
    before_module, before_shared = tree(root), tree(shared)
    plan = plan_migration(load_module(root))
    # The confined reader refuses the linked examples when loading (F001), which blocks the plan itself.
    assert plan.errors and "outside the module folder" in str(plan.errors[0])
    with pytest.raises(MigrationError):
        apply_plan(plan)
    assert tree(root) == before_module and tree(shared) == before_shared
    assert backups_for("v1-triage") == []


def test_a_symlinked_folder_inside_the_module_is_not_removed_as_if_empty(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    shutil.move(str(root / "examples"), root / "real-examples")
    (root / "examples").symlink_to("real-examples", target_is_directory=True)
    apply_plan(plan_migration(load_module(root)))
    assert (root / "examples").is_symlink()  # left alone: a link is not a folder the migration emptied


def test_transaction_refuses_paths_that_climb_out(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    tx = FileTransaction(tmp_path / "inside")
    tx.write("../outside.txt", b"x")
    with pytest.raises(OutsideRootError):
        tx.commit()
    assert not (tmp_path / "outside.txt").exists()


@pytest.mark.parametrize("damage", ["missing file", "no path", "changes not a list", "path climbs out"])
def test_a_damaged_backup_is_reported_and_changes_nothing(damage: str, tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path / "mods")
    apply_plan(plan_migration(load_module(root)))
    [backup] = backups_for("v1-triage")
    manifest = json.loads((backup / "backup.json").read_text(encoding="utf-8"))
    if damage == "missing file":
        (backup / "files" / "schema.json").unlink()
    elif damage == "no path":
        del manifest["changes"][0]["path"]
    elif damage == "changes not a list":
        manifest["changes"] = {"path": "x"}
    else:
        manifest["changes"][0].update(path="../../victim.txt", action="create")
        (tmp_path / "victim.txt").write_text("victim\n", encoding="utf-8")
    (backup / "backup.json").write_text(json.dumps(manifest), encoding="utf-8")
    migrated = tree(root)
    with pytest.raises(MigrationError):
        undo_latest("v1-triage", root)
    assert tree(root) == migrated
    if damage == "path climbs out":
        assert (tmp_path / "victim.txt").read_text(encoding="utf-8") == "victim\n"


def _cogn(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COGNITIVE_MODULES_PATH"}
    env.update(HOME=str(tmp_path / "home"), COGTUI_DATA_DIR=str(tmp_path / "data"))
    return run_cli(["migrate", "--path", str(tmp_path / "mods"), *args], cwd=os.getcwd(), env=env)


@pytest.mark.parametrize("flag", [["--dry-run"], ["--to", "2.5"], ["--no-backup"], ["--all"]])
def test_undo_refuses_flags_it_cannot_honour(flag: list[str], tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    root = copy_module(FIXTURES / "v1-triage", tmp_path / "mods")
    assert _cogn(tmp_path, "v1-triage").returncode == 0
    migrated = tree(root)
    proc = _cogn(tmp_path, "--undo", "v1-triage", *flag)
    assert proc.returncode == 2 and "--undo takes only the module NAME" in proc.stderr and flag[0] in proc.stderr
    assert tree(root) == migrated  # nothing undone


def test_undo_of_a_damaged_backup_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    copy_module(FIXTURES / "v1-triage", tmp_path / "mods")
    assert _cogn(tmp_path, "v1-triage").returncode == 0
    [backup] = (tmp_path / "data" / "backups" / "v1-triage").iterdir()
    (backup / "files" / "schema.json").unlink()
    proc = _cogn(tmp_path, "--undo", "v1-triage")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "nothing was changed" in proc.stderr and "schema.json" in proc.stderr


def test_a_module_loaded_before_an_edit_is_planned_from_the_edit(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v21-reviewer", tmp_path)
    module = load_module(root)
    schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    schema["x-added-after-loading"] = {"keep": True}
    (root / "schema.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    plan = plan_migration(module)  # the module object predates the edit
    assert plan.ok, [str(e) for e in plan.errors]
    apply_plan(plan)
    assert json.loads((root / "schema.json").read_text(encoding="utf-8"))["x-added-after-loading"] == {"keep": True}
