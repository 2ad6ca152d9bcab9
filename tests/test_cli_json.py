"""Every command's `--json` prints one versioned document (D212, docs/cli.md), checked against its JSON Schema;
`--json` and the cache flags never read the module name as their value (D210); a mistyped name given to
`history`, `insights` or `migrate --undo` names the nearest module (D211)."""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_json import SCHEMA, document
from modkit import run_cogn

from cogtui.cli import COMMANDS

MODULES = Path(__file__).resolve().parents[1] / "modules"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
CASE = str(MODULES / "code-reviewer" / "tests" / "case1.input.json")


class World:
    """A working folder with two bundled modules (one legacy) on --path, and a run history of one replay run."""

    def __init__(self, tmp: Path) -> None:
        self.cwd = tmp
        self.mods = tmp / "mods"
        for name in ("code-reviewer", "legacy-summarizer"):
            shutil.copytree(MODULES / name, self.mods / name)
        done = self.cogn("run", "code-reviewer", "--input", CASE, "--provider", "replay")
        assert done.returncode == 0, done.stderr

    def cogn(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        proc = run_cogn(["--path", str(self.mods), *args], cwd=self.cwd, stdin=stdin)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def printed(world: World, command: str, *args: str, code: int = 0, stdin: str | None = None) -> dict[str, Any]:
    proc = world.cogn(*args, stdin=stdin)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return document(proc.stdout, command)


ENVELOPE = json.dumps({"ok": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "x"}, "data": {}})


@pytest.mark.parametrize(
    ("command", "args", "code"),
    [
        ("list", ["list", "--json"], 0),
        ("validate", ["validate", "code-reviewer", "--json"], 0),
        ("validate", ["validate", "--all", "--json"], 0),
        ("check", ["check", "--json", "-"], 1),
        ("run", ["run", "code-reviewer", "--input", CASE, "--provider", "replay", "--no-history", "--json"], 0),
        ("run", ["run", "no-such-module", "--json"], 2),
        ("test", ["test", "code-reviewer", "--provider", "replay", "--json"], 0),
        ("eval", ["eval", "code-reviewer", "--provider", "replay", "--no-history", "--json"], 0),
        ("history", ["history", "--json"], 0),
        ("insights", ["insights", "--json"], 0),
        ("migrate", ["migrate", "legacy-summarizer", "--dry-run", "--json"], 0),
        ("migrate", ["migrate", "--all", "--dry-run", "--json"], 0),
    ],
)
def test_every_json_document_has_the_one_shape(world: World, command: str, args: list[str], code: int) -> None:
    doc = printed(world, command, *args, code=code, stdin=ENVELOPE)
    assert doc["format"] == 1 and isinstance(doc["summary"], dict)


def test_the_run_s_document_carries_its_envelope_and_the_history_lists_it(world: World) -> None:
    ran = printed(world, "run", "run", "code-reviewer", "--input", CASE, "--provider", "replay", "--json")
    [entry] = ran["modules"]
    assert entry["module"] == "code-reviewer" and entry["envelope"]["ok"] is True
    assert ran["summary"] == {"ok": True, "error_code": None, "provider": "replay", "model": "replay"}
    listed = printed(world, "history", "history", "--json")
    assert listed["summary"] == {"runs": 2, "module": None, "limit": 50, "waiting": 0}
    assert listed["items"][0]["envelope"] == entry["envelope"]


def test_an_import_and_an_undo_print_the_document_too(world: World) -> None:
    exported = world.cogn("history", "export")
    dump = world.cwd / "runs.ndjson"
    dump.write_text(exported.stdout + "{not json}\n", encoding="utf-8")
    imported = printed(world, "history import", "history", "import", str(dump), "--json", code=1)
    assert imported["summary"] == {"file": str(dump), "imported": 0, "duplicates": 1, "bad": 1}
    assert [bad["line"] for bad in imported["items"]] == [2]
    assert world.cogn("migrate", "legacy-summarizer").returncode == 0
    undone = printed(world, "migrate", "migrate", "--undo", "legacy-summarizer", "--json")
    [entry] = undone["modules"]
    assert (entry["module"], entry["result"], undone["summary"]) == ("legacy-summarizer", "undone", {"undone": 1})


def json_commands() -> list[str]:
    """The commands whose parser has a --json flag, read from the commands themselves."""
    found = []
    for name, (module, _) in COMMANDS.items():
        parser = argparse.ArgumentParser(prog=name)
        importlib.import_module(module).configure(parser)
        if "[--json]" in parser.format_usage():
            found.append(name)
    return found


def test_the_schema_and_the_reference_cover_every_command() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert set(json_commands()) <= set(schema["properties"]["command"]["enum"])
    text = DOCS.read_text(encoding="utf-8")
    assert all(f"`cogn {name}" in text or f"`cogtui {name}" in text for name in COMMANDS)


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("validate", ["validate", "--json", "code-reviewer"]),
        ("run", ["run", "--json", "code-reviewer", "--input", CASE, "--provider", "replay", "--no-history"]),
        ("test", ["test", "--json", "code-reviewer", "--provider", "replay"]),
        ("prompt", ["prompt", "--json", "code-reviewer", "--input", CASE]),
        ("eval", ["eval", "--json", "code-reviewer", "--provider", "replay", "--no-history"]),
        ("migrate", ["migrate", "--json", "code-reviewer", "--dry-run"]),
        ("history", ["history", "--json", "code-reviewer"]),
        ("insights", ["insights", "--json", "code-reviewer"]),
        ("check", ["check", "--json", "--module", "code-reviewer", CASE, "--kind", "input"]),
    ],
)
def test_json_before_the_module_name_never_takes_it(world: World, command: str, args: list[str]) -> None:
    doc = printed(world, command, *args)
    entries = doc.get("modules") or doc.get("items")
    assert entries, doc
    names = {e.get("module") for e in entries}
    assert names <= {"code-reviewer", None}, names


@pytest.mark.parametrize("flag", ["--cache", "--cache=any"])
def test_cache_flags_before_the_module_name_never_take_it(world: World, flag: str) -> None:
    doc = printed(world, "eval", "eval", flag, "code-reviewer", "--provider", "replay", "--json")
    assert doc["summary"]["modules"] == ["code-reviewer"] and doc["summary"]["passed"] == 3


def test_an_old_json_file_argument_is_refused_with_the_way_to_write_a_file(world: World) -> None:
    proc = world.cogn("eval", "code-reviewer", "--json", "report.json")
    assert proc.returncode == 2
    assert "unrecognized arguments: report.json (--json takes no file" in proc.stderr
    assert "`-o FILE` writes the file" in proc.stderr
    assert not (world.cwd / "report.json").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["history", "code-reviwer"], "no runs of 'code-reviwer' recorded, and no module of that name"),
        (["insights", "code-reviwer"], "no runs of 'code-reviwer' recorded, and no module of that name"),
        (["migrate", "--undo", "code-reviwer"], "no module or migration backup named 'code-reviwer'"),
    ],
)
def test_history_insights_and_undo_name_the_nearest_module(world: World, args: list[str], said: str) -> None:
    proc = world.cogn(*args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == f"cogn: {said}; did you mean 'code-reviewer'?"


def test_a_module_that_has_not_run_yet_is_no_typo(world: World) -> None:
    """legacy-summarizer is on the search path and has no runs: nothing listed, no guess, exit 0."""
    for command in ("history", "insights"):
        proc = world.cogn(command, "legacy-summarizer")
        assert proc.returncode == 0 and "did you mean" not in proc.stderr, proc.stderr
    proc = world.cogn("migrate", "--undo", "far-from-every-name")
    assert proc.returncode == 1 and "did you mean" not in proc.stderr
