"""A minimal instance of a JSON Schema: required fields only, first enum members, smallest values.

The replay provider answers with one when no golden test or example fits.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.files.json_pointer import deref, object_at

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
