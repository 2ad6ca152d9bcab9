"""A module whose contract cannot be known is never judged a pass and never runs (RUN-1, ENV-19, RUN-2, FMT-17).

The core: `contract_problems`, `run_blockers`, the runner's refusal (E4000 naming the
file and the diagnostic); the CLI: `cogn check --module` exits 2, `cogn run`, `cogn test`
refuse. Each broken module is a copy of a clean v2.2 module with one thing wrong, and
the clean one is shown to pass or run in the same test, so the refusal is the break's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import envelope as printed_envelope
from cli_json import report
from modkit import GOOD_EXPECTED, GOOD_INPUT, FileContent, clean_v22, make_module, run_cogn
from rtkit import assert_failure, options, replay

from cogtui.core.module.loader import load_module
from cogtui.core.module.schema_engine import SchemaUnusable, compile_schema
from cogtui.core.rules.contract_status import contract_problems, run_blockers
from cogtui.core.rules.document_checker import UnusableModule, check_document
from cogtui.core.run.runner import run_module

# The envelope of the QA report: valid against any module without a data schema of its own.
LOOSE_ENVELOPE: dict[str, Any] = {
    "ok": True,
    "meta": {"confidence": 0.5, "risk": "low", "explain": "e"},
    "data": {"rationale": "r", "anything": 1},
}

BROKEN_SCHEMA_FILES: dict[str, FileContent] = {
    "bad-json": '{"meta": {"type": "object",,}',
    "deleted": None,
    "a-list": "[1,2,3]",
    "empty": "",
    "null": "null",
}
# (what `cogn validate` says, where in schema.json)
EXPECTED_CODE = {"bad-json": "P002", "deleted": "S010", "a-list": "P004", "empty": "P002", "null": "P004"}


def module_with_schema_file(tmp_path: Path, content: FileContent) -> Path:
    files = clean_v22()
    files["schema.json"] = content
    return make_module(tmp_path, files)


def module_with_schema(tmp_path: Path, change: Any) -> Path:
    files = clean_v22()
    change(files["schema.json"])
    return make_module(tmp_path, files)


# ---------------------------------------------------------------- item 1: check never passes an unknown contract


@pytest.mark.parametrize("case", sorted(BROKEN_SCHEMA_FILES))
@pytest.mark.parametrize("kind", ["envelope", "input"])
def test_check_refuses_a_module_whose_schema_cannot_be_loaded(tmp_path: Path, case: str, kind: str) -> None:
    root = module_with_schema_file(tmp_path, BROKEN_SCHEMA_FILES[case])
    module = load_module(root)
    problems = contract_problems(module)
    assert problems and problems[0].code == EXPECTED_CODE[case]
    assert problems[0].file == root / "schema.json"
    doc = LOOSE_ENVELOPE if kind == "envelope" else GOOD_INPUT
    with pytest.raises(UnusableModule) as refused:
        check_document(doc, kind, module)
    assert "schema.json" in str(refused.value) and EXPECTED_CODE[case] in str(refused.value)


def test_check_cli_exits_2_naming_the_file_and_the_diagnostic(tmp_path: Path) -> None:
    doc = tmp_path / "m.json"
    doc.write_text(json.dumps(LOOSE_ENVELOPE), encoding="utf-8")
    clean = make_module(tmp_path, clean_v22(), name="clean")
    intact = run_cogn(["check", "--module", str(clean), str(doc)], cwd=tmp_path)
    assert intact.returncode == 1 and "E3001" in intact.stdout  # the contract applies: "label" is required
    broken = module_with_schema_file(tmp_path, '{"meta": {"type": "object",,}')
    for extra in ([], ["--json"], ["--kind", "input"]):
        proc = run_cogn(["check", *extra, "--module", str(broken), str(doc)], cwd=tmp_path)
        assert proc.returncode == 2, (extra, proc.stdout, proc.stderr)
        assert "valid" not in proc.stdout
        assert "contract (schema) cannot be loaded" in proc.stderr and "P002" in proc.stderr
        assert str(broken / "schema.json") in proc.stderr and "cogn validate" in proc.stderr


# ---------------------------------------------------------------- item 2: the same rule decides what runs


async def test_the_clean_module_runs_and_a_missing_schema_json_is_refused(tmp_path: Path) -> None:
    clean = load_module(make_module(tmp_path, clean_v22(), name="clean"))
    assert run_blockers(clean) == []
    assert (await run_module(clean, GOOD_INPUT, options(replay()))).ok
    root = module_with_schema_file(tmp_path, None)
    for value in (GOOD_INPUT, {"text": 42}):  # no input check could apply: the run is refused before it
        result = await run_module(load_module(root), value, options(replay()))
        err = assert_failure(result.envelope, "E4000")
        assert "schema.json is missing" in err["message"] and "cogn validate" in err["suggestion"]
        assert err["details"]["diagnostics"][0]["code"] == "S010"


async def test_illegal_declared_manifest_values_refuse_the_run_naming_each_field(tmp_path: Path) -> None:
    files = clean_v22()
    manifest: Any = files["module.yaml"]
    manifest.update(tier=42, version=3)
    manifest["overflow"]["max_items"] = "five"
    module = load_module(make_module(tmp_path, files))
    result = await run_module(module, GOOD_INPUT, options(replay()))
    err = assert_failure(result.envelope, "E4000")
    for named in ("tier 42", "version 3", "overflow.max_items"):
        assert named in err["message"], err["message"]
    assert {d["code"] for d in err["details"]["diagnostics"]} == {"M002", "M003", "M015"}


def test_cli_run_and_test_refuse_a_module_without_schema_json(tmp_path: Path) -> None:
    root = module_with_schema_file(tmp_path, None)
    inp = tmp_path / "in.json"
    inp.write_text(json.dumps(GOOD_INPUT), encoding="utf-8")
    run = run_cogn(["run", str(root), "--input", str(inp), "--json", "--no-history"], cwd=tmp_path)
    envelope = printed_envelope(run.stdout)
    assert run.returncode != 0 and envelope["error"]["code"] == "E4000"
    test = run_cogn(["test", str(root), "--json"], cwd=tmp_path)
    assert test.returncode != 0 and "E4000" in test.stdout and "schema.json is missing" in test.stdout


# ---------------------------------------------------------------- item 3: an invalid schema is the module's problem


def _typo(schema: Any) -> None:
    schema["input"]["properties"]["text"]["type"] = "strnig"


def _required_string(schema: Any) -> None:
    schema["input"]["required"] = "text"


def _enum_string(schema: Any) -> None:
    schema["data"]["properties"]["label"] = {"enum": "x"}


def _bad_def(schema: Any) -> None:
    schema["$defs"]["extensions"]["type"] = "strnig"


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (_typo, "input.properties.text.type"),
        (_required_string, "input.required"),
        (_enum_string, "data.properties.label.enum"),
        (_bad_def, "$defs.extensions.type"),
    ],
    ids=["type-typo", "required-string", "enum-string", "referenced-def"],
)
async def test_an_invalid_schema_refuses_the_run_and_the_check(tmp_path: Path, change: Any, where: str) -> None:
    module = load_module(module_with_schema(tmp_path, change))
    result = await run_module(module, GOOD_INPUT, options(replay()))
    err = assert_failure(result.envelope, "E4000")
    assert "schema.json is not a valid JSON Schema" in err["message"] and where in err["message"]
    assert "$ref" not in err["message"] and "cogn validate" in err["suggestion"]
    assert err["details"]["diagnostics"][0]["code"] == "S001"
    with pytest.raises(UnusableModule):
        check_document(GOOD_INPUT, "input", module)
    with pytest.raises(UnusableModule):
        check_document(GOOD_EXPECTED, "envelope", module)


def test_the_engine_tells_an_invalid_schema_from_an_unresolvable_ref() -> None:
    with pytest.raises(SchemaUnusable) as invalid:
        compile_schema({"properties": {"a": {"type": "strnig"}}})
    assert invalid.value.kind == "schema" and "$ref" not in str(invalid.value)
    assert "properties.a.type" in str(invalid.value)
    with pytest.raises(SchemaUnusable) as unresolved:
        compile_schema({"properties": {"a": {"$ref": "#/$defs/nowhere"}}})
    assert unresolved.value.kind == "ref" and unresolved.value.ref == "#/$defs/nowhere"
    assert "'?'" not in str(unresolved.value)


# ---------------------------------------------------------------- item 4: a missing schema.json said once


def test_validate_says_a_missing_schema_json_once_located_with_a_hint(tmp_path: Path) -> None:
    files = clean_v22()
    manifest: Any = files["module.yaml"]
    manifest["io"] = {p: f"./schema.json#/{p}" for p in ("input", "data", "meta", "error")}
    root = module_with_schema_file(tmp_path, None)
    make_module(tmp_path, {"module.yaml": manifest})  # the same folder, now with io references to schema.json
    proc = run_cogn(["validate", str(root), "--json"], cwd=tmp_path)
    diags = [d for d in report(proc.stdout)["diagnostics"] if d["severity"] == "error"]
    assert [d["code"] for d in diags] == ["S010"], diags
    assert diags[0]["file"] == str(root / "schema.json") and "missing" in diags[0]["message"]
    assert "Create schema.json" in diags[0]["hint"]


def test_io_references_elsewhere_need_no_schema_json(tmp_path: Path) -> None:
    files = clean_v22()
    schema: Any = files.pop("schema.json")
    files["contract.json"] = schema
    manifest: Any = files["module.yaml"]
    manifest["io"] = {p: f"./contract.json#/{p}" for p in ("input", "data", "meta", "error")}
    module = load_module(make_module(tmp_path, files))
    assert not [d for d in module.load_diagnostics if d.code == "S010"]
    assert contract_problems(module) == []


@pytest.mark.parametrize("case", sorted(BROKEN_SCHEMA_FILES))
def test_an_unreadable_schema_json_is_one_error_not_a_pile(tmp_path: Path, case: str) -> None:
    """The file's own diagnostic only: no io S003, S004, S005 or V001 restating that its parts are absent."""
    from cogtui.core.rules.validate_module import validate_module

    files = clean_v22()
    files["schema.json"] = BROKEN_SCHEMA_FILES[case]
    manifest: Any = files["module.yaml"]
    manifest["io"] = {p: f"./schema.json#/{p}" for p in ("input", "data", "meta", "error")}
    module = load_module(make_module(tmp_path, files))
    errors = [d for d in validate_module(module) if d.severity.value == "error"]
    assert [(d.code, d.file) for d in errors] == [(EXPECTED_CODE[case], module.path / "schema.json")]


def test_the_tui_input_status_says_the_module_cannot_run(tmp_path: Path) -> None:
    """The run screen's live input verdict (its one core call, check_input) names the broken contract."""
    from cogtui.core.rules.document_checker import check_input
    from cogtui.tui.screens.run.input import input_status

    clean = load_module(make_module(tmp_path, clean_v22(), name="clean"))
    assert check_input(GOOD_INPUT, clean) == []
    module = load_module(module_with_schema(tmp_path, _typo))
    with pytest.raises(UnusableModule) as refused:
        check_input(GOOD_INPUT, module)
    assert "S001" in str(refused.value) and "schema.json is not a valid JSON Schema" in str(refused.value)
    status = input_status(json.dumps(GOOD_INPUT), module)
    assert status is not None and "cannot be loaded" in status.plain and "$ref" not in status.plain
    assert "input.properties.text.type" in status.plain


def test_run_refusal_is_the_blocked_runs_error_or_none(tmp_path: Path) -> None:
    from cogtui.core.module.loader import load_module
    from cogtui.core.run.manifest_policy import run_refusal

    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "module.yaml").write_text("name: m\nversion: 1.0.0\nresponsibility: r\n", encoding="utf-8")
    (folder / "prompt.md").write_text("Say hi.\n", encoding="utf-8")
    (folder / "schema.json").write_text('{"input": {"type": "object"}, "data": {"type": "object"}}', encoding="utf-8")
    assert run_refusal(load_module(folder)) is None
    (folder / "schema.json").write_text("{ broken", encoding="utf-8")
    error = run_refusal(load_module(folder))
    assert error is not None and error["code"] == "E4000" and "cogn validate m" in error["suggestion"]


@pytest.mark.parametrize("broken", ["schema.json", "prompt.md"])
def test_a_file_that_cannot_be_read_draws_no_rule_about_what_it_holds(tmp_path: Path, broken: str) -> None:
    """QA: a schema.json that did not parse also drew M020 "has no error schema" (it has one), and a prompt.md
    that is not UTF-8 drew V005 "does not describe the envelope" (it does). Only the file's own error is said."""
    from cogtui.core.rules.validate_module import validate_module

    files = clean_v22()
    manifest: Any = files["module.yaml"]
    manifest["failure"] = {"contract": "error_union", "must_return_error_schema": True}
    if broken == "schema.json":
        files["schema.json"] = json.dumps(files["schema.json"], indent=2).replace('"type"', '"type",', 1)
    else:
        files["prompt.md"] = "Caf\xe9: meta, confidence, risk, explain and rationale.\n".encode("latin-1")
    module = load_module(make_module(tmp_path, files))
    said = [(d.code, d.file.name if d.file else None) for d in validate_module(module)]
    assert said == [("P002" if broken == "schema.json" else "P005", broken)]
