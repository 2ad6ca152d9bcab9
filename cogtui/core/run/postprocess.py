"""From the model's parsed answer to the final envelope (SPEC-v2.2 §4; pipeline steps 6-8).

normalize → trim insights (exploration, ENV-7) → check → repair (format only,
when the format is wrong) → check again → route the violations by E-code.

There is one judge: `envelope_rules.check_envelope`, the same rules
`cogn check` applies, run once (twice when the repair pass changed
something). Its violations are routed by code, most specific first:
E3004 (overflow) and E3005 (strict enums) win over E3001, because a module's
schema usually repeats the insight limit (`maxItems`) and may not admit
`{custom, reason}` at all, so its generic E3001 would hide them; then E3001
(E3003 when a missing rationale is all that is wrong, CODE-3); then the exec
gate E2001. So the runtime fails an answer exactly when the checker would
reject it, except for exploration's trimming, which fixes the answer first.
Warnings (trimmed insights, empty values under no_inventing_data) are
returned beside the envelope.
"""

from __future__ import annotations

import copy
from typing import Any

from cogtui.core.diagnostics import plural
from cogtui.core.module.model import Module
from cogtui.core.records import field, record
from cogtui.core.rules.envelope_rules import Violation, check_envelope, check_insights, dotted, insights_of
from cogtui.core.rules.envelope_shape import normalise_shape
from cogtui.core.run.envelope_builder import failure, is_envelope
from cogtui.core.run.normalize import repair, to_envelope

MAX_DETAILS = 20
ROUTED = (
    "E3004",
    "E3005",
    "E2001",
    "E1010",
    "E1013",
)  # codes with their own failure; every other code is a schema failure


@record(frozen=False)
class Outcome:
    """A model's answer made into an envelope, with what was repaired or fixed on the way."""

    envelope: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)  # what the opt-in output fixes changed (output_fixes.py)
    wrapped: bool = False


def wrap_refusal(module: Module) -> str | None:
    """The compat field that forbids wrapping a bare v2.1 payload, or None (SPEC-v2.2 §6.2, ENV-12)."""
    if not module.format.has_envelope_contract:
        return None  # v0, v1, v2.1 answers are bare payloads by design
    for key in ("accepts_v21_payload", "runtime_auto_wrap"):
        if module.compat.get(key, True) is False:
            return key
    return None


def _partial(env: dict[str, Any]) -> dict[str, Any] | None:
    for key in ("data", "partial_data"):
        value = env.get(key)
        if isinstance(value, dict) and value:
            return value
    return None


def _details(violations: list[Violation]) -> dict[str, Any]:
    return {"violations": [v.to_json() for v in violations[:MAX_DETAILS]], "violation_count": len(violations)}


def _of(violations: list[Violation], code: str) -> list[Violation]:
    return [v for v in violations if v.code == code]


def _schema(violations: list[Violation]) -> list[Violation]:
    """What the repair pass may fix: schema failures, enum values included (SPEC-v2.2 §4.1 rule 3)."""
    return [v for v in violations if v.code not in ROUTED or (v.code == "E3005" and v.rule.startswith("schema."))]


def postprocess(
    answer: dict[str, Any], module: Module, validate: bool = True, fixes: frozenset[str] = frozenset()
) -> Outcome:
    refusal = None if is_envelope(answer) else wrap_refusal(module)
    if refusal is not None:
        return Outcome(
            failure(
                "E3001",
                f"the answer is a bare v2.1 payload without an envelope, and compat.{refusal} is false",
                partial_data=answer,
                suggestion="Have the prompt ask for {ok, meta, data}, or allow the wrap in compat.",
                details={"field": f"compat.{refusal}"},
            )
        )
    env, wrapped = to_envelope(answer, True, module.schemas.data, module.schemas.root)
    env, shape_warnings = normalise_shape(env, module)  # extra fields, object risk, legacy/module codes
    out = Outcome(env, shape_warnings, wrapped=wrapped)
    if not validate:
        env, out.repairs = repair(env, None, None, fixes, out.fixes)  # meta must still exist for routing
        out.envelope = env
        return out
    env = _trim_insights(env, module, out.warnings)
    bad_confidence = _confidence_constraint(env, module)
    if bad_confidence is not None:  # the constraint's own code, before the wrap's meta is judged (E3001)
        out.envelope = bad_confidence
        return out
    violations = check_envelope(env, module)
    # The repair pass never touches insights or `{custom}` values, so E3004/E3005 are judged on the answer as given.
    early = (
        _overflow_failure(env, module, violations)
        or _enum_failure(env, [v for v in violations if v.rule == "enums.strict"])
        or _media_failure(env, violations)
    )
    if early is not None:
        out.envelope = early
        return out
    if _schema(violations):
        env, out.repairs = repair(env, module.schemas.data, module.schemas.root, fixes, out.fixes)
        if out.repairs or out.fixes:  # no note, no change
            violations = check_envelope(env, module)
    schema = _schema(violations)
    if schema:
        if env.get("ok") is True and all(_is_missing_rationale(v) for v in schema):
            out.envelope = failure("E3003", "the model's answer has no rationale", partial_data=_partial(env))
            return out
        if all(v.code == "E3005" for v in schema):  # only values outside a strict enum: INVALID_ENUM
            out.envelope = _enum_failure(env, schema) or env
            return out
        first = schema[0]
        out.envelope = failure(
            "SCHEMA_VALIDATION_FAILED",
            f"the answer does not match the contract: {first.message}"
            + (f" (and {len(schema) - 1} more)" if len(schema) > 1 else ""),
            partial_data=_partial(env),
            details=_details(schema),
        )
        return out
    if env.get("ok") is False:
        out.envelope = env  # a failure the model reported itself, well-formed
        return out
    return _contract(env, module, violations, out)


def _is_missing_rationale(v: Violation) -> bool:
    # The envelope rule and the schema's `required` both report a missing rationale: still one problem (CODE-3).
    return v.rule == "data.rationale.required" or (
        v.rule == "schema.data"
        and v.path == ("data",)
        and v.message.endswith(("'rationale' is a required property", '"rationale" is a required property'))
    )


def _trim_insights(env: dict[str, Any], module: Module, warnings: list[str]) -> dict[str, Any]:
    """Exploration keeps the first overflow.max_items insights (ENV-7): extra insights are a bonus, not a breach."""
    data = env.get("data")
    if env.get("ok") is not True or not isinstance(data, dict) or module.tier != "exploration":
        return env
    if not any(v.rule == "overflow.max_items" for v in check_insights(data, module, ("data",))):
        return env  # within the limit, or overflow disabled (E3004 in every tier)
    ins = insights_of(data)
    limit = module.contract.overflow_max_items.value
    env = copy.deepcopy(env)
    env["data"]["extensions"]["insights"] = ins[:limit]
    warnings.append(f"{plural(len(ins), 'insight')} trimmed to overflow.max_items = {limit}")
    return env


def _overflow_failure(env: dict[str, Any], module: Module, violations: list[Violation]) -> dict[str, Any] | None:
    found = _of(violations, "E3004")
    if not found:
        return None
    data = env.get("data") if isinstance(env.get("data"), dict) else None
    count = next((v for v in found if v.rule.startswith("overflow.")), None)
    if count is not None:
        c = module.contract
        ins = insights_of(data)
        limit = c.overflow_max_items.value if c.overflow_enabled.value else 0
        return failure(
            "E3004",
            count.message,
            partial_data=data,
            details={"max_items": limit, "returned": len(ins) if isinstance(ins, list) else 0},
        )
    missing = [v.path[3] for v in found if v.rule == "insight.suggested_mapping" and len(v.path) > 3]
    return failure(
        "E3004",
        f"insights {missing} have no suggested_mapping, which this module requires",
        partial_data=data,
        details={"insights_without_mapping": missing},
    )


def _media_failure(env: dict[str, Any], violations: list[Violation]) -> dict[str, Any] | None:
    """Generated media outside the output table (E1010) or not decodable (E1013): the media code (ENV-16)."""
    found = [v for v in violations if v.rule.startswith("media.output.")]
    if not found:
        return None
    return failure(
        found[0].code,
        found[0].message,
        partial_data=env.get("data"),
        details={"fields": [dotted(v.path) for v in found]},
    )


def _enum_failure(env: dict[str, Any], violations: list[Violation]) -> dict[str, Any] | None:
    found = _of(violations, "E3005")
    if not found:
        return None
    return failure(
        "E3005", found[0].message, partial_data=env.get("data"), details={"fields": [dotted(v.path) for v in found]}
    )


def _contract(env: dict[str, Any], module: Module, violations: list[Violation], out: Outcome) -> Outcome:
    data = env["data"]
    tier = _of(violations, "E2001")
    if tier:
        out.envelope = failure(
            "E2001",
            "; ".join(v.message for v in tier),
            partial_data=data,
            details={"tier": "exec", "confidence": env["meta"].get("confidence"), "risk": env["meta"].get("risk")},
        )
        return out
    constraint = _v1_constraints(env, module, out)
    if constraint is not None:
        out.envelope = constraint
        return out
    out.envelope = env
    return out


def _v1_constraints(env: dict[str, Any], module: Module, out: Outcome) -> dict[str, Any] | None:
    cons = module.constraints
    data = env["data"]
    if cons.get("require_rationale") and not _filled(data.get("rationale")):
        return failure("E3003", "the module requires a rationale and the answer's is empty", partial_data=data)
    if cons.get("require_confidence"):
        # Only a confidence the model wrote counts: the v2.1 wrap and the repair pass put 0.5
        # in meta when it gave none, which would satisfy the constraint on the runtime's word.
        if "confidence" in data:
            conf = data["confidence"]
        elif not out.wrapped and "confidence was missing" not in out.repairs:
            conf = env["meta"].get("confidence")
        else:
            conf = None
        if (refused := _confidence_refused(conf, data)) is not None:
            return refused
    if cons.get("no_inventing_data"):
        empty = [dotted(p) for p in _empty_leaves(data, ("data",))]
        if empty:
            out.warnings.append(
                'no_inventing_data: mark missing information as "unknown" instead of leaving '
                + ", ".join(empty[:5])
                + " empty"
            )
    return None


def _confidence_constraint(env: dict[str, Any], module: Module) -> dict[str, Any] | None:
    """v1 `require_confidence` with a data.confidence outside [0, 1]: E3006."""
    data = env.get("data")
    if not module.constraints.get("require_confidence") or not isinstance(data, dict) or "confidence" not in data:
        return None
    return _confidence_refused(data["confidence"], data)


def _confidence_refused(conf: Any, data: Any) -> dict[str, Any] | None:
    """v1 `require_confidence`: E3006 unless `conf` is a number in [0, 1]."""
    if isinstance(conf, (int, float)) and not isinstance(conf, bool) and 0 <= conf <= 1:
        return None
    return failure(
        "E3006",
        "the module requires a confidence in [0, 1]",
        partial_data=data,
        details={"constraint": "require_confidence"},
    )


def _filled(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    return value not in (None, {}, [])


def _empty_leaves(value: Any, path: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _empty_leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _empty_leaves(v, (*path, i))]
    return [path] if value is None or value == "" else []
