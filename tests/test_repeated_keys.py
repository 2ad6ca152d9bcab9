"""A key given twice in one YAML mapping or JSON object is P008 at the repetition, on every parse path (FMT-5).

`json` and PyYAML keep the last value without a word; a second `"required": []` silently dropped what the
author read first. Each way a module file is parsed is covered: `json` (schema.json, golden tests), the
block-YAML reader and the JSON-shaped fast path (both leave a repetition to PyYAML), PyYAML's C and
pure-Python loaders, MODULE.md frontmatter, and the node-tree reading the migration uses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_json import report
from modkit import clean_v1, clean_v22, make_module, pos, run_cogn

from cogtui.core.files.repeated_keys import check_yaml_keys
from cogtui.core.files.sourcemap import ParseFailure, parse_json, parse_yaml
from cogtui.core.files.yaml_as_json import json_shaped
from cogtui.core.files.yaml_block import block_yaml
from cogtui.core.module.loader import load_module

P = Path("/virtual/module.yaml")


def refusal(parse: Any, *args: Any, **kwargs: Any) -> tuple[str, str, tuple[int | None, int | None]]:
    with pytest.raises(ParseFailure) as caught:
        parse(*args, **kwargs)
    found = caught.value.diagnostic
    return found.code, found.message, (found.line, found.column)


# ---------------------------------------------------------------- JSON


def test_json_repeated_key_is_located_at_the_repetition_naming_the_first_line() -> None:
    text = '{\n  "a": 1,\n  "b": {"a": 3},\n  "a": [5, 6]\n}\n'
    code, message, where = refusal(parse_json, text, P)
    assert code == "P008" and where == pos(text, '"a": [')
    assert message == 'key "a" appears twice in this object (first at line 2)'


def test_json_reports_the_repetition_that_comes_first_and_decodes_escaped_names() -> None:
    text = '{"outer": {"x": 1, "\\u0078": 2}, "y": 1, "y": 2}'
    code, message, where = refusal(parse_json, text, P)
    assert code == "P008" and where == pos(text, '"\\u0078"') and message.startswith('key "x" appears twice')


def test_json_keys_repeated_only_across_objects_and_arrays_are_fine() -> None:
    text = '{"a": {"a": {"a": 1}}, "b": [{"k": 1}, {"k": 2}], "s": "\\"a\\": 1, \\"a\\": 2", "c": ["a", "a"]}'
    assert parse_json(text, P).value["b"] == [{"k": 1}, {"k": 2}]


def test_a_json_syntax_error_is_still_the_syntax_error() -> None:
    code, _message, _where = refusal(parse_json, '{"a": 1, "a": 2, }', P)
    assert code == "P002"


# ---------------------------------------------------------------- YAML: every reader


def test_block_yaml_repeated_key_goes_to_pyyaml_which_says_p008() -> None:
    text = "# manifest\nname: x\ntier: decision\ntier: exec\n"
    assert block_yaml(text) is None  # the fast reader does not read it: PyYAML's answer decides
    code, message, where = refusal(parse_yaml, text, P)
    assert (code, message, where) == ("P008", "key tier appears twice in this mapping (first at line 3)", (4, 1))


def test_nested_and_sequence_item_repetitions_are_found() -> None:
    text = "io:\n  input: a\n  data: b\n  input: c\ntests:\n  - k: 1\n    k: 2\n"
    assert refusal(parse_yaml, text, P)[2] == (4, 3)  # the earliest repetition
    assert refusal(parse_yaml, "tests:\n  - k: 1\n    k: 2\n", P)[2] == (3, 5)


def test_json_shaped_yaml_with_a_repeated_key_leaves_the_fast_path() -> None:
    text = '{"name": "x", "name": "y"}'
    assert json_shaped(text) == (False, None)
    code, message, where = refusal(parse_yaml, text, P)
    assert code == "P008" and where == (1, 15) and message.startswith('key "name" appears twice')


@pytest.mark.parametrize("loader", [yaml.CSafeLoader, yaml.SafeLoader], ids=["libyaml", "pure-python"])
def test_both_pyyaml_loaders_compose_trees_the_check_refuses(loader: type) -> None:
    text = "a: &x 1\nb:\n  - {k: 1, 'k': 2}\n"
    node = yaml.compose(text, Loader=loader)
    with pytest.raises(ParseFailure) as caught:
        check_yaml_keys(node, P, 0)
    found = caught.value.diagnostic
    assert (found.code, found.line, found.column) == ("P008", 3, 12)
    assert "key 'k' appears twice" in found.message


def test_the_pure_python_loader_path_refuses_a_repetition_too() -> None:
    """Text with many nesting characters goes to the pure-Python loader (libyaml recursion guard)."""
    text = "a: &x 1\na: 2\n# " + "-" * 2100 + "\n"
    assert refusal(parse_yaml, text, P)[:1] == ("P008",)
    assert refusal(parse_yaml, "a: 1\nb: 2\na: 3\n", P, yaml_nodes=True)[2] == (3, 1)


@pytest.mark.parametrize(
    ("text", "shown", "where"),
    [
        ("~: 1\nnull: 2\n", "null", (2, 1)),
        ("1: a\n0x1: b\n", "0x1", (2, 1)),
        ("'q': 1\nq: 2\n", "q", (2, 1)),
        ('x: 1\n"x": 2\n', '"x"', (2, 1)),
    ],
)
def test_yaml_keys_compare_as_the_values_pyyaml_builds(text: str, shown: str, where: tuple[int, int]) -> None:
    code, message, at = refusal(parse_yaml, text, P)
    assert code == "P008" and at == where and message.startswith(f"key {shown} appears twice")


def test_a_merge_may_be_overridden_and_distinct_keys_stay_distinct() -> None:
    text = "base: &b {a: 1, c: 3}\nx:\n  <<: *b\n  a: 2\n'1': s\n1: i\n"
    value = parse_yaml(text, P).value
    assert value["x"] == {"a": 2, "c": 3} and value["1"] == "s" and value[1] == "i"


def test_frontmatter_repetition_is_located_on_the_file_line() -> None:
    text = "name: x\nversion: 1.0.0\nname: y\n"
    assert refusal(parse_yaml, text, Path("MODULE.md"), line_offset=1)[1:] == (
        "key name appears twice in this mapping (first at line 2)",
        (4, 1),
    )


# ---------------------------------------------------------------- modules end to end


def test_validate_refuses_a_manifest_with_a_repeated_tier_at_the_effective_key(tmp_path: Path) -> None:
    files = clean_v22()
    manifest = yaml.safe_dump(files["module.yaml"], sort_keys=False).replace(
        "tier: decision\n", "tier: decision\ntier: exec\n"
    )
    root = make_module(tmp_path, {**files, "module.yaml": manifest})
    proc = run_cogn(["validate", str(root), "--json"], cwd=tmp_path)
    errors = [d for d in report(proc.stdout)["diagnostics"] if d["severity"] == "error"]
    first = manifest.split("\n").index("tier: decision") + 1
    assert [(d["code"], d["line"], d["column"]) for d in errors] == [("P008", first + 1, 1)]
    assert errors[0]["message"] == f"key tier appears twice in this mapping (first at line {first})"
    assert proc.returncode == 1


def test_a_schema_whose_repeated_required_would_drop_a_field_never_runs(tmp_path: Path) -> None:
    files = clean_v22()
    schema = json.dumps(files["schema.json"], indent=2)
    schema = schema.replace(
        '"required": [\n      "text"\n    ],', '"required": [\n      "text"\n    ],\n    "required": [],'
    )
    root = make_module(tmp_path, {**files, "schema.json": schema})
    module = load_module(root)
    found = [d for d in module.load_diagnostics if d.code == "P008"]
    assert [(d.file, d.line) for d in found] == [(root / "schema.json", pos(schema, '"required": []')[0])]
    proc = run_cogn(["run", str(root), "--input", "{}", "--provider", "replay", "--json"], cwd=tmp_path)
    assert proc.returncode != 0 and "appears twice" in proc.stdout


def test_a_golden_test_with_a_repeated_key_is_said(tmp_path: Path) -> None:
    files = clean_v22()
    files["tests/case1.expected.json"] = '{"ok": true, "ok": false}'
    module = load_module(make_module(tmp_path, files))
    found = [(d.code, d.file.name if d.file else None, d.line, d.column) for d in module.load_diagnostics]
    assert ("P008", "case1.expected.json", 1, 14) in found


def test_module_md_frontmatter_repetition_is_said(tmp_path: Path) -> None:
    files = clean_v1()
    text = files["MODULE.md"]
    assert isinstance(text, str)
    files["MODULE.md"] = text.replace("version: 1.0.0\n", "version: 1.0.0\nversion: 2.0.0\n")
    module = load_module(make_module(tmp_path, files))
    assert [(d.code, d.line) for d in module.load_diagnostics if d.code == "P008"] == [("P008", 4)]


def test_a_ref_target_file_with_a_repeated_key_is_said_and_never_runs(tmp_path: Path) -> None:
    files = clean_v22()
    schema: Any = files["schema.json"]
    schema["input"]["properties"]["text"] = {"$ref": "defs.json#/text"}
    files["defs.json"] = '{"text": {"type": "string", "type": "integer"}}'
    root = make_module(tmp_path, files)
    proc = run_cogn(["validate", str(root), "--json"], cwd=tmp_path)
    errors = [d for d in report(proc.stdout)["diagnostics"] if d["severity"] == "error"]
    assert [d["code"] for d in errors] == ["S002"], errors
    assert 'key "type" appears twice in this object (first at line 1)' in errors[0]["message"]
    ran = run_cogn(["run", str(root), "--input", '{"text": "x"}', "--provider", "replay", "--json"], cwd=tmp_path)
    assert ran.returncode != 0 and "appears twice" in ran.stdout
