"""A loop of `$ref`s that never reaches a schema (A → B → A) lets every value through: `validate` says so (S002),
located at each `$ref` on it; a recursive schema that does constrain (a tree's children) is no loop."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cogtui.core.module.loader import load_module
from cogtui.core.rules.contract_checks import ref_cycle
from cogtui.core.rules.validate_module import validate_module

MODULES = Path(__file__).resolve().parents[1] / "modules"


def test_ref_cycle_follows_only_bare_refs() -> None:
    doc = {
        "$defs": {
            "A": {"$ref": "#/$defs/B"},
            "B": {"$ref": "#/$defs/A", "description": "annotations constrain nothing"},
            "self": {"$ref": "#/$defs/self"},
            "tree": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
            },
            "to_tree": {"$ref": "#/$defs/tree"},
            "typed": {"$ref": "#/$defs/A", "type": "string"},
        }
    }
    assert ref_cycle(doc, "/$defs/A") == ["#/$defs/A", "#/$defs/B", "#/$defs/A"]
    assert ref_cycle(doc, "/$defs/self") == ["#/$defs/self", "#/$defs/self"]
    assert ref_cycle(doc, "/$defs/to_tree") is None  # reaches a schema that constrains
    assert ref_cycle(doc, "/$defs/typed") is None  # constrains by itself
    assert ref_cycle(doc, "/$defs/missing") is None  # unresolvable: S002's other message


def test_validate_reports_the_loop_at_each_ref(tmp_path: Path) -> None:
    module_dir = Path(shutil.copytree(MODULES / "code-reviewer", tmp_path / "code-reviewer"))
    path = module_dir / "schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema.setdefault("$defs", {}).update({"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}})
    schema["input"]["properties"]["x"] = {"$ref": "#/$defs/A"}
    path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    loops = [d for d in validate_module(load_module(module_dir)) if "never reaches a schema" in d.message]
    assert [d.code for d in loops] == ["S002"] * 3
    assert all(d.file == path and d.line for d in loops)
    assert "#/$defs/A → #/$defs/B → #/$defs/A" in loops[0].message
