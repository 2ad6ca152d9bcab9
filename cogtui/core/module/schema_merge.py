"""A schema as the contract map and prompt lint read it: local `$ref`s followed, and the object variants of
`allOf`/`anyOf`/`oneOf` folded into one set of properties. Kept apart from contract_map.py (whose records are
dataclasses) so `cogn validate`'s prompt lint imports no `dataclasses` (tests/test_records.py)."""

from __future__ import annotations

from typing import Any


def resolve_local(root: dict[str, Any], schema: Any, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Follow a local `$ref` (within this document); anything else unresolvable is an empty schema."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if not ref.startswith("#") or ref in seen:
            return {}
        seen = seen | {ref}
        target: Any = root
        for raw in ref[1:].split("/")[1:]:
            key = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and key in target:
                target = target[key]
            elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
                target = target[int(key)]
            else:
                return {}
        schema = target
    return schema if isinstance(schema, dict) else {}


def merged_schema(root: dict[str, Any], schema: Any) -> dict[str, Any]:
    """The schema with its combinators' object variants folded in (properties and required)."""
    base = dict(resolve_local(root, schema))
    props: dict[str, Any] = dict(base.get("properties") or {}) if isinstance(base.get("properties"), dict) else {}
    required = set(base.get("required") or []) if isinstance(base.get("required"), list) else set()
    variant_types: list[str] = []
    for key in ("allOf", "anyOf", "oneOf"):
        variants = base.get(key)
        if not isinstance(variants, list):
            continue
        for variant in variants[:20]:
            sub = resolve_local(root, variant)
            if isinstance(sub.get("properties"), dict):
                for name, value in sub["properties"].items():
                    props.setdefault(name, value)
            if isinstance(sub.get("required"), list):  # for anyOf/oneOf: required within its variant
                required.update(r for r in sub["required"] if isinstance(r, str))
            kind = type_text(sub)
            if kind and kind not in variant_types:
                variant_types.append(kind)
            if isinstance(sub.get("enum"), list) and "enum" not in base:
                base["enum"] = sub["enum"]
            if "items" not in base and "items" in sub:
                base["items"] = sub["items"]
    if "type" not in base and variant_types:
        base["type"] = variant_types[0] if len(variant_types) == 1 else variant_types
    base["properties"] = props
    base["required"] = sorted(r for r in required if isinstance(r, str))
    return base


def type_text(schema: dict[str, Any]) -> str:
    value = schema.get("type")
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " | ".join(str(v) for v in value)
    if "enum" in schema or "const" in schema:
        return "enum"
    if isinstance(schema.get("properties"), dict) and schema["properties"]:
        return "object"
    return ""


__all__ = ["merged_schema", "resolve_local", "type_text"]
