"""`validate` and the run agree on where a schema's `$ref`s lead (FMT-3).

A loop of `$ref`s across files never reaches a schema and is refused like one
inside schema.json; a `file://` URI is the path it names (inside the module it
is used, outside it is S007 and never read); a schema nested too deeply to
compile is located with a hint. Each module is a copy of a clean v2.2 module
with one thing changed; where a run is refused, the input it would have let
through is the one tried.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import envelope as printed_envelope
from modkit import GOOD_EXPECTED, GOOD_INPUT, clean_v22, make_module, pos, run_cogn
from rtkit import assert_failure, options, replay

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.nesting import TOO_DEEP_HINT, too_deep_position
from cogtui.core.module.loader import load_module
from cogtui.core.rules.document_checker import UnusableModule, check_document
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.run.runner import run_module

BAD_INPUT = {"text": 123}  # what a loop, or an unread schema, would let through


def module_with(tmp_path: Path, text_ref: str, extra: dict[str, Any] | None = None) -> Path:
    """The clean module with input.properties.text = {"$ref": text_ref}, and `extra` files beside schema.json."""
    files = clean_v22()
    schema: Any = files["schema.json"]
    schema["input"]["properties"]["text"] = {"$ref": text_ref}
    files.update(extra or {})
    return make_module(tmp_path, files)


def errors(root: Path) -> list[Diagnostic]:
    return [d for d in validate_module(load_module(root)) if d.severity.value == "error"]


def located_at(d: Diagnostic, file: Path, needle: str) -> bool:
    return d.file == file and (d.line, d.column) == pos(file.read_text(encoding="utf-8"), needle)


async def refused(root: Path) -> dict[str, Any]:
    """The run's refusal of BAD_INPUT (E4000, validate's diagnostic in details); check refuses to judge too."""
    module = load_module(root)
    result = await run_module(module, BAD_INPUT, options(replay()))
    err = assert_failure(result.envelope, "E4000")
    assert "cogn validate" in err["suggestion"] and "input" not in err["suggestion"]
    with pytest.raises(UnusableModule):
        check_document(BAD_INPUT, "input", module)
    with pytest.raises(UnusableModule):
        check_document(GOOD_EXPECTED, "envelope", module)
    return err


# ---------------------------------------------------------------- loops


async def test_a_loop_across_files_is_said_at_the_ref_in_schema_json_and_refuses_the_run(tmp_path: Path) -> None:
    root = module_with(tmp_path, "a.json", {"a.json": {"$ref": "b.json"}, "b.json": {"$ref": "a.json"}})
    found = errors(root)
    assert {(d.code, d.file.name if d.file else "") for d in found} == {
        ("S002", "schema.json"),
        ("S002", "a.json"),
        ("S002", "b.json"),
    }
    in_schema = next(d for d in found if d.file == root / "schema.json")
    assert in_schema.message == "$ref 'a.json' never reaches a schema: a.json → b.json → a.json"
    assert located_at(in_schema, root / "schema.json", '"a.json"') and in_schema.hint
    err = await refused(root)
    assert "never reaches a schema" in err["message"] and "schema.json:" in err["message"]


async def test_a_loop_inside_schema_json_refuses_the_run_too(tmp_path: Path) -> None:
    files = clean_v22()
    schema: Any = files["schema.json"]
    schema["$defs"].update({"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}})
    schema["input"]["properties"]["text"] = {"$ref": "#/$defs/A"}
    err = await refused(make_module(tmp_path, files))
    assert "#/$defs/A → #/$defs/B → #/$defs/A" in err["message"]


async def test_a_chain_across_files_that_reaches_a_schema_is_no_loop_and_is_enforced(tmp_path: Path) -> None:
    root = module_with(tmp_path, "a.json", {"a.json": {"$ref": "b.json"}, "b.json": {"type": "string"}})
    assert errors(root) == []
    result = await run_module(load_module(root), BAD_INPUT, options(replay()))
    assert_failure(result.envelope, "E1003")


# ---------------------------------------------------------------- file:// URIs and escapes


@pytest.mark.parametrize("form", ["file-uri", "upper-case-scheme", "absolute-path", "escaped-name"])
async def test_a_file_inside_the_module_is_used_however_it_is_named(tmp_path: Path, form: str) -> None:
    name = "my lang.json" if form == "escaped-name" else "lang.json"
    target = (tmp_path / "mod" / name).absolute()
    ref = {
        "file-uri": target.as_uri(),
        "upper-case-scheme": "FILE" + target.as_uri()[4:],  # schemes are case-insensitive: both readers agree
        "absolute-path": str(target),
        "escaped-name": "my%20lang.json",
    }[form]
    root = module_with(tmp_path, ref, {name: {"type": "string"}})
    assert errors(root) == []  # validate agrees with the run: the file exists, and is used
    module = load_module(root)
    assert_failure((await run_module(module, BAD_INPUT, options(replay()))).envelope, "E1003")
    assert (await run_module(module, GOOD_INPUT, options(replay()))).ok


@pytest.mark.parametrize("form", ["file-uri", "absolute-path", "relative-path"])
async def test_a_ref_out_of_the_module_is_s007_and_the_refusal_names_the_schema(tmp_path: Path, form: str) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"type": "string"}', encoding="utf-8")  # a usable schema: only never reading it refuses
    ref = {"file-uri": outside.as_uri(), "absolute-path": str(outside), "relative-path": "../outside.json"}[form]
    root = module_with(tmp_path, ref)
    [found] = errors(root)
    assert found.code == "S007" and found.message.endswith("' points outside the module")
    assert located_at(found, root / "schema.json", json.dumps(ref))
    assert ("relative to this file" in found.hint) is (form != "relative-path")
    err = await refused(root)
    assert "points outside the module" in err["message"] and "schema.json:" in err["message"]


async def test_a_file_uri_on_another_host_is_remote(tmp_path: Path) -> None:
    root = module_with(tmp_path, "file://elsewhere/etc/passwd")
    [found] = errors(root)
    assert found.code == "S007" and "remote" in found.message
    await refused(root)


def test_cli_validate_and_run_agree_on_an_outside_file_uri(tmp_path: Path) -> None:
    root = module_with(tmp_path, "file:///etc/passwd")
    validate = run_cogn(["validate", str(root)], cwd=tmp_path)
    assert validate.returncode != 0 and "S007" in validate.stdout and "does not exist" not in validate.stdout
    inp = tmp_path / "in.json"
    inp.write_text(json.dumps(GOOD_INPUT), encoding="utf-8")
    run = run_cogn(["run", str(root), "--input", str(inp), "--json", "--no-history"], cwd=tmp_path)
    error = printed_envelope(run.stdout)["error"]
    assert error["code"] == "E4000" and "schema.json" in error["message"]
    assert "Fix the reference in the input" not in error["suggestion"]


# ---------------------------------------------------------------- nesting


def nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


@pytest.mark.parametrize("where", ["schema.json", "a.json"])
async def test_a_schema_nested_too_deeply_is_located_with_a_hint_and_refuses_the_run(
    tmp_path: Path, where: str
) -> None:
    files = clean_v22()
    schema: Any = files["schema.json"]
    if where == "a.json":
        schema["input"]["properties"]["text"] = {"$ref": "a.json"}
        files["a.json"] = nested(150)
    else:
        schema["input"]["properties"]["text"] = nested(150)
    root = make_module(tmp_path, files)
    [found] = errors(root)
    file = root / where
    assert found.code == "S001" and found.file == file and "nested too deeply" in found.message
    assert (found.line, found.column) == too_deep_position(file.read_text(encoding="utf-8"), yaml=False) != (1, 1)
    assert found.hint == TOO_DEEP_HINT
    err = await refused(root)
    assert "nested too deeply" in err["message"] and f"{where}:" in err["message"]


async def test_a_deep_but_reasonable_schema_is_used(tmp_path: Path) -> None:
    files = clean_v22()
    schema: Any = files["schema.json"]
    schema["input"]["properties"]["deep"] = nested(60)  # ~120 levels: below the limit, and compiled
    root = make_module(tmp_path, files)
    assert errors(root) == []
    assert (await run_module(load_module(root), GOOD_INPUT, options(replay()))).ok


# ---------------------------------------------------------------- an unresolvable ref keeps E1006, blaming the schema


async def test_an_unresolvable_ref_blames_the_input_schema_not_the_input(tmp_path: Path) -> None:
    root = module_with(tmp_path, "#/$defs/nowhere")
    [found] = errors(root)
    assert found.code == "S002" and found.message == "$ref '#/$defs/nowhere' does not resolve"
    result = await run_module(load_module(root), GOOD_INPUT, options(replay()))
    err = assert_failure(result.envelope, "E1006")
    assert err["message"].startswith("the input schema of mod cannot be used: $ref '") and "nowhere" in err["message"]
    assert "not the input" in err["suggestion"] and "cogn validate mod" in err["suggestion"]
