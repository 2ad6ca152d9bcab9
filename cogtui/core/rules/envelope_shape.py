"""Envelope shapes the spec tolerates, and how the runtime normalises them.

- An extra top-level field is not a broken contract: the checker warns, the
  runtime drops it and records a warning (ENV-4).
- `meta.risk` may be the extensible object form of SPEC-v2.5 §6.1: `{"level":
  <risk>, ...}` or `{"custom": ..., "reason": ...}` (§3.5). The checker accepts it;
  the runtime normalises it to the level (custom: "medium", the §4.2 default) (ENV-3).
- Legacy error codes (PARSE_ERROR, ...) and their numeric twins are one code:
  the runtime reports the numeric one and keeps the legacy one in
  `error.details.legacy_code`; schema checks of `error.code` accept either (CODE-1).
- Module error codes (E5000-E9999) pass through when the module declares them;
  an undeclared one is replaced by the spec's generic code and flagged (CODE-2).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from cogtui.core.module.schema_types import excerpt
from cogtui.core.module.tiers import RISK_LEVELS
from cogtui.core.rules.error_codes import ERROR_CODES, LEGACY_CODES, is_module_code, legacy_name, normalize_code

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

TOP_LEVEL = frozenset(
    {
        "ok",
        "meta",
        "data",
        "error",
        "partial_data",
        "version",
        "module",
        "provider",
        "trace_id",
        "model",
        "latency_ms",
        "usage",
    }
)
CUSTOM_RISK_LEVEL = "medium"
# An undeclared module code is unexpected: the spec's generic code, INTERNAL_ERROR (CODE-2).
GENERIC_MODULE_CODE = "E4000"


def extra_fields(env: Any) -> list[str]:
    """Top-level keys the spec does not define."""
    return [str(k) for k in env if k not in TOP_LEVEL] if isinstance(env, dict) else []


def risk_object_level(risk: Any) -> str | None:
    """The level an object-form risk stands for; None when `risk` is no legal object form."""
    if not isinstance(risk, dict):
        return None
    level = risk.get("level", risk.get("value"))
    if isinstance(level, str) and level in RISK_LEVELS:
        return level
    custom = risk.get("custom")
    if isinstance(custom, str) and custom.strip():
        return CUSTOM_RISK_LEVEL
    return None


def declared_codes(module: Module | None) -> frozenset[str]:
    """The E5000-E9999 codes a module declares under `error_codes:` (a mapping or a list)."""
    if module is None:
        return frozenset()
    codes = module.manifest.get("error_codes") if isinstance(module.manifest, dict) else None
    if isinstance(codes, dict):
        found = [str(k) for k in codes]
    elif isinstance(codes, list):
        found = [str(c.get("code") if isinstance(c, dict) else c) for c in codes]
    else:
        found = []
    return frozenset(c for c in found if is_module_code(c))


def undeclared_module_code(code: Any, module: Module | None) -> bool:
    return isinstance(code, str) and is_module_code(code) and code not in declared_codes(module)


def shape_notes(env: Any, module: Module | None = None) -> list[tuple[tuple[str | int, ...], str]]:
    """What the checker warns about (path, message); none of it makes an envelope invalid."""
    if not isinstance(env, dict):
        return []
    notes: list[tuple[tuple[str | int, ...], str]] = [
        ((key,), f"top-level field {excerpt(key)} is not part of the envelope; the runtime drops it")
        for key in extra_fields(env)
    ]
    meta = env.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("risk"), dict) and risk_object_level(meta["risk"]):
        notes.append(
            (("meta", "risk"), f"meta.risk is the object form; it counts as {excerpt(risk_object_level(meta['risk']))}")
        )
    err = env.get("error")
    code = err.get("code") if isinstance(err, dict) else None
    if module is not None and undeclared_module_code(code, module):
        notes.append(
            (
                ("error", "code"),
                f"{code} is not declared under error_codes in module.yaml; the runtime reports "
                f"{GENERIC_MODULE_CODE} instead",
            )
        )
    if isinstance(code, str) and code in LEGACY_CODES:
        notes.append((("error", "code"), f"legacy code {code} stands for {LEGACY_CODES[code]}"))
    return notes


def normalise_shape(env: dict[str, Any], module: Module | None = None) -> tuple[dict[str, Any], list[str]]:
    """The runtime's normalisation of a model's envelope; returns (envelope, warnings). Never fails a run."""
    warnings: list[str] = []
    extras = extra_fields(env)
    meta = env.get("meta")
    risk = meta.get("risk") if isinstance(meta, dict) else None
    err = env.get("error")
    code = err.get("code") if isinstance(err, dict) else None
    legacy = isinstance(code, str) and code in LEGACY_CODES
    undeclared = undeclared_module_code(code, module)
    if not (extras or risk_object_level(risk) or legacy or undeclared):
        return env, warnings
    env = copy.deepcopy(env)
    for key in extras:
        env.pop(key)
        warnings.append(f"top-level field {excerpt(key)} is not part of the envelope and was dropped")
    level = risk_object_level(risk)
    if level is not None:
        env["meta"]["risk"] = level
        warnings.append(f"meta.risk was given as an object ({excerpt(risk, 80)}); normalised to {excerpt(level)}")
    if legacy or undeclared:
        error = env["error"]
        details = error.get("details") if isinstance(error.get("details"), dict) else {}
        if legacy:
            error["code"] = normalize_code(str(code))
            details = {**details, "legacy_code": code}
        else:
            error["code"] = GENERIC_MODULE_CODE
            details = {**details, "module_code": code}
            warnings.append(
                f"the model reported {code}, which the module does not declare under error_codes; "
                f"reported as {GENERIC_MODULE_CODE}"
            )
        error["details"] = details
    return env, warnings


def code_matches_schema(code: Any, valid: Any) -> bool:
    """Whether `valid(candidate)` holds for the code or its other spelling in the mapping table (CODE-1)."""
    if not isinstance(code, str):
        return False
    numeric = normalize_code(code)
    forms = {code, numeric}
    name = legacy_name(numeric)
    if name:
        forms.add(name)
    return any(valid(form) for form in forms)


__all__ = ["ERROR_CODES", "TOP_LEVEL", "normalise_shape", "shape_notes"]
