"""A schema that breaks its draft's metaschema is told what the author wrote wrong, in the same words by both
engines (CODE-8): the keyword's place, what that keyword takes, and what was written instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from modkit import clean_v22, make_module, pos, run_cogn

from cogtui.core.module.loader import load_module
from cogtui.core.module.schema_engine import DRAFT4, DRAFT7, DRAFT2020, metaschema_errors
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.rules.violation import dotted

MODULES = Path(__file__).resolve().parents[1] / "modules"
TYPES = "(the types are array, boolean, integer, null, number, object and string)"
SCHEMA = 'must be a schema (an object such as {"type": "string"}, or true or false)'

CASES: list[tuple[Any, str, str]] = [  # (schema, where, what the author is told)
    ({"type": "strng"}, "type", f'"strng" is not a JSON Schema type; did you mean "string"? {TYPES}'),
    ({"type": "int"}, "type", f'"int" is not a JSON Schema type; did you mean "integer"? {TYPES}'),
    ({"type": "qwerty"}, "type", f'"qwerty" is not a JSON Schema type {TYPES}'),
    ({"type": ["string", "nul"]}, "type", f'"nul" is not a JSON Schema type; did you mean "null"? {TYPES}'),
    ({"type": []}, "type", f"must name at least one type {TYPES}"),
    ({"type": ["string", "string"]}, "type", 'lists "string" more than once'),
    (
        {"properties": {"a": {"type": "strng"}}},
        "properties.a.type",
        f'"strng" is not a JSON Schema type; did you mean "string"? {TYPES}',
    ),
    ({"required": "name"}, "required", 'must be a list of property names, not the single name "name" (write ["name"])'),
    ({"required": [1]}, "required[0]", "must be a property name (a string), not 1"),
    ({"required": ["a", "a"]}, "required", 'lists "a" more than once'),
    ({"properties": []}, "properties", "must be an object that maps each name to its schema, not []"),
    ({"properties": {"a": "string"}}, "properties.a", f'{SCHEMA}, not "string"; did you mean {{"type": "string"}}?'),
    ({"additionalProperties": "no"}, "additionalProperties", f'{SCHEMA}, not "no"'),
    ({"enum": "a"}, "enum", 'must be a list of the allowed values, not "a" (write ["a"])'),
    ({"minLength": -1}, "minLength", "must be 0 or more, not -1"),
    ({"minLength": "3"}, "minLength", 'must be a whole number, 0 or more, not "3" (write 3, without quotes)'),
    ({"minimum": "0"}, "minimum", 'must be a number, not "0" (write 0, without quotes)'),
    ({"multipleOf": 0}, "multipleOf", "must be a number greater than 0, not 0"),
    (
        {"exclusiveMinimum": True},
        "exclusiveMinimum",
        "must be a number (the excluded bound itself), not true; true or false is Draft 04's form",
    ),
    ({"pattern": 5}, "pattern", "must be a string, not 5"),
    ({"uniqueItems": "true"}, "uniqueItems", 'must be true or false (without quotes), not "true"'),
    ({"items": "string"}, "items", f'{SCHEMA} or a list of schemas, not "string"; did you mean {{"type": "string"}}?'),
    (
        {"items": [{"type": "strng"}]},
        "items",
        f'[0].type: "strng" is not a JSON Schema type; did you mean "string"? {TYPES}',
    ),
    ({"allOf": []}, "allOf", "must list at least one schema"),
    ({"anyOf": {"type": "string"}}, "anyOf", 'must be a list of schemas, not {"type":"string"}'),
    ({"dependencies": {"a": 5}}, "dependencies.a", "must be a schema or a list of property names, not 5"),
    ({"examples": 5}, "examples", "must be a list of example values, not 5"),
    (5, "$", f"{SCHEMA}, not 5"),
]


@pytest.fixture(params=["jsonschema-rs", "jsonschema"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COGTUI_SCHEMA_ENGINE", request.param)
    return str(request.param)


@pytest.mark.parametrize(("schema", "where", "words"), CASES, ids=[json.dumps(c[0])[:40] for c in CASES])
def test_each_common_metaschema_failure_has_an_authors_sentence(
    engine: str, schema: Any, where: str, words: str
) -> None:
    said = [(dotted(e.path), e.message) for e in metaschema_errors(schema, DRAFT7)]
    assert said == [(where, words)]
    assert not any("anyOf" in message or "is not valid under any" in message for _, message in said)


def test_other_drafts_say_what_they_take(engine: str) -> None:
    # Draft 04: booleans are not schemas, exclusiveMinimum is a flag beside minimum.
    [not_schema] = metaschema_errors({"not": True}, DRAFT4)
    assert not_schema.message == 'must be a schema (an object such as {"type": "string"}), not true'
    [flag] = metaschema_errors({"exclusiveMinimum": 1, "minimum": 0}, DRAFT4)
    assert flag.message.startswith("must be true or false in Draft 04")
    # 2020-12 reports a wrong value once per vocabulary that checks it: said once. Tuple items are prefixItems.
    [items] = metaschema_errors({"items": [{"type": "string"}]}, DRAFT2020)
    assert items.message.endswith("; a list of schemas is written prefixItems in 2020-12")
    assert len(metaschema_errors({"$defs": {"a": 5}}, DRAFT2020)) == 1


def test_a_pattern_that_does_not_compile_says_why(engine: str, tmp_path: Path) -> None:
    files = clean_v22()
    schema: Any = files["schema.json"]
    schema["input"]["properties"]["text"]["pattern"] = "[a-"
    found = validate_module(load_module(make_module(tmp_path, files)))
    [s001] = [d for d in found if d.code == "S001"]
    assert s001.message == (
        'input.properties.text.pattern: "[a-" is not a valid regular expression: the [ at character 1 is never closed'
    )


def _v1_with(tmp_path: Path, edit: Any) -> Path:
    """The bundled v1 module (schema.json holds `input` and `output`) with its schema edited."""
    root = tmp_path / "commit-message-writer"
    root.mkdir()
    for name in ("MODULE.md", "schema.json"):
        (root / name).write_bytes((MODULES / "commit-message-writer" / name).read_bytes())
    schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    edit(schema)
    (root / "schema.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    return root


def test_a_v1_output_is_named_output_in_words_the_author_reads(engine: str, tmp_path: Path) -> None:
    """The issue's case: `"type": "strng"` in a v1 module's output said `data schema: "strng" is not valid under
    any of the schemas listed in the 'anyOf' keyword`."""

    def edit(schema: Any) -> None:
        schema["output"]["properties"]["result"]["type"] = "strng"
        schema["input"]["required"] = "diff"

    root = _v1_with(tmp_path, edit)
    proc = run_cogn(["validate", str(root)], cwd=tmp_path)
    assert proc.returncode == 1
    out = proc.stdout
    text = (root / "schema.json").read_text(encoding="utf-8")
    # Located where it always was: the keyword's value.
    line, col = pos(text, '"strng"')
    assert f"S001 {root / 'schema.json'}:{line}:{col}  output.properties.result.type: " in out
    assert f'output.properties.result.type: "strng" is not a JSON Schema type; did you mean "string"? {TYPES}' in out
    assert 'input.required: must be a list of property names, not the single name "diff" (write ["diff"])' in out
    assert "data schema" not in out and "anyOf" not in out


def test_a_required_that_is_not_a_list_is_one_problem_not_two(tmp_path: Path) -> None:
    files = clean_v22()
    schema: Any = files["schema.json"]
    schema["data"]["required"] = "rationale"
    found = validate_module(load_module(make_module(tmp_path, files)))
    at_required = [d for d in found if d.code in ("S001", "V004")]
    assert [d.code for d in at_required] == ["S001"]  # not also "the data schema does not require rationale"
    assert at_required[0].message.startswith("data.required: must be a list of property names")
