"""The text editors under the migration: JSON and YAML edits keep everything they do not touch."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import yaml

from cogtui.core.authoring.migration.jsondoc import JsonDoc
from cogtui.core.authoring.migration.prompt_section import append_section, describes_envelope, envelope_section
from cogtui.core.authoring.migration.schema_upgrade import OverflowSettings, assemble_v0
from cogtui.core.authoring.migration.yamldoc import YamlDoc, emit, yaml_scalar
from cogtui.core.files.text_codec import detect_style, unified_diff

JSON_TEXT = """{
    "b": {"x": 1},
    "a": [
        1,
        2
    ],
    "name": "\\u4e2d\\u6587"
}
"""


def test_json_edits_touch_only_their_spans() -> None:
    doc = JsonDoc(JSON_TEXT)
    doc.insert((), "meta", {"k": "v"}, before="b")
    doc.rename(("a",), "aa")
    doc.replace(("b", "x"), 2)
    doc.insert(("b",), "y", [3])
    text, reformatted = doc.finish()
    assert not reformatted
    assert (
        text
        == """{
    "meta": {"k": "v"},
    "b": {"x": 2, "y": [3]},
    "aa": [
        1,
        2
    ],
    "name": "\\u4e2d\\u6587"
}
"""
    )
    assert list(json.loads(text)) == ["meta", "b", "aa", "name"]


def test_json_multiline_insert_uses_the_files_indent_and_escaping() -> None:
    doc = JsonDoc(JSON_TEXT)
    doc.insert((), "zh", {"k": ["中", "文"], "n": {"deep": True, "more": [1, {"x": 1}]}})
    text, _ = doc.finish()
    assert (
        '    "zh": {\n        "k": [\n            "\\u4e2d",' in text
    )  # 4-space indent, ASCII escapes as the file has
    assert json.loads(text)["zh"]["k"] == ["中", "文"]


def test_json_broken_edit_falls_back_to_reserialising() -> None:
    doc = JsonDoc('{"a": 1}\n')
    doc.broken = True
    doc.insert((), "b", 2)
    text, reformatted = doc.finish()
    assert reformatted and json.loads(text) == {"a": 1, "b": 2}


def test_yaml_insert_and_replace_keep_comments() -> None:
    text = "# head\nname: m  # the name\n\n# about excludes\nexcludes:\n  - a  # why\n\n# trailing note\n\nextra: 1\n"
    doc = YamlDoc(text, Path("module.yaml"))
    doc.insert_blocks([("tier", "decision", ["tier: decision"])])
    doc.set_block("excludes", ["a", "b"], emit("excludes", ["a", "b"]))
    doc.set_block("tests", ["t"], emit("tests", ["t"]))
    out, reformatted = doc.finish()
    assert not reformatted
    # tests goes after the last key that precedes it in the spec's order; the unknown key keeps its place.
    assert out == (
        "# head\nname: m  # the name\n\ntier: decision\n\n# about excludes\nexcludes:\n  - a\n  - b\n\n"
        "tests:\n  - t\n\n# trailing note\n\nextra: 1\n"
    )


def test_yaml_flow_style_document_falls_back_to_a_dump() -> None:
    doc = YamlDoc("{name: m, version: 1.0.0}\n", Path("module.yaml"))
    assert not doc.editable
    doc.set_block("tier", "exec")
    out, reformatted = doc.finish()
    assert reformatted and yaml.safe_load(out) == {"name": "m", "version": "1.0.0", "tier": "exec"}


def test_yaml_scalars_round_trip() -> None:
    for value in ("plain", "a: b", "# not a comment", "yes", "123", "", "x -> y", "中文", "trailing ", True, 5, None):
        assert yaml.safe_load(f"k: {yaml_scalar(value)}") == {"k": value}, value


def test_v0_assembly_rewrites_refs_and_renames_clashing_defs() -> None:
    notes: list[str] = []
    inp = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:in",
        "properties": {"a": {"$ref": "#/$defs/t"}, "self": {"$ref": "#"}},
        "$defs": {"t": {"type": "string"}},
    }
    out = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {
            "b": {"$ref": "#/definitions/t"},
            "c": {"$ref": "input.schema.json#/$defs/t"},
            "d": {"$ref": "#/properties/b"},
            "e": {"$ref": "other.json#/x"},
        },
        "definitions": {"t": {"type": "integer"}},
    }
    root = assemble_v0(inp, out, notes)
    assert root["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert root["input"]["properties"] == {"a": {"$ref": "#/$defs/t"}, "self": {"$ref": "#/input"}}
    assert root["data"]["properties"] == {
        "b": {"$ref": "#/$defs/data_t"},
        "c": {"$ref": "#/$defs/t"},
        "d": {"$ref": "#/data/properties/b"},
        "e": {"$ref": "other.json#/x"},
    }
    assert root["$defs"] == {"t": {"type": "string"}, "data_t": {"type": "integer"}}
    assert "$id" not in root["input"] and any("$id" in n for n in notes)


def test_a_created_schema_json_declares_its_draft() -> None:
    plain = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert assemble_v0(plain, plain, [])["$schema"] == "http://json-schema.org/draft-07/schema#"
    tuple_2020 = {"type": "array", "prefixItems": [{"type": "string"}]}
    assert assemble_v0(plain, tuple_2020, [])["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    own = {**plain, "$schema": "http://json-schema.org/draft-04/schema#"}
    assert assemble_v0(own, own, [])["$schema"] == "http://json-schema.org/draft-04/schema#"


def test_envelope_section_satisfies_v005_and_appends_verbatim() -> None:
    section = envelope_section(OverflowSettings(True, 5, True))
    assert describes_envelope(section)
    assert append_section("a\r\nb", section, "\r\n").startswith("a\r\nb\r\n\r\n## Response Format")
    assert append_section("a\n\n", section, "\n") == "a\n\n" + section
    assert "no `extensions`" in envelope_section(OverflowSettings(False, 0, False))


def test_text_styles_are_detected() -> None:
    assert detect_style(b"a\r\nb\r\n", "a\r\nb\r\n").label == "UTF-8, CRLF"
    raw = codecs.BOM_UTF16_LE + "x\n".encode("utf-16-le")
    style = detect_style(raw, "x\n")
    assert style.label == "UTF-16 LE, LF" and style.encode("x\n") == raw
    assert unified_diff("a", "a\n", "a/f", "b/f").count("No newline at end of file") == 1
