"""Rules a response envelope must obey (SPEC-v2.2 §2, SPEC-v2.5 §3.1 and §6).

Each broken rule is a Violation naming its E-code (error-codes.md). The
checker reports them; the runner uses the same rules on model output.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

from cogtui.core.diagnostics import plural
from cogtui.core.module.schema_types import excerpt
from cogtui.core.module.tiers import (
    EXEC_ALLOWED_RISK,
    EXEC_MIN_CONFIDENCE,
    EXPLAIN_MAX,
    LOOSEST_MAX_INSIGHTS,
    RISK_LEVELS,
)
from cogtui.core.rules.declared_rules import check_risk_aggregation, check_strictness, unknown_tag
from cogtui.core.rules.envelope_shape import code_matches_schema, risk_object_level
from cogtui.core.rules.error_codes import is_wellformed_code
from cogtui.core.rules.media_walk import find_output_media
from cogtui.core.rules.violation import PathT as PathT
from cogtui.core.rules.violation import Violation as Violation
from cogtui.core.rules.violation import dotted as dotted
from cogtui.core.rules.violation import json_type, one_violation_per_fact, schema_error_fact

if TYPE_CHECKING:
    from cogtui.core.module.model import Module


def _is_number(v: object) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_meta(
    meta: Any, path: PathT, allow_null_confidence: bool = False, require_all: bool = True
) -> list[Violation]:
    out: list[Violation] = []
    if not isinstance(meta, dict):
        return [Violation("E3001", "meta.object", path, "meta must be an object")]
    conf = meta.get("confidence")
    if "confidence" not in meta:
        if require_all:
            out.append(
                Violation("E3001", "meta.confidence.required", (*path, "confidence"), "meta.confidence is required")
            )
    elif conf is None and allow_null_confidence:
        pass
    elif not _is_number(conf):
        out.append(
            Violation(
                "E3001",
                "meta.confidence.type",
                (*path, "confidence"),
                f"meta.confidence must be a number, not {json_type(conf)}",
            )
        )
    elif not 0 <= conf <= 1:
        out.append(
            Violation(
                "E3001",
                "meta.confidence.range",
                (*path, "confidence"),
                f"meta.confidence {excerpt(conf)} is outside [0, 1]",
            )
        )
    if "risk" not in meta:
        if require_all:
            out.append(Violation("E3001", "meta.risk.required", (*path, "risk"), "meta.risk is required"))
    # neither one of the four levels nor the object form of SPEC-v2.5 §6.1 that names one (ENV-3)
    elif meta["risk"] not in RISK_LEVELS and risk_object_level(meta["risk"]) is None:
        out.append(
            Violation(
                "E3001",
                "meta.risk.enum",
                (*path, "risk"),
                f"meta.risk {excerpt(meta['risk'])} is not one of none, low, medium, high",
            )
        )
    if "explain" not in meta:
        if require_all:
            out.append(Violation("E3001", "meta.explain.required", (*path, "explain"), "meta.explain is required"))
    elif not isinstance(meta["explain"], str):
        out.append(Violation("E3001", "meta.explain.type", (*path, "explain"), "meta.explain must be a string"))
    elif len(meta["explain"]) > EXPLAIN_MAX:
        out.append(
            Violation(
                "E3001",
                "meta.explain.length",
                (*path, "explain"),
                f"meta.explain is {len(meta['explain'])} characters, over {EXPLAIN_MAX}",
            )
        )
    for key, ok in (
        ("trace_id", isinstance(meta.get("trace_id"), str)),
        ("model", isinstance(meta.get("model"), str)),
        ("latency_ms", _is_number(meta.get("latency_ms")) and meta.get("latency_ms", 0) >= 0),
        ("processing_time_ms", isinstance(meta.get("processing_time_ms"), int)),
    ):
        if key in meta and not ok:
            out.append(Violation("E3001", f"meta.{key}.type", (*path, key), f"meta.{key} has the wrong type"))
    return out


def check_envelope(env: Any, module: Module | None = None, path: PathT = ()) -> list[Violation]:
    """Every rule an envelope breaks; with a module, its contract's rules too."""
    if not isinstance(env, dict):
        return [Violation("E3001", "envelope.object", path, "an envelope must be a JSON object")]
    out: list[Violation] = []
    if "ok" not in env:
        out.append(Violation("E3001", "envelope.ok.required", (*path, "ok"), "ok is required"))
    elif not isinstance(env["ok"], bool):
        out.append(Violation("E3001", "envelope.ok.type", (*path, "ok"), "ok must be true or false"))
    # Extra top-level fields are warnings (envelope_shape.shape_notes), not violations (ENV-4).
    for key in ("version", "module", "provider", "trace_id", "model"):
        if key in env and not isinstance(env[key], str):
            out.append(Violation("E3001", f"envelope.{key}.type", (*path, key), f"{key} must be a string"))
    if "meta" not in env:
        out.append(Violation("E3001", "envelope.meta.required", (*path, "meta"), "meta is required"))
    else:
        out.extend(check_meta(env["meta"], (*path, "meta")))
    ok = env.get("ok")
    if ok is True:
        out.extend(_check_success(env, module, path))
    elif ok is False:
        out.extend(_check_failure(env, module, path))
    if module is not None and isinstance(env.get("meta"), dict):
        meta = env["meta"]
        level = risk_object_level(meta.get("risk"))
        # The object form counts as its level against a v2.2 meta schema's string enum (ENV-3). A field the spec's
        # meta rules already found wrong (a confidence over 1, an explain too long) is said once, by them.
        said = {v.path for v in out}
        found = _schema_violations(module, "meta", {**meta, "risk": level} if level else meta, (*path, "meta"))
        out.extend(v for v in found if v.path not in said)
    return one_violation_per_fact(out)  # a missing field both the spec and the schema require is said once (CODE-6)


def _check_success(env: dict[str, Any], module: Module | None, path: PathT) -> list[Violation]:
    out: list[Violation] = []
    if "error" in env:
        out.append(
            Violation("E3001", "success.error.forbidden", (*path, "error"), "a success envelope must not have error")
        )
    if "partial_data" in env:
        out.append(
            Violation(
                "E3001",
                "success.partial_data.forbidden",
                (*path, "partial_data"),
                "a success envelope must not have partial_data",
            )
        )
    data = env.get("data")
    if "data" not in env:
        return [*out, Violation("E3001", "success.data.required", (*path, "data"), "a success envelope needs data")]
    if not isinstance(data, dict):
        return [*out, Violation("E3001", "success.data.object", (*path, "data"), "data must be an object")]
    legacy = module is not None and not module.format.has_envelope_contract
    if "rationale" not in data:
        out.append(
            Violation("E3001", "data.rationale.required", (*path, "data", "rationale"), "data.rationale is required")
        )
    elif not legacy and not isinstance(data["rationale"], str):
        out.append(
            Violation("E3001", "data.rationale.type", (*path, "data", "rationale"), "data.rationale must be a string")
        )
    out.extend(check_insights(data, module, (*path, "data")))
    out.extend(check_risk_aggregation(env.get("meta"), data, path))
    out.extend(check_output_media_rules(data, (*path, "data")))
    if module is not None:
        out.extend(_schema_violations(module, "data", data, (*path, "data")))
        out.extend(check_enum_strategy(data, module, (*path, "data")))
        out.extend(check_strictness(data, module, (*path, "data")))
        out.extend(check_tier(env.get("meta"), module, (*path, "meta")))
    return out


def _check_failure(env: dict[str, Any], module: Module | None, path: PathT) -> list[Violation]:
    out: list[Violation] = []
    if "data" in env:
        out.append(
            Violation(
                "E3001",
                "failure.data.forbidden",
                (*path, "data"),
                "a failure envelope must not have data (use partial_data)",
            )
        )
    partial = env.get("partial_data")
    if partial is not None and not isinstance(partial, dict):
        out.append(
            Violation("E3001", "failure.partial_data.object", (*path, "partial_data"), "partial_data must be an object")
        )
    err = env.get("error")
    if "error" not in env:
        return [*out, Violation("E3001", "failure.error.required", (*path, "error"), "a failure envelope needs error")]
    if not isinstance(err, dict):
        return [*out, Violation("E3001", "failure.error.object", (*path, "error"), "error must be an object")]
    code = err.get("code")
    if "code" not in err:
        out.append(Violation("E3001", "error.code.required", (*path, "error", "code"), "error.code is required"))
    elif not is_wellformed_code(code):
        out.append(
            Violation(
                "E3001",
                "error.code.format",
                (*path, "error", "code"),
                f"error.code {excerpt(code)} is neither an E-code nor an UPPER_SNAKE legacy code",
            )
        )
    if not isinstance(err.get("message"), str):
        rule = "error.message.required" if "message" not in err else "error.message.type"
        out.append(Violation("E3001", rule, (*path, "error", "message"), "error.message must be a string"))
    for key, kind in (("recoverable", bool), ("suggestion", str), ("details", dict)):
        if key in err and not isinstance(err[key], kind):
            out.append(
                Violation("E3001", f"error.{key}.type", (*path, "error", key), f"error.{key} has the wrong type")
            )
    if (
        module is not None
        and module.schemas.error is not None
        and module.failure.get("must_return_error_schema") is not False
    ):
        found = _schema_violations(module, "error", err, (*path, "error"))
        code_path = (*path, "error", "code")
        if any(v.path == code_path for v in found) and code_matches_schema(
            code,
            lambda form: (
                not any(
                    v.path == code_path
                    for v in _schema_violations(module, "error", {**err, "code": form}, (*path, "error"))
                )
            ),
        ):
            found = [v for v in found if v.path != code_path]  # the other spelling of the code fits (CODE-1)
        out.extend(found)
    return out


def check_output_media_rules(data: dict[str, Any], path: PathT) -> list[Violation]:
    if next(find_output_media(data, path), None) is None:  # no generated media: the media rules are not loaded
        return []
    from cogtui.core.rules.media_rules import check_output_media

    return [
        Violation(p.code, f"media.output.{p.code}", p.path, f"{dotted(p.path)}: {p.message}")
        for p in check_output_media(data, path)
    ]


def insights_of(data: Any) -> Any:
    ext = data.get("extensions") if isinstance(data, dict) else None
    return ext.get("insights") if isinstance(ext, dict) else None


def check_insights(data: dict[str, Any], module: Module | None, path: PathT) -> list[Violation]:
    ins = insights_of(data)
    ipath = (*path, "extensions", "insights")
    if ins is None:
        return []
    if not isinstance(ins, list):
        return [Violation("E3001", "insights.array", ipath, "extensions.insights must be an array")]
    out: list[Violation] = []
    if module is None or not module.contract.known:  # no module, or a manifest that could not be read (FMT-16)
        limit, require_mapping, enabled = LOOSEST_MAX_INSIGHTS, False, True
    else:
        c = module.contract
        enabled = c.overflow_enabled.value
        limit = c.overflow_max_items.value if enabled else 0
        require_mapping = c.overflow_require_suggested_mapping.value
    if not enabled and ins:
        out.append(
            Violation(
                "E3004",
                "overflow.disabled",
                ipath,
                f"overflow is disabled for this module but {plural(len(ins), 'insight')} {'was' if len(ins) == 1 else 'were'} returned",
            )
        )
    elif len(ins) > limit:
        out.append(
            Violation("E3004", "overflow.max_items", ipath, f"{plural(len(ins), 'insight')}, over the limit of {limit}")
        )
    for i, item in enumerate(ins):
        if not isinstance(item, dict):
            out.append(Violation("E3001", "insight.object", (*ipath, i), "an insight must be an object"))
            continue
        if not isinstance(item.get("text"), str) or not item["text"]:
            out.append(Violation("E3001", "insight.text", (*ipath, i, "text"), "an insight needs text"))
        mapping = item.get("suggested_mapping")
        # a blank mapping names no field the insight could be promoted into, so it counts as missing (ENV-8)
        if require_mapping and not (isinstance(mapping, str) and mapping.strip()):
            out.append(
                Violation(
                    "E3004",
                    "insight.suggested_mapping",
                    (*ipath, i, "suggested_mapping"),
                    "this module requires a non-empty suggested_mapping on every insight",
                )
            )
    return out


def custom_enum_values(value: Any, path: PathT = (), tag: str = "custom") -> Iterator[tuple[PathT, dict[str, Any]]]:
    """Extensible-enum objects `{custom, reason}` (or `{<unknown_tag>, reason}`) anywhere in a value (SPEC-v2.2 §3.5)."""
    if isinstance(value, dict):
        if tag in value and set(value) <= {tag, "reason"}:
            yield path, value
            return
        for k, v in value.items():
            yield from custom_enum_values(v, (*path, k), tag)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from custom_enum_values(v, (*path, i), tag)


def check_enum_strategy(data: dict[str, Any], module: Module, path: PathT) -> list[Violation]:
    if module.contract.enum_strategy.value != "strict" or not module.contract.known:
        return []
    tag = unknown_tag(module)
    return [
        Violation(
            "E3005",
            "enums.strict",
            (*path, *p),
            f"custom enum value {excerpt(v.get(tag))} is not allowed: enums are strict",
        )
        for p, v in custom_enum_values(data, (), tag)
        if "extensions" not in p[:1]
    ]


def check_tier(meta: Any, module: Module, path: PathT) -> list[Violation]:
    if module.tier != "exec" or not isinstance(meta, dict):
        return []
    out: list[Violation] = []
    conf = meta.get("confidence")
    if _is_number(conf) and not conf >= EXEC_MIN_CONFIDENCE:  # `not >=`: NaN never passes the gate
        out.append(
            Violation(
                "E2001",
                "tier.exec.confidence",
                (*path, "confidence"),
                f"confidence {excerpt(conf)} is below the exec tier's {EXEC_MIN_CONFIDENCE}",
            )
        )
    if meta.get("risk") in RISK_LEVELS and meta.get("risk") not in EXEC_ALLOWED_RISK:
        out.append(
            Violation(
                "E2001",
                "tier.exec.risk",
                (*path, "risk"),
                f"risk {excerpt(meta['risk'])} is too high for the exec tier (none or low)",
            )
        )
    return out


def _schema_violations(module: Module, part: str, instance: Any, path: PathT) -> list[Violation]:
    from cogtui.core.module.schemas import RefError, schemas_for

    try:
        errors = list(schemas_for(module).iter_errors(part, instance))
    except RefError as exc:
        return [Violation("E3001", f"schema.{part}.ref", path, str(exc))]
    strict = part == "data" and module.contract.enum_strategy.value == "strict"
    return [
        # Under strict enums a value outside the enum is E3005 INVALID_ENUM, not a generic schema failure.
        Violation(
            "E3005" if strict and _is_enum_error(e) else "E3001",
            f"schema.{part}",
            (*path, *e.path),
            f"{dotted((*path, *e.path))}: {e.message}",
            schema_error_fact(e, path),
        )
        for e in errors
    ]


def _is_enum_error(err: Any) -> bool:
    """A value outside an enum or const: directly, or as the reason a oneOf/anyOf rejected it (ENV-9).

    A branch written for another type (a `type` error at the value itself) is not a reason; the
    failure is an enum miss when at least one branch remains and every one failed only on enum/const.
    """
    if err.keyword in ("enum", "const"):
        return True
    if err.keyword not in ("oneOf", "anyOf") or not err.branches:
        return False
    relevant = [b for b in err.branches if not any(e.keyword == "type" and e.path == err.path for e in b)]
    return bool(relevant) and all(b and all(_is_enum_error(e) for e in b) for b in relevant)
