"""The headless CLI, run as a real process: validate, list, check; JSON shapes and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_json import checked, document, report
from modkit import GOOD_EXPECTED, clean_v1, clean_v22, make_module, pos, run_cogn

MODULES = Path(__file__).resolve().parents[1] / "modules"

DIAG_KEYS = {"severity", "code", "message", "file", "line", "column", "hint"}
LIST_KEYS = {"name", "version", "format", "tier", "level", "path", "shadowed", "shadowed_by", "errors", "warnings"}


class World:
    """A cwd and a home with modules on the project and user levels, and an --path root."""

    def __init__(self, tmp: Path) -> None:
        self.cwd = tmp / "work"
        self.home = tmp / "home"
        self.extra = tmp / "extra"
        self.project = self.cwd / ".cognitive" / "modules"
        self.user = self.home / ".cognitive" / "modules"
        self.good = make_module(self.project, clean_v22("good"), "good")
        self.shadowed = make_module(self.user, clean_v1("good"), "good")
        self.legacy = make_module(self.user, clean_v1("legacy"), "legacy")
        broken = clean_v22()
        self.broken_yaml = "name: broken\nversion: [1.0.0\n"
        broken["module.yaml"] = self.broken_yaml
        self.broken = make_module(self.extra, broken, "broken")

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        proc = run_cogn(list(args), cwd=self.cwd, home=self.home, stdin=stdin)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def assert_diagnostic_shape(d: dict[str, Any]) -> None:
    assert set(d) >= DIAG_KEYS
    assert d["severity"] in ("error", "warning", "info")
    file = d["file"]
    if file is None or not Path(file).exists():
        assert d["line"] is None and d["column"] is None
    else:
        assert d["line"] >= 1 and d["column"] >= 1


@pytest.mark.parametrize("command", ["validate", "migrate", "run", "test", "eval"])
def test_every_command_says_the_same_where_a_name_was_looked_for(world: World, command: str) -> None:
    proc = world.run(command, "nope")
    assert proc.returncode == 2, proc.stderr
    searched = f"{world.project}, {world.user}"
    assert proc.stderr.strip() == (
        f"cogn: no module named 'nope' on the search path ({searched}), and no module folder at that path"
    ), proc.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "legacyy"],
        ["migrate", "legacyy", "--dry-run"],
        ["run", "legacyy"],
        ["test", "legacyy"],
        ["eval", "legacyy"],
        ["check", "--module", "legacyy", "-"],
    ],
)
def test_a_mistyped_module_name_names_the_nearest_module(world: World, argv: list[str]) -> None:
    proc = world.run(*argv, stdin='{"ok": true, "meta": {}, "data": {}}')
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().startswith("cogn: no module named 'legacyy' on the search path"), proc.stderr
    assert proc.stderr.strip().endswith("no module folder at that path; did you mean 'legacy'?"), proc.stderr


def test_a_module_path_gets_no_guess(world: World) -> None:
    proc = world.run("validate", str(world.cwd / "legacyy"))
    assert proc.returncode == 2 and "did you mean" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("command", ["validate", "migrate", "test", "eval"])
def test_a_name_and_all_at_once_is_refused_as_such(world: World, command: str) -> None:
    both, neither = world.run(command, "good", "--all"), world.run(command)
    assert both.returncode == neither.returncode == 2
    assert both.stderr.strip() == f"cogn: {command}: give a module NAME|PATH or --all, not both"
    assert neither.stderr.strip() == f"cogn: {command} needs a module NAME|PATH, or --all"


# ---------------------------------------------------------------- validate


def test_validate_by_name_json(world: World) -> None:
    proc = world.run("validate", "good", "--json")
    assert proc.returncode == 0, proc.stderr
    out = report(proc.stdout)
    assert set(out) >= {"module", "format", "diagnostics"}
    assert (out["module"], out["format"], out["diagnostics"]) == ("good", "v2.2", [])
    assert out["path"] == str(world.good)  # the project module, not the shadowed user one


def test_validate_by_path(world: World) -> None:
    assert world.run("validate", str(world.shadowed)).returncode == 0
    proc = world.run("validate", "./.cognitive/modules/good", "--json")
    assert proc.returncode == 0 and report(proc.stdout)["module"] == "good"
    proc = world.run("validate", str(world.good / "module.yaml"), "--json")
    assert proc.returncode == 0 and report(proc.stdout)["format"] == "v2.2"


def test_validate_text_output(world: World) -> None:
    proc = world.run("validate", "good")
    assert proc.returncode == 0 and "good" in proc.stdout and "valid" in proc.stdout


def test_validate_malformed_yaml(world: World) -> None:
    proc = world.run("--path", str(world.extra), "validate", "broken", "--json")
    assert proc.returncode == 1
    out = report(proc.stdout)
    p001 = [d for d in out["diagnostics"] if d["code"] == "P001"]
    assert len(p001) == 1
    assert p001[0]["file"] == str(world.broken / "module.yaml")
    # The flow sequence is never closed: the parser stops at the end, the diagnostic points at its [ (CODE-7).
    assert (p001[0]["line"], p001[0]["column"]) == (2, 10)
    for d in out["diagnostics"]:
        assert_diagnostic_shape(d)
    text = world.run("validate", "--path", str(world.extra), "broken")
    assert text.returncode == 1 and "P001" in text.stdout and f"{world.broken / 'module.yaml'}:2:10" in text.stdout


def test_validate_v22(world: World) -> None:
    assert world.run("validate", "legacy").returncode == 0
    proc = world.run("validate", "legacy", "--v22", "--json")
    assert proc.returncode == 1
    out = report(proc.stdout)
    assert out["format"] == "v1"
    [v000] = [d for d in out["diagnostics"] if d["code"] == "V000"]
    assert v000["severity"] == "error" and v000["file"] == str(world.legacy / "MODULE.md")
    assert world.run("validate", "good", "--v22").returncode == 0


def test_validate_v22_turns_warnings_into_errors(world: World) -> None:
    files = clean_v22("vague")
    files["prompt.md"] = "Return the label of the `text`.\n"  # the prompt mentions its input (no R002)
    mod = make_module(world.cwd, files, "vague")
    lax = world.run("validate", str(mod), "--json")
    assert lax.returncode == 0
    assert [(d["code"], d["severity"]) for d in report(lax.stdout)["diagnostics"]] == [("V005", "warning")]
    strict = world.run("validate", str(mod), "--v22", "--json")
    assert strict.returncode == 1
    assert [(d["code"], d["severity"]) for d in report(strict.stdout)["diagnostics"]] == [("V005", "error")]


def test_validate_all(world: World) -> None:
    proc = world.run("validate", "--all", "--json")
    assert proc.returncode == 0
    doc = document(proc.stdout, "validate")
    out = doc["modules"]
    assert sorted((r["module"], r["path"]) for r in out) == [("good", str(world.good)), ("legacy", str(world.legacy))]
    assert doc["summary"] == {
        "modules": 2,
        "valid": 2,
        "with_errors": 0,
        "errors": 0,
        "warnings": sum(r["warnings"] for r in out),
        "unreadable_folders": [],
    }
    proc = world.run("--path", str(world.extra), "validate", "--all", "--json")
    assert proc.returncode == 1
    by_name = {r["module"]: r for r in document(proc.stdout, "validate")["modules"]}
    assert set(by_name) == {"good", "legacy", "broken"}
    assert by_name["broken"]["errors"] >= 1 and by_name["good"]["errors"] == 0
    text = world.run("--path", str(world.extra), "validate", "--all")
    assert text.returncode == 1 and "3 modules" in text.stdout


@pytest.mark.parametrize(
    "command", [["validate", "--all"], ["validate", "--all", "--json"], ["test", "--all"], ["eval", "--all"]]
)
def test_all_on_an_empty_search_path_fails(tmp_path: Path, command: list[str]) -> None:
    """A mistyped --path must not pass in CI on zero modules (PATH-2)."""
    proc = run_cogn(["--path", str(tmp_path / "typo"), *command], cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"warning: search path entry does not exist: {tmp_path / 'typo'}" in proc.stderr
    assert "no modules on the search path" in proc.stderr


def test_a_bad_path_is_a_warning_where_modules_are_found(tmp_path: Path) -> None:
    shutil.copytree(MODULES / "code-reviewer", tmp_path / "mods" / "code-reviewer")
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    proc = run_cogn(["--path", str(tmp_path / "a-file"), "--path", str(tmp_path / "mods"), "list"], cwd=tmp_path)
    assert proc.returncode == 0 and "code-reviewer" in proc.stdout
    assert f"warning: search path entry is not a folder: {tmp_path / 'a-file'}" in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "no-such-module"],
        ["validate", "no-such-module", "--json"],
        ["validate", "x" * 300],  # a name the OS refuses as a path (ENAMETOOLONG)
        ["check", "--module", "x" * 300, "-"],
        ["validate"],
        ["validate", "good", "--all"],
        ["no-such-command"],
        ["validate", "--bogus-flag"],
        ["check"],
        ["check", "x.json", "--kind", "nonsense"],
    ],
)
def test_usage_errors_and_not_found_exit_2(world: World, args: list[str]) -> None:
    proc = world.run(*args)
    assert proc.returncode == 2
    assert proc.stderr.strip()
    assert proc.stdout.strip() == ""


# ---------------------------------------------------------------- list


def test_list_json(world: World) -> None:
    proc = world.run("--path", str(world.extra), "list", "--json")
    assert proc.returncode == 0
    rows = document(proc.stdout, "list")["modules"]
    for row in rows:
        assert set(row) == LIST_KEYS
    summary = [(r["name"], r["level"], r["path"], r["shadowed"], r["shadowed_by"]) for r in rows]
    assert summary == [
        ("broken", "path", str(world.broken), False, None),
        ("good", "project", str(world.good), False, None),
        ("good", "user", str(world.shadowed), True, str(world.good)),
        ("legacy", "user", str(world.legacy), False, None),
    ]
    good, shadowed = rows[1], rows[2]
    assert (good["version"], good["format"], good["tier"], good["errors"], good["warnings"]) == (
        "1.0.0",
        "v2.2",
        "decision",
        0,
        0,
    )
    assert (shadowed["format"], shadowed["tier"]) == ("v1", "decision")
    assert rows[0]["errors"] >= 1


def test_list_text(world: World) -> None:
    proc = world.run("list")
    assert proc.returncode == 0
    assert "good (shadowed)" in proc.stdout
    assert f"is shadowed by {world.good}" in proc.stdout


def test_list_empty(tmp_path: Path) -> None:
    proc = run_cogn(["list", "--json"], cwd=tmp_path)
    assert proc.returncode == 0
    assert document(proc.stdout, "list") == {
        "format": 1,
        "command": "list",
        "modules": [],
        "summary": {"modules": 0, "shadowed": 0, "with_errors": 0, "warnings": 0},
    }
    proc = run_cogn(["list"], cwd=tmp_path)
    assert proc.returncode == 0 and "No modules found" in proc.stdout


def test_env_path_is_custom_level(world: World, tmp_path: Path) -> None:
    custom = tmp_path / "custom"
    make_module(custom, clean_v22("from-env"), "from-env")
    proc = run_cogn(
        ["list", "--json"], cwd=world.cwd, home=world.home, extra_env={"COGNITIVE_MODULES_PATH": str(custom)}
    )
    rows = {r["name"]: r for r in document(proc.stdout, "list")["modules"] if not r["shadowed"]}
    assert rows["from-env"]["level"] == "custom"
    assert rows["good"]["path"] == str(world.good)


# ---------------------------------------------------------------- check


def test_check_exit_codes(world: World) -> None:
    good = world.cwd / "good.json"
    good.write_text(json.dumps(GOOD_EXPECTED))
    bad = world.cwd / "bad.json"
    bad.write_text(json.dumps({**GOOD_EXPECTED, "meta": {"confidence": 2, "risk": "low", "explain": "x"}}))
    assert world.run("check", str(good)).returncode == 0
    proc = world.run("check", "bad.json")
    assert proc.returncode == 1 and "E3001" in proc.stdout and "meta.confidence.range" in proc.stdout
    proc = world.run("check", "--json", "bad.json")
    out = checked(proc.stdout)
    assert proc.returncode == 1 and out["valid"] is False and out["codes"] == ["E3001"]


@pytest.mark.parametrize("content", ["not json at all", '{"a": ', "", "\n\n", "{'single': 'quotes'}"])
def test_check_non_json_is_2(world: World, content: str) -> None:
    target = world.cwd / "doc.json"
    target.write_text(content)
    proc = world.run("check", str(target))
    assert proc.returncode == 2 and "doc.json" in proc.stderr
    proc = world.run("check", "-", stdin=content)
    assert proc.returncode == 2


def test_check_undecodable_file_is_2(world: World) -> None:
    target = world.cwd / "latin1.json"
    target.write_bytes(b'{"explain": "caf\xe9"}')
    proc = world.run("check", str(target))
    assert proc.returncode == 2 and "UTF-8" in proc.stderr


def test_check_missing_file_is_2(world: World) -> None:
    proc = world.run("check", "nope.json")
    assert proc.returncode == 2 and "nope.json" in proc.stderr
    proc = world.run("check", str(world.cwd))  # a folder
    assert proc.returncode == 2


def test_check_stream_ndjson_from_stdin(world: World) -> None:
    chunks = [
        {
            "ok": True,
            "streaming": True,
            "session_id": "s1",
            "meta": {"confidence": None, "risk": "low", "explain": "go"},
        },
        {"chunk": {"seq": 1, "type": "delta", "field": "data.rationale", "delta": "a"}},
        {},
        {"chunk": {"seq": 2, "type": "delta", "field": "data.rationale", "delta": "b"}},
        {"final": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "done"}, "data": {"rationale": "ab"}},
    ]
    ndjson = "\n".join(json.dumps(c) for c in chunks) + "\n"
    proc = world.run("check", "--kind", "stream", "--json", "-", stdin=ndjson)
    assert proc.returncode == 0, proc.stdout
    assert checked(proc.stdout) == {"file": "-", "kind": "stream", "valid": True, "codes": [], "violations": []}
    proc = world.run("check", "-", stdin=ndjson)  # detected as a stream
    assert proc.returncode == 0 and "valid stream" in proc.stdout
    broken = "\n".join(json.dumps(c) for c in chunks[:-1]) + "\n"  # no final chunk
    proc = world.run("check", "--kind", "stream", "--json", "-", stdin=broken)
    assert proc.returncode == 1 and checked(proc.stdout)["codes"] == ["E2010"]
    proc = world.run("check", "--kind", "stream", "-", stdin=ndjson + "{oops\n")
    assert proc.returncode == 2 and "line 6" in proc.stderr


def test_check_with_module(world: World) -> None:
    proc = world.run("check", "--kind", "input", "--module", "good", "--json", "-", stdin="{}")
    assert proc.returncode == 1
    [v] = checked(proc.stdout)["violations"]
    assert (v["code"], v["path"]) == ("E1002", "text")
    proc = world.run("check", "--module", str(world.good), "-", stdin=json.dumps(GOOD_EXPECTED))
    assert proc.returncode == 0
    proc = world.run("check", "--module", "no-such-module", "-", stdin="{}")
    assert proc.returncode == 2 and "no-such-module" in proc.stderr


# ---------------------------------------------------------------- malformed files never crash


def test_malformed_files_everywhere(tmp_path: Path) -> None:
    root = tmp_path / "mods"
    cases: dict[str, dict[str, Any]] = {
        "bad-yaml": {"module.yaml": "name: x\n  bad: indentation: here\n"},
        "bad-tag": {"module.yaml": "name: !!python/object/apply:os.system ['echo pwned']\n"},
        "bad-schema": {"schema.json": '{"input": {"type": "object",}, }'},
        "bad-test": {"tests/case1.input.json": "{nope"},
        "bad-expected": {"tests/case1.expected.json": "[1, 2"},
        "list-manifest": {"module.yaml": "- a\n- b\n"},
        "scalar-schema": {"schema.json": "42"},
        "binary-prompt": {"prompt.md": b"\x00\x01\xff\xfe\x80"},
        "empty-manifest": {"module.yaml": ""},
    }
    for name, files in cases.items():
        merged = clean_v22(name)
        merged.update(files)
        make_module(root, merged, name)
    make_module(root, {"MODULE.md": "---\nname: [\n---\n", "schema.json": "{"}, "bad-v1")
    make_module(root, {"MODULE.md": "no frontmatter", "schema.json": "[]"}, "plain-v1")
    make_module(root, {"module.md": ":\n- ]", "constraints.yaml": "\t- x", "input.schema.json": "nul\x00l"}, "bad-v0")
    proc = run_cogn(["--path", str(root), "validate", "--all", "--json"], cwd=tmp_path)
    assert "Traceback" not in proc.stderr and proc.returncode == 1, proc.stderr
    reports = {r["module"]: r for r in document(proc.stdout, "validate")["modules"]}
    assert set(reports) == set(cases) | {"bad-v1", "plain-v1", "bad-v0"}
    expected_codes = {
        "bad-yaml": "P001",
        "bad-tag": "P001",
        "bad-schema": "P002",
        "bad-test": "P002",
        "bad-expected": "P002",
        "list-manifest": "P004",
        "scalar-schema": "P004",
        "binary-prompt": "P005",
        "bad-v1": "P001",
        "plain-v1": "P006",
        "bad-v0": "P001",
    }
    for name, code in expected_codes.items():
        assert code in {d["code"] for d in reports[name]["diagnostics"]}, (name, reports[name]["diagnostics"])
    for each in reports.values():
        for d in each["diagnostics"]:
            assert_diagnostic_shape(d)
    schema_p002 = next(d for d in reports["bad-schema"]["diagnostics"] if d["code"] == "P002")
    assert (schema_p002["line"], schema_p002["column"]) == pos('{"input": {"type": "object",}, }', "}")
    proc = run_cogn(["--path", str(root), "list", "--json"], cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert len(document(proc.stdout, "list")["modules"]) == len(reports)


@pytest.mark.parametrize(("dim_headers", "headers"), [(False, ("31", "32")), (True, ("2", "2"))])
def test_a_diff_is_coloured_by_each_lines_mark(
    monkeypatch: pytest.MonkeyPatch, dim_headers: bool, headers: tuple[str, str]
) -> None:
    """`cogn test`'s envelope diffs colour their `---`/`+++` headers as removed/added; an update's file diffs dim
    them. Either way + is green, - red, @@ cyan, the rest dim, each line indented."""
    import io

    from cogtui.cli.output import Printer

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    stream = io.StringIO()
    Printer(stream).diff("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n ctx", dim_headers=dim_headers)
    codes = [line.split("m", 1)[0].removeprefix("\x1b[") for line in stream.getvalue().splitlines()]
    assert codes == [*headers, "36", "31", "32", "2"]
    assert "\x1b[32m    +y\x1b[0m" in stream.getvalue()
