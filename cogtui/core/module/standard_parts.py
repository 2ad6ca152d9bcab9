"""The spec's standard schema parts (SPEC-v2.2 §3.2-3.4), shared by migration, scaffolding and tests."""

from __future__ import annotations

import copy
from typing import Any

V22_SCHEMA_URL = "https://cognitive-modules.dev/schema/v2.2.json"

_META: dict[str, Any] = {
    "type": "object",
    "required": ["confidence", "risk", "explain"],
    "properties": {
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "risk": {"type": "string", "enum": ["none", "low", "medium", "high"]},
        "explain": {"type": "string", "maxLength": 280},
        "trace_id": {"type": "string"},
        "model": {"type": "string"},
        "latency_ms": {"type": "number", "minimum": 0},
    },
}
_ERROR: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
}


def meta_schema(core_only: bool = False) -> dict[str, Any]:
    """A fresh copy of the v2.2 meta schema; `core_only` keeps just confidence, risk and explain."""
    out = copy.deepcopy(_META)
    if core_only:
        out["properties"] = {k: out["properties"][k] for k in ("confidence", "risk", "explain")}
    return out


def error_schema() -> dict[str, Any]:
    return copy.deepcopy(_ERROR)


def extensions_schema(max_items: int, require_mapping: bool = True) -> dict[str, Any]:
    """`$defs.extensions`: recoverable overflow insights (SPEC-v2.2 §3.4)."""
    return {
        "type": "object",
        "properties": {
            "insights": {
                "type": "array",
                "maxItems": max_items,
                "items": {
                    "type": "object",
                    "required": ["text", "suggested_mapping"] if require_mapping else ["text"],
                    "properties": {
                        "text": {"type": "string"},
                        "suggested_mapping": {"type": "string"},
                        "evidence": {"type": "string"},
                    },
                },
            }
        },
    }
