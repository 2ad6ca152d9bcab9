"""The fast flattened 2020-12 metaschema agrees with the official one; parallel validation equals serial."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogtui.core.module.schemas import metaschema_validator
from cogtui.core.workspace import Workspace

MODULES = Path(__file__).resolve().parents[1] / "modules"
OFFICIAL = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
FLAT = metaschema_validator(jsonschema.Draft202012Validator)

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


def _valid(validator: Any, schema: Any) -> bool:
    return next(iter(validator.iter_errors(schema)), None) is None


@pytest.mark.parametrize("schema", SAMPLES, ids=[json.dumps(s)[:40] for s in SAMPLES])
def test_flat_metaschema_agrees_on_samples(schema: Any) -> None:
    assert _valid(FLAT, schema) == _valid(OFFICIAL, schema)


def test_flat_metaschema_agrees_on_every_bundled_schema() -> None:
    for path in MODULES.rglob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        parts = [doc] + [v for v in doc.values() if isinstance(v, dict)] if isinstance(doc, dict) else [doc]
        for part in parts:
            assert _valid(FLAT, part) == _valid(OFFICIAL, part), path


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


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_keyword, _value, max_size=4))
def test_flat_metaschema_agrees_on_random_schemas(schema: dict[str, Any]) -> None:
    assert _valid(FLAT, schema) == _valid(OFFICIAL, schema)


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
