"""Promotion: custom enum values and suggested mappings become schema structure, through a reviewable plan."""

from __future__ import annotations

import codecs
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.authoring.migration import MigrationError, undo_latest
from cogtui.core.authoring.promote import (
    PromotionError,
    apply_promotion,
    examples_look_like_lists,
    looks_plural,
    parse_field,
    plan_enum_promotion,
    plan_mapping_promotion,
)
from cogtui.core.diagnostics import Severity
from cogtui.core.module.loader import load_module

CODE_REVIEWER = Path(__file__).resolve().parent.parent / "modules" / "code-reviewer"
CATEGORY_ENUM = ("data", "properties", "issues", "items", "properties", "category", "oneOf", 0, "enum")


@pytest.fixture
def reviewer(tmp_path: Path, data_dir: Path) -> Path:
    dest = tmp_path / "modules" / "code-reviewer"
    shutil.copytree(CODE_REVIEWER, dest)
    return dest


def schema(root: Path) -> dict[str, Any]:
    return json.loads((root / "schema.json").read_text(encoding="utf-8"))


def at(value: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def changed_lines(diff: str) -> tuple[list[str], list[str]]:
    lines = [line for line in diff.splitlines() if not line.startswith(("+++", "---"))]
    return [line[1:] for line in lines if line.startswith("+")], [line[1:] for line in lines if line.startswith("-")]


def errors(diagnostics: list) -> list[str]:
    return [f"{d.code} {d.message}" for d in diagnostics if d.severity is Severity.ERROR]


# ---------------------------------------------------------------- enum members


def test_enum_promotion_adds_one_line_and_leaves_the_rest_byte_identical(reviewer: Path) -> None:
    before = (reviewer / "schema.json").read_bytes()
    plan = plan_enum_promotion(load_module(reviewer), "issues[].category", "concurrency")
    assert (reviewer / "schema.json").read_bytes() == before  # planning never writes
    (change,) = plan.files
    assert (change.path, change.action, change.old_bytes) == ("schema.json", "modify", before)
    added, removed = changed_lines(change.diff)
    assert removed == [] and [a.strip() for a in added] == ['"concurrency",']
    # Exactly one line is inserted, before the catch-all "other"; nothing else moves.
    assert change.new_bytes is not None
    old_lines, new_lines = before.decode().split("\n"), change.new_bytes.decode().split("\n")
    i = next(n for n, line in enumerate(new_lines) if "concurrency" in line)
    assert new_lines[:i] + new_lines[i + 1 :] == old_lines
    assert new_lines[i + 1].strip() == '"other"'
    assert any("concurrency" in note and "issues[].category" in note for note in plan.notes)


def test_applied_enum_promotion_validates_and_undo_restores(reviewer: Path) -> None:
    before = (reviewer / "schema.json").read_bytes()
    plan = plan_enum_promotion(load_module(reviewer), "issues[].category", "concurrency")
    result, diagnostics = apply_promotion(plan)
    assert result.modified == ("schema.json",) and result.backup_dir is not None
    assert errors(diagnostics) == []
    members = at(schema(reviewer), CATEGORY_ENUM)
    assert members[-2:] == ["concurrency", "other"] and members.count("concurrency") == 1
    undo_latest("code-reviewer", reviewer)
    assert (reviewer / "schema.json").read_bytes() == before


def test_enum_promotion_errors(reviewer: Path) -> None:
    module = load_module(reviewer)
    with pytest.raises(PromotionError, match="already a member"):
        plan_enum_promotion(module, "issues[].category", "security")
    with pytest.raises(PromotionError, match="no field 'owner'"):
        plan_enum_promotion(module, "issues[].owner", "x")
    with pytest.raises(PromotionError, match="no field 'nope'"):
        plan_enum_promotion(module, "nope", "x")
    with pytest.raises(PromotionError, match="has no enum"):
        plan_enum_promotion(module, "issues[].title", "x")
    with pytest.raises(PromotionError, match="not an array"):
        plan_enum_promotion(module, "verdict[]", "x")
    with pytest.raises(PromotionError, match="not a field path"):
        plan_enum_promotion(module, "issues..category", "x")
    with pytest.raises(PromotionError, match="non-empty"):
        plan_enum_promotion(module, "verdict", " ")


def test_plain_enums_and_implicit_arrays(reviewer: Path) -> None:
    module = load_module(reviewer)
    plan = plan_enum_promotion(module, "verdict", "block")  # a plain enum, no catch-all: appended
    added, removed = changed_lines(plan.files[0].diff)
    assert [a.strip() for a in added] == ['"request_changes",', '"block"'] and [r.strip() for r in removed] == [
        '"request_changes"'
    ]
    # `issues.category` without [] steps into the array as `issues[].category` does.
    plan = plan_enum_promotion(module, "issues.category", "concurrency")
    assert "concurrency" in at(json.loads(plan.files[0].new_text or ""), CATEGORY_ENUM)


def test_enum_behind_a_ref_and_inline_arrays(tmp_path: Path, reviewer: Path) -> None:
    doc = schema(reviewer)
    category = at(doc, CATEGORY_ENUM[:-3])
    doc["$defs"]["category"] = category
    doc["data"]["properties"]["issues"]["items"]["properties"]["category"] = {"$ref": "#/$defs/category"}
    text = json.dumps(doc, indent=2)
    # An enum written on one line stays on one line.
    one_line = json.dumps(category["oneOf"][0]["enum"])
    text = re.sub(r'\[\s*"correctness",[^\]]*"other"\s*\]', lambda _: one_line, text, count=1)
    (reviewer / "schema.json").write_text(text + "\n", encoding="utf-8")
    assert '"style", "other"]' in text
    plan = plan_enum_promotion(load_module(reviewer), "issues[].category", "concurrency")
    added, removed = changed_lines(plan.files[0].diff)
    assert len(added) == 1 and len(removed) == 1 and '"style", "concurrency", "other"]' in added[0]
    assert any("$defs/category" in note and "every field" in note for note in plan.notes)
    _, diagnostics = apply_promotion(plan)
    assert errors(diagnostics) == []


@pytest.mark.parametrize("bom, crlf", [(codecs.BOM_UTF8, True), (b"", True), (codecs.BOM_UTF8, False)])
def test_encoding_and_line_ends_are_kept(reviewer: Path, bom: bytes, crlf: bool) -> None:
    path = reviewer / "schema.json"
    text = path.read_text(encoding="utf-8")
    path.write_bytes(bom + (text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
    original = path.read_bytes()
    plan = plan_enum_promotion(load_module(reviewer), "issues[].category", "concurrency")
    new = plan.files[0].new_bytes or b""
    assert new.startswith(bom) and new.count(b"\r\n") == (new.count(b"\n") if crlf else 0)
    line = b'                    "concurrency",' + (b"\r\n" if crlf else b"\n")
    assert new.replace(line, b"", 1) == original
    apply_promotion(plan)
    assert path.read_bytes() == new
    mapping = plan_mapping_promotion(load_module(reviewer), "assumptions", [])
    assert (mapping.files[0].new_bytes or b"").startswith(bom)
    assert (mapping.files[0].new_bytes or b"").count(b"\r\n") == (
        (mapping.files[0].new_bytes or b"").count(b"\n") if crlf else 0
    )


# ---------------------------------------------------------------- new fields


def test_mapping_adds_an_optional_field_before_rationale(reviewer: Path) -> None:
    examples = [{"text": "The change assumes the cache is warm. More detail follows.", "evidence": "line 4"}]
    plan = plan_mapping_promotion(load_module(reviewer), "data.cache_assumption", examples)
    added, removed = changed_lines(plan.files[0].diff)
    assert removed == [] and added[0].strip() == '"cache_assumption": {'
    new = json.loads(plan.files[0].new_text or "")
    props = new["data"]["properties"]
    assert props["cache_assumption"] == {
        "type": "string",
        "description": 'Promoted from overflow insights, e.g. "The change assumes the cache is warm."',
    }
    assert list(props)[-3:] == ["cache_assumption", "rationale", "extensions"]
    assert "cache_assumption" not in new["data"]["required"]
    result, diagnostics = apply_promotion(plan)
    assert result.modified == ("schema.json",) and errors(diagnostics) == []


def test_input_mappings_go_into_the_input_schema_and_data_mappings_into_data(reviewer: Path) -> None:
    """Issue 12: a suggested mapping under `input.` names a field the caller should pass: the input schema gains
    it (optional); `data.` and bare mappings go into the data schema as before."""
    examples = [{"text": "The reviewer needed the ticket the change is for.", "evidence": "no ticket given"}]
    plan = plan_mapping_promotion(load_module(reviewer), "input.ticket_id", examples)
    new = json.loads(plan.files[0].new_text or "")
    assert new["input"]["properties"]["ticket_id"]["type"] == "string"
    assert "ticket_id" not in new["input"].get("required", []) and "ticket_id" not in new["data"]["properties"]
    assert any("existing inputs and golden tests stay valid" in n for n in plan.notes)
    result, diagnostics = apply_promotion(plan)
    assert result.modified == ("schema.json",) and errors(diagnostics) == []
    with pytest.raises(PromotionError, match="already a field of the input schema"):
        plan_mapping_promotion(load_module(reviewer), "input.language", [])
    data = plan_mapping_promotion(load_module(reviewer), "data.ticket_id", examples)
    assert "ticket_id" in json.loads(data.files[0].new_text or "")["data"]["properties"]


def test_plural_names_and_list_examples_become_string_lists(reviewer: Path) -> None:
    module = load_module(reviewer)
    plural = json.loads(plan_mapping_promotion(module, "assumptions", []).files[0].new_text or "")
    assert plural["data"]["properties"]["assumptions"]["type"] == "array"
    assert plural["data"]["properties"]["assumptions"]["items"] == {"type": "string"}
    listed = plan_mapping_promotion(module, "issues[].owner", [{"text": "Owners:\n- alice\n- bob"}])
    item_props = json.loads(listed.files[0].new_text or "")["data"]["properties"]["issues"]["items"]["properties"]
    assert item_props["owner"]["type"] == "array"
    single = plan_mapping_promotion(module, "issues[].owner", [{"text": "Alice owns this file."}])
    assert (
        json.loads(single.files[0].new_text or "")["data"]["properties"]["issues"]["items"]["properties"]["owner"][
            "type"
        ]
        == "string"
    )
    assert looks_plural("open_questions") and looks_plural("riskFactors")
    assert not looks_plural("status") and not looks_plural("analysis") and not looks_plural("address")
    assert examples_look_like_lists([{"evidence": "1. a\n2. b"}]) and not examples_look_like_lists([{"text": "- one"}])


def test_mapping_into_an_enum_adds_a_member(reviewer: Path) -> None:
    # SPEC-v2.2 §7.3 writes `changes.type.add_type_hints`: the last segment is a value of the enum before it.
    plan = plan_mapping_promotion(load_module(reviewer), "issues.category.flaky_test", [])
    assert "flaky_test" in at(json.loads(plan.files[0].new_text or ""), CATEGORY_ENUM)
    assert any("names a new value" in note for note in plan.notes)
    with pytest.raises(PromotionError, match="already a member"):
        plan_mapping_promotion(load_module(reviewer), "issues.category.security", [])


def test_mapping_errors(reviewer: Path) -> None:
    module = load_module(reviewer)
    with pytest.raises(PromotionError, match="already a field"):
        plan_mapping_promotion(module, "summary", [])
    with pytest.raises(PromotionError, match="already a field"):
        plan_mapping_promotion(module, "data.issues[].severity", [])
    with pytest.raises(PromotionError, match="no field 'nope'"):
        plan_mapping_promotion(module, "nope.owner", [])
    with pytest.raises(PromotionError, match="not an object"):
        plan_mapping_promotion(module, "summary.length", [])
    with pytest.raises(PromotionError, match="not a usable field name"):
        plan_mapping_promotion(module, "issues[].has space", [])


def test_a_stale_plan_is_refused(reviewer: Path) -> None:
    plan = plan_mapping_promotion(load_module(reviewer), "assumptions", [])
    (reviewer / "schema.json").write_text(
        (reviewer / "schema.json").read_text(encoding="utf-8") + " ", encoding="utf-8"
    )
    with pytest.raises(MigrationError, match="changed after the plan"):
        apply_promotion(plan)


def test_a_module_without_a_parsable_schema(reviewer: Path) -> None:
    (reviewer / "schema.json").write_text("{ not json", encoding="utf-8")
    with pytest.raises(PromotionError, match="no data schema"):
        plan_enum_promotion(load_module(reviewer), "verdict", "x")


def test_parse_field() -> None:
    assert parse_field("issues[].category") == [("issues", 1), ("category", 0)]
    assert parse_field("matrix[][]") == [("matrix", 2)]


# ---------------------------------------------------------------- any schema: a plan or a PromotionError


NAMES = st.sampled_from(["issues", "category", "owner", "tags", "data", "x"])
SCHEMAS = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["object", "array", "string", ["string", "null"]]),
            "enum": st.lists(st.sampled_from(["a", "b", "other", 1, None]), max_size=3),
            "$ref": st.sampled_from(["#/$defs/x", "#/nowhere", "other.json#/a", "#", "#/$schema"]),
        },
    ),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(NAMES, inner, max_size=3),
            "items": inner,
            "oneOf": st.lists(inner, max_size=2),
            "anyOf": st.lists(inner, max_size=2),
            "type": st.just("object"),
        },
    ),
    max_leaves=8,
)
FIELDS = st.lists(st.tuples(NAMES, st.integers(0, 1)), min_size=1, max_size=3).map(
    lambda segs: ".".join(n + "[]" * a for n, a in segs)
)


@property_settings(60, shared_fixtures=True)
@given(data=SCHEMAS, defs=SCHEMAS, field=FIELDS, value=st.sampled_from(["a", "new", "x"]))
def test_any_schema_gives_a_plan_or_a_promotion_error(
    reviewer: Path, data: dict, defs: dict, field: str, value: str
) -> None:
    doc = schema(reviewer)
    doc["data"], doc["$defs"]["x"] = data, defs
    (reviewer / "schema.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    module = load_module(reviewer)
    for make in (
        lambda: plan_enum_promotion(module, field, value),
        lambda: plan_mapping_promotion(module, f"{field}.{value}", [{"text": "t"}]),
    ):
        try:
            plan = make()
        except PromotionError:
            continue
        new = json.loads(plan.files[0].new_text or "")
        assert json.dumps(new) != json.dumps(doc)  # something was added, and the result is JSON


def test_an_existing_field_is_never_added_twice(reviewer: Path) -> None:
    module = load_module(reviewer)
    with pytest.raises(PromotionError, match="already a field"):
        plan_mapping_promotion(module, "strengths[]", [])  # a list that exists, asked for as a list
    with pytest.raises(PromotionError, match="already a field"):
        plan_mapping_promotion(module, "issues.severity", [])  # found through the array
