"""The contract as a tree (core/module/contract_map.py): fields, required, enums, and the goldens behind each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modkit import clean_v22, make_module

from cogtui.core.module.contract_map import ITEMS, FieldNode, contract_map, values_at
from cogtui.core.module.loader import load_module


def node(nodes: tuple[FieldNode, ...], dotted: str) -> FieldNode:
    return next(n for n in nodes if n.dotted == dotted)


def two_goldens(tmp_path: Path) -> Path:
    files: dict[str, Any] = clean_v22()
    files["module.yaml"]["tests"].append("tests/case2.input.json -> tests/case2.expected.json")
    files["tests/case2.input.json"] = {"text": "Please add dark mode"}
    files["tests/case2.expected.json"] = {
        "ok": True,
        "meta": {"confidence": 0.8, "risk": "none", "explain": "A wish: feature."},
        "data": {
            "label": {"custom": "wish", "reason": "no defect"},
            "rationale": "r",
            "extensions": {"insights": [{"text": "t", "suggested_mapping": "data.kind"}]},
        },
    }
    return make_module(tmp_path, files)


def test_fields_with_types_required_and_enums(tmp_path: Path) -> None:
    cmap = contract_map(load_module(two_goldens(tmp_path)))
    label = node(cmap.nodes, "data.label")
    assert label.type == "string | object" and label.required and label.enum == ("bug", "feature")
    assert node(cmap.nodes, "data.label.custom").required is True
    assert node(cmap.nodes, "data.rationale").required
    assert node(cmap.nodes, "data.extensions").required is False
    # a local $ref is followed; array items are their own node
    insights = node(cmap.nodes, "data.extensions.insights[]")
    assert insights.path == ("extensions", "insights", ITEMS)
    assert node(cmap.nodes, "data.extensions.insights[].suggested_mapping").required
    assert [n.dotted for n in cmap.section("input")] == ["input", "input.text"]
    assert cmap.overflow["max_items"] == 5 and cmap.enums == {"strategy": "extensible"}


def test_each_field_lists_the_goldens_that_exercise_it(tmp_path: Path) -> None:
    cmap = contract_map(load_module(two_goldens(tmp_path)))
    assert cmap.goldens == ("case1", "case2")
    assert node(cmap.nodes, "input.text").goldens == ("case1", "case2")
    assert node(cmap.nodes, "data.label").goldens == ("case1", "case2")
    assert node(cmap.nodes, "data.label").enum_values_used == ("bug",)  # "feature" is never tested
    assert node(cmap.nodes, "data.label.custom").goldens == ("case2",)
    assert node(cmap.nodes, "data.extensions.insights[].text").goldens == ("case2",)
    assert node(cmap.nodes, "error.code").goldens == ()
    untested = {n.dotted for n in cmap.untested()}
    assert "error.code" in untested and "input.text" not in untested


def test_an_error_golden_exercises_the_error_section(tmp_path: Path) -> None:
    files: dict[str, Any] = clean_v22()
    files["tests/case1.expected.json"] = {
        "ok": False,
        "meta": {"confidence": 0.0, "risk": "high", "explain": "x"},
        "error": {"code": "E1000", "message": "no"},
    }
    cmap = contract_map(load_module(make_module(tmp_path, files)))
    assert node(cmap.nodes, "error.code").goldens == ("case1",)
    assert node(cmap.nodes, "data.label").goldens == ()


def test_a_self_referencing_schema_is_bounded(tmp_path: Path) -> None:
    files: dict[str, Any] = clean_v22()
    files["schema.json"]["$defs"]["tree"] = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
    }
    files["schema.json"]["data"]["properties"]["tree"] = {"$ref": "#/$defs/tree"}
    cmap = contract_map(load_module(make_module(tmp_path, files)))
    assert cmap.truncated
    assert max(n.depth for n in cmap.nodes) <= 13


def test_values_at_fans_out_over_items() -> None:
    doc = {"a": [{"b": 1}, {"c": 2}, {"b": 3}]}
    assert values_at(doc, ("a", ITEMS, "b")) == [1, 3]
    assert values_at(doc, ("a", "b")) == []
    assert values_at(doc, ()) == [doc]


def test_bundled_module_map(tmp_path: Path) -> None:
    module = load_module(Path(__file__).resolve().parents[1] / "modules" / "code-reviewer")
    cmap = contract_map(module)
    severity = node(cmap.nodes, "data.issues[].severity")
    assert severity.enum == ("low", "medium", "high") and severity.goldens
    assert node(cmap.nodes, "meta.trace_id").goldens == ()


# ------------------------------------------------------------------ every file of a module (core/files/module_listing.py)


def test_module_files_lists_known_first_then_every_other_file(tmp_path: Path) -> None:
    from cogtui.core.files.module_listing import module_files

    root = make_module(
        tmp_path, {**clean_v22(), "MODULE.md": "# notes\n", "examples/a.txt": "x", "assets/i.png": b"\x89"}
    )
    (root / ".hidden").write_text("h")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "x.pyc").write_bytes(b"")
    (root / "module.yaml~").write_text("backup")
    outside = tmp_path / "secret.txt"
    outside.write_text("s")
    (root / "link.txt").symlink_to(outside)
    listing = module_files(root, [root / "module.yaml", root / "schema.json"])
    rel = [p.relative_to(root).as_posix() for p in listing.files]
    assert rel[:2] == ["module.yaml", "schema.json"]
    assert {"MODULE.md", "examples/a.txt", "assets/i.png", "prompt.md", "tests/case1.input.json"} <= set(rel)
    assert not {".hidden", "module.yaml~", "link.txt", "__pycache__/x.pyc"} & set(rel)
    assert len(rel) == len(set(rel)) and not listing.truncated
    capped = module_files(root, [], limit=3)
    assert len(capped.files) == 3 and capped.truncated
