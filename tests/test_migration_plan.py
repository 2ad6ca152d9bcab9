"""Migration plans: what each upgrade path changes, the notes, the JSON shape, the plain rendering, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from modkit import clean_v22, make_module, mapping_in
from test_migration_kit import FIXTURE_NAMES, FIXTURES, MODULES, copy_module, tree

from cogtui.core.authoring.migration import MigrationPlan, plan_migration, render_plan, render_plan_text
from cogtui.core.authoring.migration.plan import confirm_first, severity_of
from cogtui.core.authoring.migration.tiering import exec_blockers
from cogtui.core.module.loader import load_module


def plan_for(path: Path, to: str = "2.2") -> MigrationPlan:
    return plan_migration(load_module(path), to)


def actions(plan: MigrationPlan) -> dict[str, str]:
    return {f.path: f.action for f in plan.files}


def new_text(plan: MigrationPlan, rel: str) -> str:
    text = next(f.new_text for f in plan.files if f.path == rel)
    assert text is not None, f"the plan deletes {rel}"
    return text


def test_v0_plan_files_actions_and_notes() -> None:
    plan = plan_for(MODULES / "legacy-summarizer")
    assert plan.ok and plan.source_format == "v0" and plan.target == "v2.2"
    assert actions(plan) == {
        "module.yaml": "create",
        "prompt.md": "create",
        "schema.json": "create",
        "README.md": "create",
        "tests/example.input.json": "create",
        "tests/example.expected.json": "create",
        "module.md": "delete",
        "input.schema.json": "delete",
        "output.schema.json": "delete",
        "constraints.yaml": "delete",
        "prompt.txt": "delete",
        "examples/input.json": "delete",
        "examples/output.json": "delete",
    }
    notes = "\n".join(plan.notes)
    assert plan.notes[0].startswith("tier: inferred decision because") and "confirm" in plan.notes[0]
    assert "no_network: true becomes policies: network: deny" in notes
    assert "no_side_effects: true becomes policies: side_effects: deny" in notes
    assert "require_confidence is dropped" in notes
    assert "require_rationale is kept" in notes and "no_inventing_data is kept" in notes
    schema = json.loads(new_text(plan, "schema.json"))
    assert list(schema) == ["$schema", "meta", "input", "data", "error", "$defs"]
    assert "confidence" not in schema["data"]["required"] and "rationale" in schema["data"]["required"]
    assert "confidence" in schema["data"]["properties"]  # still allowed in data
    assert schema["$defs"]["extensions"]["properties"]["insights"]["maxItems"] == 5
    manifest = yaml.safe_load(new_text(plan, "module.yaml"))
    assert manifest["tier"] == "decision" and manifest["schema_strictness"] == "medium"
    assert manifest["policies"] == {"network": "deny", "side_effects": "deny"}
    assert manifest["constraints"] == {"no_inventing_data": True, "require_rationale": True}
    assert manifest["tests"] == ["tests/example.input.json -> tests/example.expected.json"]
    expected = json.loads(new_text(plan, "tests/example.expected.json"))
    assert expected["ok"] is True and expected["meta"]["confidence"] == 0.91 and expected["meta"]["risk"] == "medium"


def test_v1_plan_maps_frontmatter_and_moves_examples() -> None:
    plan = plan_for(MODULES / "commit-message-writer")
    assert actions(plan) == {
        "module.yaml": "create",
        "prompt.md": "create",
        "schema.json": "modify",
        "tests/example.input.json": "create",
        "tests/example.expected.json": "create",
        "MODULE.md": "delete",
        "examples/input.json": "delete",
        "examples/output.json": "delete",
    }
    yaml_change = next(f for f in plan.files if f.path == "module.yaml")
    assert yaml_change.source == "MODULE.md" and yaml_change.diff.startswith("--- a/MODULE.md\n+++ b/module.yaml")
    assert yaml_change.new_text is not None
    manifest = yaml.safe_load(yaml_change.new_text)
    assert manifest["invocation"] == {"user_invocable": True, "agent_invocable": True} and manifest["context"] == "main"
    schema = json.loads(new_text(plan, "schema.json"))
    assert "output" not in schema and schema["data"]["properties"]["rationale"] == {"type": "string"}
    expected = json.loads(new_text(plan, "tests/example.expected.json"))
    assert isinstance(expected["data"]["rationale"], str) and expected["data"]["rationale"].startswith("Decisions:\n- ")
    assert any("structured rationale" in n for n in plan.notes)


def test_v21_plan_edits_in_place() -> None:
    plan = plan_for(MODULES / "api-naming-reviewer")
    assert actions(plan) == {"module.yaml": "modify", "prompt.md": "modify", "schema.json": "modify"}
    manifest = yaml.safe_load(new_text(plan, "module.yaml"))
    for key in ("tier", "schema_strictness", "overflow", "enums", "compat", "io"):
        assert key in manifest
    assert manifest["io"] == {
        "input": "./schema.json#/input",
        "data": "./schema.json#/data",
        "meta": "./schema.json#/meta",
        "error": "./schema.json#/error",
    }
    assert "## Response Format (Envelope v2.2)" in new_text(plan, "prompt.md")


def test_v21_goldens_get_meta(tmp_path: Path) -> None:
    plan = plan_for(copy_module(FIXTURES / "v21-reviewer", tmp_path))
    assert actions(plan)["tests/case1.expected.json"] == "modify"
    expected = json.loads(new_text(plan, "tests/case1.expected.json"))
    assert list(expected) == ["ok", "meta", "data"]
    assert expected["meta"] == {
        "confidence": 0.85,
        "risk": "low",
        "explain": "A constant default no longer rewrites the table, so the lock is brief.",
    }


def test_v22_to_v25_adds_response_and_modalities() -> None:
    plan = plan_for(MODULES / "code-reviewer", "2.5")
    assert actions(plan) == {"module.yaml": "modify"} and not plan.tier_inferred
    manifest = yaml.safe_load(new_text(plan, "module.yaml"))
    assert manifest["response"] == {"mode": "both"}
    assert manifest["modalities"] == {"input": ["text"], "output": ["text"]}
    diff = plan.files[0].diff
    assert all(line.startswith(("+", "---", "+++", "@@", " ")) for line in diff.splitlines())  # only additions


def test_legacy_to_v25_is_one_chained_plan() -> None:
    plan = plan_for(MODULES / "commit-message-writer", "2.5")
    assert plan.target == "v2.5" and plan.source_format == "v1"
    manifest = yaml.safe_load(new_text(plan, "module.yaml"))
    assert manifest["tier"] == "decision" and manifest["response"] == {"mode": "both"}
    assert [f.path for f in plan.files].count("module.yaml") == 1


@pytest.mark.parametrize(
    ("name", "to", "fmt"),
    [("code-reviewer", "2.2", "v2.2"), ("screenshot-auditor", "2.2", "v2.5"), ("incident-narrator", "2.5", "v2.5")],
)
def test_already_current_changes_nothing(name: str, to: str, fmt: str) -> None:
    plan = plan_for(MODULES / name, to)
    assert plan.already_current and plan.files == () and plan.source_format == fmt
    assert "nothing to change" in render_plan_text(plan)


def test_unknown_target_is_refused() -> None:
    with pytest.raises(ValueError):
        plan_for(MODULES / "commit-message-writer", "3.0")


def test_planning_writes_nothing(tmp_path: Path) -> None:
    roots = [copy_module(FIXTURES / n, tmp_path) for n in FIXTURE_NAMES]
    roots += [
        copy_module(MODULES / n, tmp_path)
        for n in ("legacy-summarizer", "commit-message-writer", "api-naming-reviewer")
    ]
    before = tree(tmp_path)
    for root in roots:
        for to in ("2.2", "2.5"):
            assert plan_for(root, to).ok
    assert tree(tmp_path) == before


def test_json_shape() -> None:
    data: dict[str, Any] = plan_for(MODULES / "commit-message-writer").to_json()
    assert {"module", "from", "to", "files", "notes"} <= set(data)
    assert data["module"] == "commit-message-writer" and data["from"] == "v1" and data["to"] == "v2.2"
    assert all(isinstance(n, str) for n in data["notes"]) and data["errors"] == [] and data["already_current"] is False
    for f in data["files"]:
        assert {"path", "action", "diff"} <= set(f) and f["action"] in ("create", "modify", "delete")
        assert isinstance(f["diff"], str)
    json.dumps(data)  # serialisable as is


def test_plain_rendering_reads_well_without_ansi() -> None:
    import io

    from cogtui.cli.output import Printer

    plan = plan_for(MODULES / "legacy-summarizer")
    stream = io.StringIO()
    render_plan(plan, Printer(stream))
    text = stream.getvalue()
    assert "\x1b[" not in text
    assert text == render_plan_text(plan)
    lines = text.splitlines()
    assert lines[0] == "legacy-summarizer: v0 -> v2.2  (6 create, 7 delete)"
    assert "files:" in lines and "notes:" in lines
    assert any(line.startswith("  create module.yaml") for line in lines)
    assert any(line.startswith("  ! tier: inferred decision") for line in lines)  # to confirm: marked, and first
    assert "=== create prompt.md (diff against prompt.txt)" in lines
    assert "+## Response Format (Envelope v2.2)" in lines
    assert "    (27 lines removed; its content is carried to prompt.md)" in lines


# ---------------------------------------------------------------- tier inference


def _v1(
    tmp_path: Path,
    name: str,
    responsibility: str,
    output: dict[str, Any],
    constraints: dict[str, Any] | None = None,
    out_schema: dict[str, Any] | None = None,
) -> Path:
    front: dict[str, Any] = {
        "name": name,
        "version": "1.0.0",
        "responsibility": responsibility,
        "excludes": ["guessing"],
    }
    if constraints:
        front["constraints"] = constraints
    schema = {
        "input": {"type": "object"},
        "output": out_schema
        or {
            "type": "object",
            "required": ["rationale"],
            "properties": {"rationale": {"type": "string"}, "confidence": {"type": "number"}},
        },
    }
    return make_module(
        tmp_path,
        {"MODULE.md": front, "schema.json": schema, "examples/input.json": {}, "examples/output.json": output},
        name=name,
    )


def test_tier_exploration(tmp_path: Path) -> None:
    root = _v1(tmp_path, "idea-storm", "Brainstorm product ideas for a market", {"rationale": "r", "confidence": 0.5})
    plan = plan_for(root)
    assert plan.tier == "exploration" and "brainstorm" in plan.notes[0]
    assert yaml.safe_load(new_text(plan, "module.yaml"))["overflow"]["max_items"] == 20


def test_tier_exec(tmp_path: Path) -> None:
    root = _v1(
        tmp_path,
        "fixer",
        "Generate a patch that is applied automatically to the config",
        {"rationale": "r", "confidence": 0.95, "changes": [{"risk": "low"}]},
        constraints={"no_side_effects": False},
    )
    plan = plan_for(root)
    assert plan.tier == "exec", plan.notes[0]
    manifest = yaml.safe_load(new_text(plan, "module.yaml"))
    assert manifest["overflow"] == {"enabled": False} and manifest["enums"] == {"strategy": "strict"}
    assert "extensions" not in json.loads(new_text(plan, "schema.json"))["data"]["properties"]


def test_exec_signals_below_the_gate_fall_back_to_decision(tmp_path: Path) -> None:
    root = _v1(
        tmp_path, "fixer", "Generate a patch that is applied automatically", {"rationale": "r", "confidence": 0.7}
    )
    plan = plan_for(root)
    assert plan.tier == "decision"
    assert "suggests exec" in plan.notes[0] and "outside the exec gate" in plan.notes[0]


# ---------------------------------------------------------------- bad input


def test_unparseable_frontmatter_names_file_and_line(tmp_path: Path) -> None:
    root = make_module(
        tmp_path,
        {
            "MODULE.md": "---\nname: mod\nversion: 1.0.0\nresponsibility: x\nexcludes: [a\n---\n# P\n",
            "schema.json": {"input": {}, "output": {}},
        },
    )
    plan = plan_for(root)
    assert not plan.ok and plan.files == ()
    err = plan.errors[0]
    assert err.code == "P001" and err.file == root / "MODULE.md" and (err.line, err.column) == (5, 11)  # the open [
    text = render_plan_text(plan)
    assert f"{root / 'MODULE.md'}:5:11 " in text and "nothing was written" in text


def test_missing_schema_is_an_error(tmp_path: Path) -> None:
    root = make_module(
        tmp_path, {"MODULE.md": {"name": "mod", "version": "1.0.0", "responsibility": "x", "excludes": ["a"]}}
    )
    plan = plan_for(root)
    assert [(e.code, e.file) for e in plan.errors] == [("P003", root / "schema.json")]


def test_v0_missing_output_schema_is_an_error(tmp_path: Path) -> None:
    root = copy_module(FIXTURES / "v0-zh-defs", tmp_path)
    (root / "output.schema.json").unlink()
    plan = plan_for(root)
    assert any(e.file == root / "output.schema.json" for e in plan.errors)


def test_example_without_rationale_is_an_error(tmp_path: Path) -> None:
    root = _v1(
        tmp_path,
        "norat",
        "Summarise text",
        {"summary": "s", "confidence": 0.8},
        out_schema={"type": "object", "properties": {"summary": {"type": "string"}, "confidence": {"type": "number"}}},
    )
    plan = plan_for(root)
    assert plan.errors and plan.errors[0].file == root / "examples" / "output.json"
    assert "rationale" in plan.errors[0].message


def test_v22_source_with_contract_errors_is_reported(tmp_path: Path) -> None:
    files = clean_v22()
    files["schema.json"] = {k: v for k, v in mapping_in(files, "schema.json").items() if k != "meta"}
    plan = plan_for(make_module(tmp_path, files), "2.5")
    assert any(e.code == "V001" for e in plan.errors)


def test_exec_is_not_chosen_when_defs_hold_extensible_enums(tmp_path: Path) -> None:
    out_schema = {
        "type": "object",
        "required": ["rationale"],
        "properties": {"rationale": {"type": "string"}, "kind": {"$ref": "#/$defs/kind"}},
    }
    root = _v1(
        tmp_path,
        "fixer",
        "Generate a patch that is applied automatically",
        {"rationale": "r", "confidence": 0.95, "changes": [{"risk": "low"}]},
        out_schema=out_schema,
    )
    schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    schema["$defs"] = {
        "kind": {
            "oneOf": [
                {"enum": ["a"]},
                {"type": "object", "required": ["custom", "reason"], "properties": {"custom": {}, "reason": {}}},
            ]
        }
    }
    (root / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    plan = plan_for(root)
    assert plan.tier == "decision" and "extensible enums" in plan.notes[0]


def test_what_keeps_a_module_from_exec_is_found_anywhere_in_its_data_schema() -> None:
    custom = {"oneOf": [{"enum": ["a"]}, {"properties": {"custom": {}, "reason": {}}}]}
    insights = {"type": "object", "properties": {"insights": {"type": "array"}}}
    deep = {"properties": {"items": {"type": "array", "items": [{"anyOf": [custom["oneOf"][1]]}, insights]}}}
    assert exec_blockers({"properties": {"kind": custom}}, []) == [
        "its data schema has extensible enums ({custom, reason}), which exec forbids"
    ]
    assert exec_blockers({"properties": {"extensions": insights}}, []) == [
        "its data schema has extensions.insights, and exec turns overflow off"
    ]
    assert len(exec_blockers(deep, [])) == 2  # inside lists and nested schemas too
    nested_too_deep: dict[str, Any] = {"properties": {"insights": {}}}
    for _ in range(70):
        nested_too_deep = {"items": nested_too_deep}
    assert exec_blockers(nested_too_deep, []) == []  # the walk stops 64 levels down
    assert exec_blockers({"oneOf": [{"properties": {"custom": {}}}, "not a branch"], "properties": {}}, [])


def test_extensions_field_without_insights_is_located(tmp_path: Path) -> None:
    out_schema = {
        "type": "object",
        "required": ["rationale"],
        "properties": {"rationale": {"type": "string"}, "extensions": {"type": "string"}},
    }
    root = _v1(tmp_path, "ext", "Summarise text", {"rationale": "r", "extensions": "x"}, out_schema=out_schema)
    plan = plan_for(root)
    err = plan.errors[0]
    assert err.file == root / "schema.json" and "extensions" in err.message
    text = (root / "schema.json").read_text(encoding="utf-8")
    assert err.line == text[: text.index('"extensions"')].count("\n") + 1


def test_a_lone_example_output_with_a_structured_rationale_is_an_error(tmp_path: Path) -> None:
    root = copy_module(FIXTURES / "v1-zh-rationale", tmp_path)
    lonely = root / "examples" / "output.json"  # without examples/input.json
    lonely.write_text(
        json.dumps({"criteria": [], "rationale": {"decisions": ["x"]}, "confidence": 0.5}), encoding="utf-8"
    )
    plan = plan_for(root)
    assert [e.file for e in plan.errors] == [lonely] and "structured rationale" in plan.errors[0].message


def test_notes_carry_the_planners_severity() -> None:
    """MIG-6: the inferred tier is a note to confirm and leads; a declared tier and plain changes are info."""
    legacy = plan_for(MODULES / "legacy-summarizer")
    assert legacy.tier_inferred
    assert severity_of(legacy.notes[0]) == "confirm" and legacy.notes[0].startswith("tier:")
    assert any(severity_of(n) == "info" for n in legacy.notes)
    confirm = [n for n in legacy.notes if severity_of(n) == "confirm"]
    assert legacy.to_json()["notes_to_confirm"] == confirm
    assert confirm_first(list(reversed(legacy.notes)))[: len(confirm)] == list(reversed(confirm))
    current = plan_for(MODULES / "code-reviewer", "2.5")
    assert not current.tier_inferred
    assert {severity_of(n) for n in current.notes} == {"info"}
    assert severity_of("a plain string") == "info"
