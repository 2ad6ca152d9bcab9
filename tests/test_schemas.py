"""The schema engine's metaschema verdicts agree with the official `jsonschema` ones, for Draft-07 and
2020-12; parallel validation equals serial."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.module.schema_engine import DRAFT7, DRAFT2020, metaschema_errors
from cogtui.core.workspace import Workspace

MODULES = Path(__file__).resolve().parents[1] / "modules"
OFFICIAL = {
    DRAFT2020: jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA),
    DRAFT7: jsonschema.Draft7Validator(jsonschema.Draft7Validator.META_SCHEMA),
}

SAMPLES: list[Any] = [
    {"type": "strin"},
    {"type": ["string", "nul"]},
    {"required": "x"},
    {"required": ["a", "a"]},
    {"properties": {"a": {"minLength": -1}}},
    {"items": [1]},
    {"prefixItems": {"type": "string"}},
    {"enum": "x"},
    {"$defs": {"a": 3}},
    {"maxLength": 1.5},
    {"oneOf": []},
    {"additionalProperties": "no"},
    {"$id": "http://x/#frag"},
    {"pattern": 3},
    {"dependentRequired": {"a": "b"}},
    {"$ref": 5},
    {"type": "object", "properties": {"x": {"$ref": "#/$defs/y"}}, "$defs": {"y": {"type": "integer"}}},
    True,
    False,
    3,
]


def _agree(schema: Any, draft: str) -> bool:
    return (not metaschema_errors(schema, draft)) == OFFICIAL[draft].is_valid(schema)


@pytest.mark.parametrize("draft", [DRAFT7, DRAFT2020])
@pytest.mark.parametrize("schema", SAMPLES, ids=[json.dumps(s)[:40] for s in SAMPLES])
def test_metaschema_agrees_on_samples(schema: Any, draft: str) -> None:
    assert _agree(schema, draft)


def test_metaschema_reports_where_a_schema_breaks_it() -> None:
    errors = metaschema_errors({"properties": {"a": {"minLength": -1}}}, DRAFT7)
    assert [e.path for e in errors] == [("properties", "a", "minLength")]


def test_metaschema_agrees_on_every_bundled_schema() -> None:
    for path in MODULES.rglob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        parts = [doc] + [v for v in doc.values() if isinstance(v, dict)] if isinstance(doc, dict) else [doc]
        for part in parts:
            assert _agree(part, DRAFT7) and _agree(part, DRAFT2020), path


_keyword = st.sampled_from(
    [
        "type",
        "required",
        "properties",
        "items",
        "enum",
        "minimum",
        "maxLength",
        "oneOf",
        "additionalProperties",
        "const",
        "pattern",
        "format",
        "$defs",
        "minItems",
        "uniqueItems",
    ]
)
_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(["string", "object", "array", "integer", "x", "^a$"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keyword | st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


@property_settings(300)
@given(st.dictionaries(_keyword, _value, max_size=4))
def test_metaschema_agrees_on_random_schemas(schema: dict[str, Any]) -> None:
    assert _agree(schema, DRAFT7) and _agree(schema, DRAFT2020)


def test_parallel_validation_equals_serial(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from genmodules import generate

    root = generate(tmp_path / "mods", 160)
    (root / "mod-0003-v1" / "schema.json").write_text("{ broken", encoding="utf-8")
    ws = Workspace.from_environment([root])
    serial = [(r.name, r.format, r.version, r.tier, r.diagnostics) for r in ws.validate_all(jobs=1)]
    parallel = [(r.name, r.format, r.version, r.tier, r.diagnostics) for r in ws.validate_all(jobs=2)]
    assert serial == parallel
    assert any(d for _, _, _, _, d in serial if any(x.code == "P002" for x in d))
