"""A migration whose rename is refused rolls back whole; a rollback that cannot put a file back says so.

Before: a rename refused by the file system (an immutable file, another user's file in a sticky-bit folder)
was marked touched before it happened, so the rollback tried to rewrite that very file, failed, and stopped
half-way: the module stayed half-migrated, the journal and a temp file stayed, the backup was deleted, and
cogn said "rolled back". The next `migrate --dry-run` then finished the half migration, writing files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from test_migration_kit import MODULES, copy_module, tree

from cogtui.core.authoring.migration import MigrationError, apply_plan, backups_for, plan_migration, undo_latest
from cogtui.core.files.journal import JOURNAL
from cogtui.core.files.transaction import FileTransaction, RollbackIncomplete
from cogtui.core.module.loader import load_module

NAME = "api-naming-reviewer"  # v2.1: the migration rewrites module.yaml, prompt.md and schema.json, in that order


@contextmanager
def immutable(path: Path) -> Iterator[None]:
    """`path` immutable (chattr +i): not even root may replace or rewrite it."""
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.fail("chattr (e2fsprogs) is needed: apt-get install e2fsprogs")
    subprocess.run([chattr, "+i", str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".cogtui-tmp") or p.name == JOURNAL)


def test_a_refused_rename_rolls_the_whole_migration_back(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(MODULES / NAME, tmp_path / "mods")
    before = tree(root)
    plan = plan_migration(load_module(root))
    assert [f.path for f in plan.files][-1] == "schema.json"  # renamed last: the others are renamed before it
    with immutable(root / "schema.json"), pytest.raises(MigrationError) as info:
        apply_plan(plan)
    assert "Operation not permitted" in str(info.value) and "every change was rolled back" in str(info.value)
    assert str(root / "schema.json") in str(info.value)  # the file refused, not the temp file renamed onto it
    assert tree(root) == before
    assert leftovers(root) == []
    assert backups_for(NAME) == []


def test_the_cli_says_so_and_a_later_dry_run_writes_nothing(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(MODULES / NAME, tmp_path / "mods")
    before = tree(root)
    env = {**os.environ, "HOME": str(tmp_path), "NO_COLOR": "1"}
    with immutable(root / "schema.json"):
        done = run_cli(["migrate", str(root)], cwd=tmp_path, env=env)
    assert done.returncode == 1
    assert "every change was rolled back" in done.stderr and "internal error" not in done.stderr
    assert tree(root) == before
    (root / JOURNAL).write_text('{"state": "renaming", "writes": [], "deletes": [], "made_dirs": []}', "utf-8")
    journal_left = tree(root)
    dry = run_cli(["migrate", str(root), "--dry-run"], cwd=tmp_path, env=env)
    assert tree(root) == journal_left  # an interrupted change is not finished by a dry run
    assert dry.returncode == 1 and "a dry run writes nothing" in dry.stderr


def test_a_rollback_that_cannot_put_a_file_back_puts_back_the_others_and_names_it(tmp_path: Path) -> None:
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_bytes(b"old " + name.encode())
    tx = FileTransaction(tmp_path)
    tx.write("a.txt", b"new a")
    tx.write("b.txt", b"new b")
    tx.commit()
    (tmp_path / "a.txt").unlink()
    (tmp_path / "a.txt").mkdir()  # what a.txt became cannot be written over
    (tmp_path / "a.txt" / "keep").write_text("x", encoding="utf-8")
    with pytest.raises(RollbackIncomplete) as info:
        tx.rollback()
    assert [path for path, _ in info.value.failed] == [tmp_path / "a.txt"]
    assert "could not put back a.txt" in str(info.value)
    assert (tmp_path / "b.txt").read_bytes() == b"old b.txt"  # the other file was put back all the same
    shutil.rmtree(tmp_path / "a.txt")
    tx.rollback()  # a second rollback tries what was left
    assert (tmp_path / "a.txt").read_bytes() == b"old a.txt"


def test_a_migration_it_cannot_roll_back_keeps_its_backup_and_says_how_to_undo(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_module(MODULES / NAME, tmp_path / "mods")
    before = tree(root)
    real_rollback = FileTransaction.rollback

    def rollback_leaving_one(tx: FileTransaction) -> None:  # as if module.yaml had been locked meanwhile
        real_rollback(tx)
        manifest = root / "module.yaml"
        manifest.write_text("half migrated\n", encoding="utf-8")
        raise RollbackIncomplete([(manifest, PermissionError(1, "Operation not permitted"))])

    monkeypatch.setattr(FileTransaction, "rollback", rollback_leaving_one)
    with immutable(root / "schema.json"), pytest.raises(MigrationError) as info:
        apply_plan(plan_migration(load_module(root)))
    monkeypatch.setattr(FileTransaction, "rollback", real_rollback)
    message = str(info.value)
    assert "could not be fully rolled back (could not put back module.yaml: Operation not permitted)" in message
    assert f"cogn migrate --undo {NAME}" in message
    [backup] = backups_for(NAME)
    assert str(backup) in message
    undo_latest(NAME, root)  # the backup it kept puts everything back
    assert tree(root) == before
