"""`load_plan_file`: saved `cogn migrate --dry-run --json` plans, read back for review; clear errors, no traceback."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_migration_kit import MODULES, copy_module

from cogtui.core.authoring.migration import plan_migration
from cogtui.core.authoring.migration.plan import severity_of
from cogtui.core.authoring.migration.review import PlanFileError, ReviewPlan, load_plan_file
from cogtui.core.module.loader import load_module

NAMES = ("legacy-summarizer", "commit-message-writer", "api-naming-reviewer", "code-reviewer")


def cogn(world: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "FORCE_COLOR", "NO_COLOR")}
    env.update(HOME=str(world / "home"), COGTUI_DATA_DIR=str(world / "data"), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "cogtui.cli", *args],
        cwd=world,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Legacy modules and the plan files `cogn migrate --dry-run --json` writes for them (made once)."""
    world = tmp_path_factory.mktemp("review")
    (world / "home").mkdir()
    mods = world / "mods"
    mods.mkdir()
    for name in NAMES:
        copy_module(MODULES / name, mods)
    single = cogn(world, "migrate", "--path", str(mods), "legacy-summarizer", "--dry-run", "--json")
    assert single.returncode == 0, single.stderr
    (world / "single.json").write_text(single.stdout, encoding="utf-8")
    every = cogn(world, "migrate", "--path", str(mods), "--all", "--dry-run", "--json")
    assert every.returncode == 0, every.stderr
    (world / "all.json").write_text(every.stdout, encoding="utf-8")
    return world


def test_a_single_module_plan_reads_back_as_the_live_plan_does(world: Path) -> None:
    [plan] = load_plan_file(world / "single.json")
    assert (plan.module, plan.source_format, plan.target) == ("legacy-summarizer", "v0", "v2.2")
    assert plan.result == "would migrate" and plan.can_apply and not plan.errors
    first = plan.notes_to_confirm_first()[0]  # the planner's severities survive the file (MIG-6)
    assert first.startswith("tier:") and severity_of(first) == "confirm"
    assert {severity_of(n) for n in plan.notes} == {"confirm", "info"}
    by_path = {f.path: f for f in plan.files}
    assert by_path["module.yaml"].action == "create" and by_path["module.yaml"].content
    assert by_path["module.md"].action == "delete" and by_path["module.md"].content is None
    assert by_path["prompt.md"].source == "prompt.txt" and by_path["prompt.md"].encoding == "UTF-8"
    # What the TUI draws for a saved plan is exactly what it draws for the plan it computes itself.
    live = ReviewPlan.from_plan(plan_migration(load_module(world / "mods" / "legacy-summarizer")))
    assert dataclasses.replace(plan, result=None, reason=None) == live


def test_an_all_modules_plan_lists_every_module(world: Path) -> None:
    plans = {p.module: p for p in load_plan_file(world / "all.json")}
    assert set(plans) == set(NAMES)
    assert plans["code-reviewer"].already_current and not plans["code-reviewer"].can_apply
    assert plans["commit-message-writer"].counts() == {"create": 4, "modify": 1, "delete": 3}
    assert plans["api-naming-reviewer"].source_format == "v2.1"
    assert all(f.diff for f in plans["api-naming-reviewer"].files)


def test_plan_files_saved_before_the_json_document_had_a_format_still_read(world: Path) -> None:
    """`migrate --json` printed one plan, or `{"plans": [...]}` with --all, before format 1 (docs/cli.md): a plan
    saved then (a CI artifact) reads back as the same plans."""
    doc = json.loads((world / "all.json").read_text(encoding="utf-8"))
    assert (doc["format"], doc["command"]) == (1, "migrate")
    older = world / "older.json"
    older.write_text(json.dumps({"plans": doc["modules"], "summary": doc["summary"]}), encoding="utf-8")
    assert load_plan_file(older) == load_plan_file(world / "all.json")
    [one] = json.loads((world / "single.json").read_text(encoding="utf-8"))["modules"]
    older.write_text(json.dumps(one), encoding="utf-8")
    assert load_plan_file(older) == load_plan_file(world / "single.json")


def test_a_plan_with_errors_keeps_their_locations(tmp_path: Path) -> None:
    data = {
        "module": "broken",
        "from": "v1",
        "to": "v2.2",
        "files": [],
        "notes": [],
        "already_current": False,
        "errors": [
            {"message": "bad YAML", "file": "/m/broken/MODULE.md", "line": 3, "column": 7, "code": "P001", "hint": None}
        ],
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    [plan] = load_plan_file(path)
    assert not plan.can_apply
    assert plan.errors[0].location("/m/broken") == "MODULE.md:3:7" and plan.errors[0].code == "P001"


def test_a_bom_and_an_empty_plans_list_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"plans": [], "summary": {}}).encode())
    assert load_plan_file(path) == []


def _problem(tmp_path: Path, text: str | bytes) -> PlanFileError:
    path = tmp_path / "plan.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(PlanFileError) as caught:
        load_plan_file(path)
    assert str(path) in str(caught.value)
    return caught.value


def test_invalid_json_gives_line_and_column(tmp_path: Path) -> None:
    problem = _problem(tmp_path, '{\n  "module": "x",\n  "files": [,]\n}')
    assert (problem.line, problem.column) == (3, 13)
    assert "plan.json:3:13: invalid JSON" in str(problem)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[]", None, "expected a JSON object"),
        ('{"summary": {}}', None, "not a migration plan"),
        ('{"plans": {}}', "plans", "expected a list, got an object"),
        ('{"plans": [3]}', "plans[0]", "expected a plan object, got a number"),
        ('{"module": "m"}', "files", "missing"),
        ('{"module": 7, "files": []}', "module", "expected a string"),
        (
            '{"plans": [{"module": "m", "files": [{"path": "a", "action": "rename"}]}]}',
            "plans[0].files[0].action",
            "expected create, modify or delete",
        ),
        ('{"module": "m", "files": [{"action": "create"}]}', "files[0].path", "missing"),
        ('{"module": "m", "files": [], "notes": ["ok", 1]}', "notes[1]", "expected a string"),
        ('{"module": "m", "files": [], "errors": [{"line": 1}]}', "errors[0].message", "missing"),
        (
            '{"module": "m", "files": [], "errors": [{"message": "x", "line": true}]}',
            "errors[0].line",
            "expected a whole number",
        ),
        ('{"module": "m", "files": [], "already_current": "no"}', "already_current", "expected true/false"),
    ],
)
def test_a_wrong_shape_names_the_key(tmp_path: Path, text: str, key: str | None, words: str) -> None:
    problem = _problem(tmp_path, text)
    assert problem.key == key
    assert words in str(problem)
    if key:
        assert f"at {key}:" in str(problem)


def test_missing_empty_folder_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(PlanFileError, match="no such file"):
        load_plan_file(tmp_path / "nope.json")
    with pytest.raises(PlanFileError, match="is a folder"):
        load_plan_file(tmp_path)
    assert "empty" in str(_problem(tmp_path, "  \n"))
    assert "not UTF-8" in str(_problem(tmp_path, b"\xff\xfe{\x00}"))
    assert "nested too deeply" in str(_problem(tmp_path, "[" * 100_000))


def test_cogtui_review_reports_a_bad_file_without_a_traceback(world: Path) -> None:
    proc = cogn(world, "review", str(world / "nope.json"))
    assert proc.returncode == 2
    assert "nope.json: no such file" in proc.stderr and "Traceback" not in proc.stderr


def review_stdin(world: Path, data: bytes) -> subprocess.CompletedProcess[bytes]:
    """`cogtui review -` with `data` on stdin and no controlling terminal (a new session, as under cron or CI)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "FORCE_COLOR", "NO_COLOR")}
    env.update(HOME=str(world / "home"), COGTUI_DATA_DIR=str(world / "data"), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "cogtui.cli", "review", "-"],
        cwd=world,
        env=env,
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
        start_new_session=True,
    )


def test_review_dash_reads_the_plan_from_stdin_and_explains_what_is_wrong(world: Path) -> None:
    bad = review_stdin(world, b'{"plans": [\n  {"module": }]}')
    assert bad.returncode == 2 and b"Traceback" not in bad.stderr
    assert b"<stdin>:2:14: invalid JSON" in bad.stderr
    shape = review_stdin(world, b'{"plans": [{"module": "x"}]}')
    assert shape.returncode == 2 and b"<stdin>: invalid plan at plans[0].files: missing" in shape.stderr
    # A good plan is read whole; with no terminal to take keys from, that is said instead of a broken TUI.
    good = review_stdin(world, (world / "all.json").read_bytes())
    assert good.returncode == 2 and b"Traceback" not in good.stderr
    assert b"the plan was read, but there is no terminal to review it on" in good.stderr
