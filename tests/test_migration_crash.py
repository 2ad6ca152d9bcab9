"""A migration killed (SIGKILL) at every step of its transaction: the next run finishes or rolls it back.

Before the journal (issue 11), a kill between the renames left the module half
old, half new; the next `migrate` said it was already v2.2, `undo` misreported,
and `.cogtui-tmp` files stayed behind. Each step is killed in a real `cogn`
process through the fault-injection hook COGTUI_FAULT_AT.
"""

from __future__ import annotations

import shutil
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from rtkit import MODULES, cli_env, cogn

from cogtui.core.files.journal import FAULT_ENV, JOURNAL

NAME = "legacy-summarizer"  # v0: the migration creates, modifies and deletes files


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.name.endswith(".cogtui-tmp") or p.name == JOURNAL]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The folder as an uninterrupted migration leaves it."""
    tmp = tmp_path_factory.mktemp("reference")
    shutil.copytree(MODULES / NAME, tmp / "mods" / NAME)
    proc = cogn(tmp, "migrate", str(tmp / "mods" / NAME), path=None)
    assert proc.returncode == 0, proc.stderr
    return snapshot(tmp / "mods" / NAME)


RENAMES, DELETIONS = 6, 7  # what migrating legacy-summarizer does; test_the_steps_tried_are_all_there_are checks it
STEPS = (
    ["staged", "before-rename"]
    + [f"renamed-{n}" for n in range(1, RENAMES + 1)]
    + [f"deleted-{n}" for n in range(1, DELETIONS + 1)]
)


@pytest.mark.parametrize("beyond", [f"renamed-{RENAMES + 1}", f"deleted-{DELETIONS + 1}"])
def test_the_steps_tried_are_all_there_are(beyond: str, tmp_path: Path, migrated: dict[str, bytes]) -> None:
    """A fault point past the last rename or deletion never fires: the migration runs to its end."""
    folder = tmp_path / "mods" / NAME
    shutil.copytree(MODULES / NAME, folder)
    proc = cogn(tmp_path, "migrate", str(folder), env={**cli_env(tmp_path), FAULT_ENV: beyond}, path=None)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(folder) == migrated


@pytest.mark.parametrize("step", [*STEPS, "before-journal-removed"])
def test_killed_at_every_step_is_finished_or_rolled_back(step: str, tmp_path: Path, migrated: dict[str, bytes]) -> None:
    folder = tmp_path / "mods" / NAME
    shutil.copytree(MODULES / NAME, folder)
    original = snapshot(folder)
    env = cli_env(tmp_path)
    killed = cogn(tmp_path, "migrate", str(folder), env={**env, FAULT_ENV: step}, path=None)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert snapshot(folder) != migrated or step == "before-journal-removed"

    again = cogn(tmp_path, "migrate", str(folder), env=env, path=None)
    assert again.returncode == 0, again.stderr
    said = "rolled back" if step in ("staged", "before-rename") else "finished"
    assert f"interrupted migration or undo of {NAME} was found and {said}" in again.stderr
    assert snapshot(folder) == migrated  # finished (or rolled back, then migrated afresh): byte for byte
    assert leftovers(folder) == []

    undo = cogn(tmp_path, "migrate", "--undo", NAME, env=env, path=folder.parent)
    assert undo.returncode == 0, undo.stderr
    assert snapshot(folder) == original  # undo is exact
    assert leftovers(folder) == []
    backups = list((tmp_path / "data" / "backups" / NAME).iterdir())
    assert len(backups) == 1 and backups[0].name.endswith(".undone")  # a rolled-back try left no backup


def test_killed_undo_is_finished_on_the_next_undo(tmp_path: Path) -> None:
    folder = tmp_path / "mods" / NAME
    shutil.copytree(MODULES / NAME, folder)
    original = snapshot(folder)
    env = cli_env(tmp_path)
    assert cogn(tmp_path, "migrate", str(folder), env=env, path=None).returncode == 0
    killed = cogn(tmp_path, "migrate", "--undo", NAME, env={**env, FAULT_ENV: "renamed-1"}, path=folder.parent)
    assert killed.returncode == -signal.SIGKILL
    again = cogn(tmp_path, "migrate", "--undo", NAME, env=env, path=folder.parent)
    assert again.returncode == 0, again.stderr
    assert "was found and finished" in again.stderr
    assert snapshot(folder) == original and leftovers(folder) == []
