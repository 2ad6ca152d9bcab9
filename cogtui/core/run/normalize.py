"""Turn a parsed model answer into a v2.2 envelope, and the format-only repair pass.

SPEC-v2.2 §4.1-4.2 and §6.3. The repair pass fixes format only: missing meta
gets conservative defaults, confidence is clamped, explain truncated to 280
characters from the start, enum values normalised for case and whitespace.
It never rewrites a business value.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from cogtui.core.files.json_pointer import deref, object_at
from cogtui.core.module.tiers import EXPLAIN_MAX, RISK_LEVELS, V21_WRAP_EXPLAIN
from cogtui.core.run.envelope_builder import is_envelope

RISK_RANK = {r: i for i, r in enumerate(RISK_LEVELS)}


def aggregate_risk(data: Any) -> str:
    """meta.risk = max(changes[*].risk), a change without risk counting as medium; "medium" without changes."""
    changes = data.get("changes") if isinstance(data, dict) else None
    if not isinstance(changes, list) or not changes:
        return "medium"
    ranks = [RISK_RANK.get(c.get("risk", "medium"), 2) if isinstance(c, dict) else 2 for c in changes]
    return RISK_LEVELS[max(ranks)]


def explain_from(rationale: Any, limit: int = V21_WRAP_EXPLAIN) -> str:
    if isinstance(rationale, str) and rationale.strip():
        return rationale[:limit]
    if isinstance(rationale, dict):
        decisions = rationale.get("decisions")
        if isinstance(decisions, list) and decisions:
            return "; ".join(str(d) for d in decisions)[:limit]
    if rationale not in (None, "", {}, []):
        return json.dumps(rationale, ensure_ascii=False)[:limit]
    return "No explanation provided"


# Envelope-level keys that may sit beside `data` in a wrapper `{data: {...}}` without meta.
WRAPPER_KEYS = frozenset(
    {"ok", "data", "meta", "version", "module", "provider", "trace_id", "model", "latency_ms", "usage"}
)


def declares_property(schema: Any, root: Any, name: str, depth: int = 0) -> bool:
    """Whether an object schema (following local refs and allOf/anyOf/oneOf) declares the property `name`."""
    node = deref(schema, root if root is not None else schema)
    if depth > 8 or not isinstance(node, dict):
        return False
    props = node.get("properties")
    if isinstance(props, dict) and name in props:
        return True
    branches = [b for key in ("allOf", "anyOf", "oneOf") if isinstance(node.get(key), list) for b in node[key]]
    return any(declares_property(b, root, name, depth + 1) for b in branches)


def is_data_wrapper(payload: dict[str, Any], data_schema: Any = None, root: Any = None) -> bool:
    """`{data: {...}}` wraps the payload (D32): `data` is an object, nothing but envelope-level keys sits
    beside it, and the module's data schema has no business field called `data`."""
    return (
        isinstance(payload.get("data"), dict)
        and set(payload) <= WRAPPER_KEYS
        and not declares_property(data_schema, root, "data")
    )


def wrap_v21(payload: dict[str, Any], data_schema: Any = None, root: Any = None) -> dict[str, Any]:
    """SPEC-v2.2 §6.3: a bare v2.1 payload (or a `{data: ...}` wrapper without meta, D32) becomes an envelope.

    A payload whose business field happens to be called `data` is wrapped whole:
    its rationale, confidence and other fields are never dropped.
    """
    data = payload["data"] if is_data_wrapper(payload, data_schema, root) else payload
    conf = data.get("confidence")
    confidence = conf if isinstance(conf, (int, float)) and not isinstance(conf, bool) else 0.5
    meta = {"confidence": confidence, "risk": aggregate_risk(data), "explain": explain_from(data.get("rationale"))}
    return {"ok": True, "meta": meta, "data": data}


def to_envelope(
    answer: dict[str, Any], auto_wrap: bool = True, data_schema: Any = None, root: Any = None
) -> tuple[dict[str, Any], bool]:
    """(envelope, wrapped). A model-written failure envelope is kept as it is."""
    if is_envelope(answer):
        env = dict(answer)
        if "ok" not in env:
            env["ok"] = "error" not in env
        return env, False
    if auto_wrap:
        return wrap_v21(answer, data_schema, root), True
    return {"ok": True, "data": answer}, False


# ---------------------------------------------------------------- repair


def repair(
    env: dict[str, Any], data_schema: dict[str, Any] | None, root: dict[str, Any] | None
) -> tuple[dict[str, Any], list[str]]:
    """Format-only fixes; returns the repaired copy and what was changed, for the run's trace."""
    env = copy.deepcopy(env)
    notes: list[str] = []
    payload_key = "data" if env.get("ok") is not False else "partial_data"
    data = object_at(env, payload_key)
    meta = env.get("meta")
    if not isinstance(meta, dict):
        meta = {}
        notes.append("meta was missing")
    env["meta"] = meta
    conf = meta.get("confidence")
    if isinstance(conf, str):
        try:
            conf = float(conf.strip().rstrip("%")) / (100 if conf.strip().endswith("%") else 1)
            notes.append("confidence was a string")
        except ValueError:
            conf = None
    if not isinstance(conf, (int, float)) or isinstance(conf, bool):
        dconf = data.get("confidence")
        conf = dconf if isinstance(dconf, (int, float)) and not isinstance(dconf, bool) else 0.5
        notes.append("confidence was missing")
    if conf < 0 or conf > 1:
        notes.append(f"confidence {conf} clamped")
        conf = min(1.0, max(0.0, float(conf)))
    meta["confidence"] = conf
    risk = meta.get("risk")
    if isinstance(risk, str) and risk not in RISK_LEVELS and _norm(risk) in RISK_LEVELS:
        meta["risk"] = _norm(risk)
        notes.append("risk normalised")
    elif risk is None:
        meta["risk"] = aggregate_risk(data)
        notes.append("risk was missing")
    explain = meta.get("explain")
    if explain is None or (isinstance(explain, str) and not explain.strip()):
        meta["explain"] = explain_from(data.get("rationale"))
        notes.append("explain was missing")
    elif isinstance(explain, str) and len(explain) > EXPLAIN_MAX:
        meta["explain"] = explain[:EXPLAIN_MAX]
        notes.append(f"explain truncated from {len(explain)} to {EXPLAIN_MAX} characters")
    if data_schema is not None and isinstance(env.get(payload_key), dict):
        env[payload_key] = normalize_enums(env[payload_key], data_schema, root or {}, notes)
    return env, notes


def _norm(value: str) -> str:
    return re.sub(r"[\s\-]+", "_", value.strip()).lower()


def normalize_enums(value: Any, schema: Any, root: dict[str, Any], notes: list[str], depth: int = 0) -> Any:
    """Map `" Remove Redundancy "` to `remove_redundancy` where the schema has that enum member."""
    if depth > 32 or not isinstance(schema, dict):
        return value
    schema = deref(schema, root)
    if not isinstance(schema, dict):
        return value
    if isinstance(value, str) and isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        wanted = _norm(value)
        for member in schema["enum"]:
            if isinstance(member, str) and _norm(member) == wanted:
                notes.append(f"enum value {value!r} normalised to {member!r}")
                return member
        return value
    for key in ("oneOf", "anyOf", "allOf"):
        for branch in schema.get(key) or ():
            new = normalize_enums(value, branch, root, notes, depth + 1)
            if new is not value:
                return new
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        out = dict(value)
        for k, sub in schema["properties"].items():
            if k in out:
                out[k] = normalize_enums(out[k], sub, root, notes, depth + 1)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [normalize_enums(v, schema["items"], root, notes, depth + 1) for v in value]
    return value
