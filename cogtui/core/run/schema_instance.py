"""A minimal instance of a JSON Schema: required fields only, first enum members, smallest values.

The replay provider answers with one when no golden test or example fits.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from cogtui.core.files.json_pointer import deref, object_at
from cogtui.core.rules.golden_contract import contract_parts

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

DEFAULT_META = {"confidence": 0.5, "risk": "medium", "explain": "Replay: an instance generated from a contract golden."}

_PLACEHOLDER = {
    "rationale": "Replay: no golden test or example matched this input; this is a minimal instance of the data schema."
}


def minimal_instance(schema: Any, root: dict[str, Any] | None = None, name: str = "", depth: int = 0) -> Any:
    root = root or {}
    if depth > 24 or not isinstance(schema, dict):
        return None
    if isinstance(schema.get("$ref"), str):
        return minimal_instance(deref(schema, root), root, name, depth + 1)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return minimal_instance(schema[key][0], root, name, depth + 1)
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            if isinstance(part, dict):
                merged.update(part)
        return minimal_instance({**merged, **{k: v for k, v in schema.items() if k != "allOf"}}, root, name, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None:
        kind = "object" if "properties" in schema else ("array" if "items" in schema else None)
    if kind == "object":
        props = object_at(schema, "properties")
        out: dict[str, Any] = {}
        for key in schema.get("required") or []:
            if isinstance(key, str):
                out[key] = minimal_instance(props.get(key, {}), root, key, depth + 1)
        return out
    if kind == "array":
        count = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
        return [minimal_instance(schema.get("items", {}), root, name, depth + 1) for _ in range(min(count, 10))]
    if kind == "string":
        text = _PLACEHOLDER.get(name, "")
        min_len = schema.get("minLength", 0) if isinstance(schema.get("minLength"), int) else 0
        max_len = schema.get("maxLength") if isinstance(schema.get("maxLength"), int) else None
        text = text.ljust(min_len, "x")
        return text[:max_len] if max_len is not None else text
    if kind in ("number", "integer"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = low if isinstance(low, (int, float)) and not isinstance(low, bool) else 0
        if "exclusiveMinimum" in schema and "minimum" not in schema:
            value += 1
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    return None


def contract_instance(module: Module, expected: dict[str, Any]) -> dict[str, Any]:
    """An envelope satisfying a contract golden: each part from the module's schema merged with the contract's."""
    parts = contract_parts(expected)
    root = module.schemas.root
    ok_schema = parts.get("ok", {"const": True})
    ok = minimal_instance(ok_schema) if isinstance(ok_schema, dict) else True
    meta = _instance(merge_schemas(module.schemas.meta, parts.get("meta"), root), root, DEFAULT_META)
    if ok is False:
        error = _instance(
            merge_schemas(module.schemas.error, parts.get("error"), root),
            root,
            {"code": "E4000", "message": "Replay: a failure generated from a contract golden."},
        )
        return {"ok": False, "meta": meta, "error": error}
    data = _instance(merge_schemas(module.schemas.data, parts.get("data"), root), root, {})
    data.setdefault("rationale", "Replay: an instance generated from a contract golden.")
    if not module.format.has_envelope_contract:
        return data  # v0/v1/v2.1 modules answer with the bare payload; the runtime wraps it
    return {"ok": True, "meta": meta, "data": data}


_AT_LEAST = ("minItems", "minimum", "minLength", "minProperties", "exclusiveMinimum")
_AT_MOST = ("maxItems", "maximum", "maxLength", "maxProperties", "exclusiveMaximum")


def merge_schemas(base: Any, extra: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """One schema asking for both (enough for generating an instance, not a general allOf)."""
    base = deref(base, root) if isinstance(base, dict) else base
    if not isinstance(extra, dict) or depth > 16:
        return base
    if not isinstance(base, dict):
        return extra
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        if key == "required" and isinstance(value, list) and isinstance(old, list):
            out[key] = [*old, *[v for v in value if v not in old]]
        elif key == "properties" and isinstance(value, dict) and isinstance(old, dict):
            out[key] = {**old, **{k: merge_schemas(old.get(k), v, root, depth + 1) for k, v in value.items()}}
        elif key == "items" and isinstance(value, dict) and isinstance(old, dict):
            out[key] = merge_schemas(old, value, root, depth + 1)
        elif key in _AT_LEAST and isinstance(old, (int, float)) and isinstance(value, (int, float)):
            out[key] = max(old, value)
        elif key in _AT_MOST and isinstance(old, (int, float)) and isinstance(value, (int, float)):
            out[key] = min(old, value)
        elif key in ("const", "enum"):
            out.pop("oneOf", None)  # the contract pins the value: the module's alternatives no longer matter
            out.pop("anyOf", None)
            out[key] = value
        else:
            out[key] = value
    return out


def _instance(schema: Any, root: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    made = minimal_instance(schema, root) if isinstance(schema, dict) else None
    out: dict[str, Any] = copy.deepcopy(defaults)
    if isinstance(made, dict):
        # A required property with no schema comes out as None: the default fills it.
        out.update({k: v for k, v in made.items() if v is not None or k not in out})
    return out
