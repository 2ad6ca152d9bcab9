"""Turn a parsed model answer into a v2.2 envelope, and the format-only repair pass.

SPEC-v2.2 §4.1-4.2 and §6.3. The repair pass fixes format only, exactly the
spec's list: missing meta fields get conservative defaults, explain is
truncated to 280 characters from the start, enum values are normalised for
case and whitespace. It never rewrites a business value. Anything more
(clamping, reading "85%", hyphens) is an opt-in fix (output_fixes.py, ENV-10).
"""

from __future__ import annotations

import copy
import json
import math
import re
from typing import Any

from cogtui.core.files.json_pointer import deref, object_at
from cogtui.core.module.schema_types import excerpt
from cogtui.core.module.tiers import EXPLAIN_MAX, RISK_LEVELS, V21_WRAP_EXPLAIN
from cogtui.core.run.envelope_builder import is_envelope
from cogtui.core.run.output_fixes import CONFIDENCE_CLAMP, CONFIDENCE_TEXT, ENUM_HYPHENS, confidence_from_text

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
    """`{data: {...}}` wraps the payload (ENV-11): `data` is an object, nothing but envelope-level keys sits
    beside it, and the module's data schema has no business field called `data`."""
    return (
        isinstance(payload.get("data"), dict)
        and set(payload) <= WRAPPER_KEYS
        and not declares_property(data_schema, root, "data")
    )


def wrap_v21(payload: dict[str, Any], data_schema: Any = None, root: Any = None) -> dict[str, Any]:
    """SPEC-v2.2 §6.3: a bare v2.1 payload (or a `{data: ...}` wrapper without meta, ENV-11) becomes an envelope.

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
    env: dict[str, Any],
    data_schema: dict[str, Any] | None,
    root: dict[str, Any] | None,
    fixes: frozenset[str] = frozenset(),
    applied: list[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The spec's format-only repairs (SPEC-v2.2 §4.1), plus the opt-in `fixes` (output_fixes.py).

    Returns the repaired copy and what the repair pass changed; what an opt-in
    fix changed is appended to `applied`, so the run can warn about it.
    """
    env = copy.deepcopy(env)
    notes: list[str] = []
    extra: list[str] = applied if applied is not None else []
    failed = env.get("ok") is False
    payload_key = "partial_data" if failed else "data"
    data = object_at(env, payload_key)
    meta = env.get("meta")
    if not isinstance(meta, dict):
        meta = {}
        notes.append("meta was missing")
    env["meta"] = meta
    _repair_confidence(meta, data, failed, fixes, notes, extra)
    risk = meta.get("risk")
    if isinstance(risk, str) and risk not in RISK_LEVELS and _norm(risk) in RISK_LEVELS:
        meta["risk"] = _norm(risk)
        notes.append("risk normalised")
    elif risk is None:
        meta["risk"] = "high" if failed else aggregate_risk(data)
        notes.append("risk was missing")
    explain = meta.get("explain")
    if explain is None or (isinstance(explain, str) and not explain.strip()):
        meta["explain"] = _error_explain(env) if failed else explain_from(data.get("rationale"))
        notes.append("explain was missing")
    elif isinstance(explain, str) and len(explain) > EXPLAIN_MAX:
        meta["explain"] = explain[:EXPLAIN_MAX]
        notes.append(f"explain truncated from {len(explain)} to {EXPLAIN_MAX} characters")
    if data_schema is not None and isinstance(env.get(payload_key), dict):
        hyphen_notes = extra if ENUM_HYPHENS in fixes else None
        env[payload_key] = normalize_enums(env[payload_key], data_schema, root or {}, notes, 0, hyphen_notes)
    return env, notes


def _repair_confidence(
    meta: dict[str, Any], data: dict[str, Any], failed: bool, fixes: frozenset[str], notes: list[str], extra: list[str]
) -> None:
    """Only a missing confidence is the repair pass's business; text and out-of-range values are opt-in fixes."""
    if "confidence" not in meta or meta["confidence"] is None:
        dconf = data.get("confidence")
        given = isinstance(dconf, (int, float)) and not isinstance(dconf, bool) and math.isfinite(dconf)
        meta["confidence"] = dconf if given and not failed else (0.0 if failed else 0.5)
        notes.append("confidence was missing")
        return
    conf = meta["confidence"]
    if isinstance(conf, str) and CONFIDENCE_TEXT in fixes:
        number = confidence_from_text(conf)
        if number is not None:
            extra.append(f"{CONFIDENCE_TEXT}: confidence {excerpt(conf)} read as {number:g}")
            conf = meta["confidence"] = number
    if _is_number(conf) and math.isfinite(conf) and not 0 <= conf <= 1 and CONFIDENCE_CLAMP in fixes:
        clamped = min(1.0, max(0.0, float(conf)))
        extra.append(f"{CONFIDENCE_CLAMP}: confidence {conf:g} clamped to {clamped:g}")
        meta["confidence"] = clamped


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _error_explain(env: dict[str, Any]) -> str:
    err = env.get("error")
    message = err.get("message") if isinstance(err, dict) else None
    return message[:EXPLAIN_MAX] if isinstance(message, str) and message.strip() else "The module reported an error"


def _norm(value: str, hyphens: bool = False) -> str:
    """Case and whitespace (SPEC-v2.2 §4.1): trimmed, lower case, inner whitespace as `_` (ENV-10)."""
    return re.sub(r"[\s\-]+" if hyphens else r"\s+", "_", value.strip()).lower()


def normalize_enums(
    value: Any,
    schema: Any,
    root: dict[str, Any],
    notes: list[str],
    depth: int = 0,
    hyphen_notes: list[str] | None = None,
) -> Any:
    """Map `" Remove Redundancy "` to `remove_redundancy` where the schema has that enum member."""
    if depth > 32 or not isinstance(schema, dict):
        return value
    schema = deref(schema, root)
    if not isinstance(schema, dict):
        return value
    if isinstance(value, str) and isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        members = [m for m in schema["enum"] if isinstance(m, str)]
        wanted = _norm(value)
        for member in members:
            if _norm(member) == wanted:
                notes.append(f"enum value {excerpt(value)} normalised to {excerpt(member)}")
                return member
        if hyphen_notes is not None:
            wanted = _norm(value, True)
            for member in members:
                if _norm(member, True) == wanted:
                    hyphen_notes.append(f"{ENUM_HYPHENS}: enum value {excerpt(value)} read as {excerpt(member)}")
                    return member
        return value
    for key in ("oneOf", "anyOf", "allOf"):
        for branch in schema.get(key) or ():
            new = normalize_enums(value, branch, root, notes, depth + 1, hyphen_notes)
            if new is not value:
                return new
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        out = dict(value)
        for k, sub in schema["properties"].items():
            if k in out:
                out[k] = normalize_enums(out[k], sub, root, notes, depth + 1, hyphen_notes)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [normalize_enums(v, schema["items"], root, notes, depth + 1, hyphen_notes) for v in value]
    return value
