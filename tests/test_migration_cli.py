"""`cogn migrate` as a real process: dry runs change nothing, --all isolates failures, exit codes, --undo."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run_cli
from cli_json import document
from test_migration_kit import FIXTURES, MODULES, copy_module, tree

from cogtui.core.module.loader import load_module


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """A search path with v0, v1, v2.1 and v2.2 modules, and a HOME and data folder of its own."""
    mods = tmp_path / "mods"
    mods.mkdir()
    for name in ("legacy-summarizer", "commit-message-writer", "code-reviewer"):
        copy_module(MODULES / name, mods)
    copy_module(FIXTURES / "v21-reviewer", mods)
    (tmp_path / "home").mkdir()
    return tmp_path


def cogn(world: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "FORCE_COLOR", "NO_COLOR")}
    env.update(HOME=str(world / "home"), COGTUI_DATA_DIR=str(world / "data"), PYTHONIOENCODING="utf-8", **extra_env)
    return run_cli(["migrate", "--path", str(world / "mods"), *args], cwd=world, env=env)


def test_all_dry_run_changes_nothing_and_reads_plainly(world: Path) -> None:
    before = tree(world)
    proc = cogn(world, "--all", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert tree(world) == before
    out = proc.stdout
    assert "\x1b[" not in out
    assert "commit-message-writer: v1 -> v2.2" in out and "+## Response Format (Envelope v2.2)" in out
    assert "code-reviewer: already v2.2; nothing to change" in out
    assert "4 modules: 3 would migrate, 1 already current, 0 failed" in out
    assert out.rstrip().endswith("dry run: nothing was written")
    file_lines = [line for line in out.splitlines() if line.startswith(("  create ", "  delete ", "  modify "))]
    assert file_lines and not [line for line in file_lines if line != line.rstrip()]  # padded only before a note


def test_colour_on_a_terminal(world: Path) -> None:
    """FORCE_COLOR stands in for a TTY: Rich colours the diffs and draws the progress bar."""
    before = tree(world)
    proc = cogn(world, "--all", "--dry-run", FORCE_COLOR="1", COLUMNS="120")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" in proc.stdout and "would migrate" in proc.stdout
    assert tree(world) == before


def test_all_json_dry_run_shape(world: Path) -> None:
    proc = cogn(world, "--all", "--dry-run", "--json", "--to", "2.5")
    assert proc.returncode == 0, proc.stderr
    data = document(proc.stdout, "migrate")
    assert data["summary"]["migrated"] == 4 and data["summary"]["failed"] == 0 and data["summary"]["dry_run"] is True
    plan = next(p for p in data["modules"] if p["module"] == "legacy-summarizer")
    assert plan["from"] == "v0" and plan["to"] == "v2.5" and plan["result"] == "would migrate"
    assert {f["path"]: f["action"] for f in plan["files"]}["prompt.txt"] == "delete"
    assert any(n.startswith("tier: inferred decision") for n in plan["notes"])


def test_all_isolates_a_broken_module(world: Path) -> None:
    broken = world / "mods" / "broken-one"
    broken.mkdir()
    (broken / "MODULE.md").write_text(
        "---\nname: broken-one\nversion: 1.0.0\nexcludes: [a\n---\nprompt\n", encoding="utf-8"
    )
    (broken / "schema.json").write_text('{"input": {}, "output": {}}', encoding="utf-8")
    broken_before = tree(broken)
    proc = cogn(world, "--all")
    assert proc.returncode == 1
    assert tree(broken) == broken_before
    for name in ("legacy-summarizer", "commit-message-writer", "v21-reviewer"):
        assert load_module(world / "mods" / name).format.value == "v2.2"
    out = proc.stdout
    assert "5 modules: 3 migrated, 1 already current, 1 failed" in out
    row = next(line for line in out.splitlines() if line.startswith("broken-one"))
    assert "failed" in row and "MODULE.md:4:11:" in row  # the [ that is never closed


def test_bad_input_exit_1_names_file_and_line_and_writes_nothing(world: Path) -> None:
    mod = world / "mods" / "commit-message-writer"
    text = (mod / "MODULE.md").read_text(encoding="utf-8").replace("context: main", "context: [main")
    (mod / "MODULE.md").write_text(text, encoding="utf-8")
    before = tree(world)
    proc = cogn(world, "commit-message-writer")
    assert proc.returncode == 1
    # Located at the [ that is never closed (CODE-7).
    assert (
        f"{mod / 'MODULE.md'}:23:10 " in proc.stderr and "P001" in proc.stderr and "nothing was written" in proc.stderr
    )
    assert tree(world) == before


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_text("name: code-reviewer\nversion: [1\n", encoding="utf-8"), id="yaml-syntax"),
        pytest.param(lambda p: p.write_text("- a\n- b\n", encoding="utf-8"), id="a-list"),
        pytest.param(lambda p: p.write_bytes("name: caf\xe9\n".encode("latin-1")), id="latin-1"),
        pytest.param(lambda p: (p.unlink(), p.mkdir()), id="a-directory"),
    ],
)
def test_a_manifest_that_cannot_be_read_is_never_already_current(world: Path, damage: Any) -> None:
    """Its format would be a guess: "already v2.2; nothing to change" (exit 0) was a pass for a broken module."""
    damage(world / "mods" / "code-reviewer" / "module.yaml")
    before = tree(world)
    for args in (["code-reviewer", "--dry-run"], ["code-reviewer"]):
        proc = cogn(world, *args)
        assert proc.returncode == 1, proc.stdout
        assert "code-reviewer" in proc.stderr and "cannot migrate" in proc.stderr and "module.yaml" in proc.stderr
        assert "already" not in proc.stdout + proc.stderr
    assert tree(world) == before


def test_single_migration_then_undo(world: Path) -> None:
    mod = world / "mods" / "legacy-summarizer"
    before = tree(mod)
    proc = cogn(world, "legacy-summarizer")
    assert proc.returncode == 0, proc.stderr
    assert "migrated legacy-summarizer (v0 -> v2.2)" in proc.stdout
    backups = list((world / "data" / "backups" / "legacy-summarizer").iterdir())
    assert len(backups) == 1 and str(backups[0]) in proc.stdout
    again = cogn(world, "legacy-summarizer")
    assert again.returncode == 0 and "already v2.2; nothing to change" in again.stdout
    undo = cogn(world, "--undo", "legacy-summarizer")
    assert undo.returncode == 0, undo.stderr
    assert tree(mod) == before
    assert cogn(world, "--undo", "legacy-summarizer").returncode == 1


def test_usage_errors(world: Path) -> None:
    assert cogn(world).returncode == 2
    assert cogn(world, "no-such-module").returncode == 2
    proc = cogn(world, "--undo", "code-reviewer")
    assert proc.returncode == 1 and "no migration backup" in proc.stderr
