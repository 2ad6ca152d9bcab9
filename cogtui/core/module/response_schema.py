"""The answer a module's model must give, as a provider-compatible response schema.

What the model is asked for is what the prompt asks for (prompt.py): the whole envelope
(`ok`, `meta`, `data` or `error`) for a v2.2/v2.5 module, the bare data with `rationale`
and `confidence` for older formats, so extraction and normalisation are the same on every
path (RUN-5). schema_dialects.py converts it for the provider; `drop_added_nulls` takes back
the nulls strict json_schema made the model write for optional properties.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.module.memo import memo
from cogtui.core.module.model import Module
from cogtui.core.module.schema_dialects import (
    DIALECTS,
    MAX_DEPTH,
    Dialect,
    Inexpressible,
    ResponseSchema,
    SchemaConverter,
    accepts_null,
)

__all__ = ["DIALECTS", "Dialect", "ResponseSchema", "answer_data_schema", "drop_added_nulls", "response_schema"]

RISKS = ["none", "low", "medium", "high"]
_INSIGHTS = {
    "type": "object",
    "properties": {
        "insights": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "suggested_mapping": {"type": "string"},
                    "evidence": {"type": "string"},
                },
                "required": ["text", "suggested_mapping"],
            },
        }
    },
    "required": ["insights"],
}
_STANDARD_ERROR = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
    "required": ["code", "message"],
}


def definitions(module: Module) -> dict[str, Any]:
    """The schema document's `$defs` (and Draft-07 `definitions`), by name."""
    root = module.schemas.root if isinstance(module.schemas.root, dict) else {}
    out: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        if isinstance(root.get(key), dict):
            out.update(root[key])
    return out


def answer_data_schema(module: Module) -> dict[str, Any] | None:
    """The data schema as the model must fill it: with `rationale` (and `confidence` before v2.2) and,
    when overflow is on, `extensions.insights`. None when the module declares no data schema."""
    data = module.schemas.data
    if isinstance(data, dict) and isinstance(data.get("$ref"), str) and len(data) == 1:
        data = definitions(module).get(data["$ref"].rsplit("/", 1)[-1], data)
    if not isinstance(data, dict) or not isinstance(data.get("properties"), dict):
        return None
    out = dict(data)
    props = dict(out["properties"])
    required = [k for k in out.get("required") or [] if isinstance(k, str)]
    extra: dict[str, Any] = {"rationale": {"type": "string"}}
    if not module.format.has_envelope_contract:
        extra["confidence"] = {"type": "number", "minimum": 0, "maximum": 1}
    for key, schema in extra.items():
        props.setdefault(key, schema)
        if key not in required:
            required.append(key)
    if module.format.has_envelope_contract and module.contract.overflow_enabled.value:
        props.setdefault("extensions", _INSIGHTS)
    out["properties"], out["required"] = props, required
    return out


def response_schema(module: Module, dialect: Dialect) -> ResponseSchema:
    """The schema the provider is asked to hold the answer to, or why there is none (once per module, memo.py)."""
    return memo(module, ("response_schema", dialect), lambda: _response_schema(module, dialect))


def _response_schema(module: Module, dialect: Dialect) -> ResponseSchema:
    defs = definitions(module)
    conv = SchemaConverter(dialect, defs)
    data = answer_data_schema(module)
    try:
        if data is None:
            raise Inexpressible("the module declares no data schema with properties")
        converted = conv.node(data, "data", 1)
    except Inexpressible as exc:
        return ResponseSchema(dialect, None, tuple(conv.dropped), str(exc))
    if not module.format.has_envelope_contract:
        schema = converted
        name = "data"
    else:
        schema = _envelope(converted, _error_schema(module, dialect, defs), dialect)
        name = "envelope"
    if conv.out_defs:
        schema["$defs"] = conv.out_defs
    return ResponseSchema(dialect, schema, tuple(conv.dropped), name=name)


def _error_schema(module: Module, dialect: Dialect, defs: dict[str, Any]) -> dict[str, Any]:
    """The module's error schema when it converts without loss, else the standard {code, message}."""
    own = module.schemas.error
    if isinstance(own, dict):
        conv = SchemaConverter(dialect, defs)
        try:
            converted = conv.node(own, "error", 1)
        except Inexpressible:
            converted = None
        if converted is not None and not conv.dropped and not conv.out_defs:
            return converted
    return SchemaConverter(dialect, {}).node(_STANDARD_ERROR, "error", 1)


def _envelope(data: dict[str, Any], error: dict[str, Any], dialect: Dialect) -> dict[str, Any]:
    confidence: dict[str, Any] = {"type": "number"}
    if dialect == "json_schema":
        confidence.update(minimum=0, maximum=1)
    meta = {
        "type": "object",
        "properties": {
            "confidence": confidence,
            "risk": {"type": "string", "enum": RISKS},
            "explain": {"type": "string"},
        },
        "required": ["confidence", "risk", "explain"],
        "additionalProperties": False,
    }
    props: dict[str, Any] = {"ok": {"type": "boolean"}, "meta": meta, "data": data, "error": error}
    if dialect == "json_schema":
        props["data"] = {"anyOf": [data, {"type": "null"}]}
        props["error"] = {"anyOf": [error, {"type": "null"}]}
        required = list(props)
    else:
        required = ["ok", "meta"]
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def drop_added_nulls(answer: Any, module: Module) -> Any:
    """The answer without the nulls strict json_schema made the model write for optional properties."""
    if not isinstance(answer, dict):
        return answer
    defs = definitions(module)
    data = answer_data_schema(module)
    if not module.format.has_envelope_contract:
        return _prune(answer, data, defs, 0)
    out = {k: v for k, v in answer.items() if not (k in ("data", "error") and v is None)}
    if isinstance(out.get("data"), dict) and data is not None:
        out["data"] = _prune(out["data"], data, defs, 0)
    if isinstance(out.get("error"), dict):
        out["error"] = _prune(out["error"], module.schemas.error or _STANDARD_ERROR, defs, 0)
    return out


def _prune(value: Any, schema: Any, defs: dict[str, Any], depth: int) -> Any:
    if depth > MAX_DEPTH or not isinstance(schema, dict):
        return value
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _prune(value, defs.get(ref.rsplit("/", 1)[-1]), defs, depth + 1)
    if isinstance(value, dict):
        for key in ("anyOf", "oneOf"):
            branches = [b for b in schema.get(key) or () if isinstance(b, dict)]
            fits = [b for b in branches if _fits(value, b, defs)]
            if fits:
                return _prune(value, fits[0], defs, depth + 1)
        props = schema.get("properties")
        if not isinstance(props, dict):
            return value
        required = set(schema.get("required") or ())
        return {
            k: _prune(v, props.get(k), defs, depth + 1)
            for k, v in value.items()
            if not (v is None and k in props and k not in required and not accepts_null(props[k], defs))
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_prune(v, schema["items"], defs, depth + 1) for v in value]
    return value


def _fits(value: dict[str, Any], branch: dict[str, Any], defs: dict[str, Any]) -> bool:
    ref = branch.get("$ref")
    if isinstance(ref, str):
        branch = defs.get(ref.rsplit("/", 1)[-1]) or {}
    props = branch.get("properties")
    return isinstance(props, dict) and all(k in props for k, v in value.items() if v is not None)
