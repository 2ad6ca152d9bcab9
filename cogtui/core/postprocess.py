"""From the model's parsed answer to the final envelope (SPEC-v2.2 §4; pipeline steps 6-8).

normalize → overflow and enum strategy → validate → repair (format only) →
validate again → tier gate and v1 constraints. Overflow and the enum strategy
come before the schema: a module's schema usually repeats the insight limit
(`maxItems`) and may not admit `{custom, reason}` at all, and its generic
E3001 would otherwise hide E3004/E3005 and make exploration's trimming
(D16) impossible. Each failure becomes an envelope with its E-code; warnings
(trimmed insights, empty values under no_inventing_data) are returned beside it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from .envelope_rules import Violation, check_envelope, check_enum_strategy, check_tier, dotted, insights_of
from .envelopes import failure
from .model import Module
from .normalize import repair, to_envelope

MAX_DETAILS = 20


@dataclass
class Outcome:
    envelope: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    wrapped: bool = False


def _auto_wrap(module: Module) -> bool:
    if not module.format.has_envelope_contract:
        return True  # v0, v1, v2.1 answers are bare payloads by design
    return module.compat.get("runtime_auto_wrap", True) is not False


def _violations(env: dict[str, Any], module: Module) -> list[Violation]:
    return [v for v in check_envelope(env, module) if v.code == "E3001"]


def _partial(env: dict[str, Any]) -> dict[str, Any] | None:
    for key in ("data", "partial_data"):
        if isinstance(env.get(key), dict) and env[key]:
            return env[key]
    return None


def _details(violations: list[Violation]) -> dict[str, Any]:
    return {"violations": [v.to_json() for v in violations[:MAX_DETAILS]], "violation_count": len(violations)}


def postprocess(answer: dict[str, Any], module: Module, validate: bool = True) -> Outcome:
    env, wrapped = to_envelope(answer, _auto_wrap(module))
    out = Outcome(env, wrapped=wrapped)
    if not validate:
        env, out.repairs = repair(env, None, None)  # meta must still exist for routing
        out.envelope = env
        return out
    if env.get("ok") is True and isinstance(env.get("data"), dict):
        env, early = _overflow(env, module, out.warnings)
        early = early or _enum_strategy(env["data"], module)
        if early is not None:
            out.envelope = early
            return out
    violations = _violations(env, module)
    if violations:
        env, out.repairs = repair(env, module.schemas.data, module.schemas.root)
        violations = _violations(env, module)
    if violations:
        if env.get("ok") is True and all(_is_missing_rationale(v) for v in violations):
            out.envelope = failure("E3003", "the model's answer has no rationale", partial_data=_partial(env))
            return out
        first = violations[0]
        out.envelope = failure(
            "SCHEMA_VALIDATION_FAILED",
            f"the answer does not match the contract: {first.message}"
            + (f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""),
            partial_data=_partial(env),
            details=_details(violations),
        )
        return out
    if env.get("ok") is False:
        out.envelope = env  # a failure the model reported itself, well-formed
        return out
    return _contract(env, module, out)


def _is_missing_rationale(v: Violation) -> bool:
    # The envelope rule and the schema's `required` both report a missing rationale: still one problem (D22).
    return v.rule == "data.rationale.required" or (
        v.rule == "schema.data" and v.path == ("data",) and v.message.endswith("'rationale' is a required property"))


def _overflow(env: dict[str, Any], module: Module, warnings: list[str]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(env with insights trimmed for exploration (D16), or as it was; an E3004 failure or None)."""
    data = env["data"]
    c = module.contract
    ins = insights_of(data)
    if not isinstance(ins, list) or not ins:
        return env, None
    limit = c.overflow_max_items.value if c.overflow_enabled.value else 0
    if len(ins) > limit:
        if c.tier.value == "exploration" and c.overflow_enabled.value:
            # Exploration trims (docs/spec-decisions.md D16): extra insights are a bonus, not a contract breach.
            env = copy.deepcopy(env)
            env["data"]["extensions"]["insights"] = ins[:limit]
            warnings.append(f"{len(ins)} insights trimmed to overflow.max_items = {limit}")
            data = env["data"]
        else:
            what = "overflow is disabled" if not c.overflow_enabled.value else f"the limit is {limit}"
            return env, failure("E3004", f"{len(ins)} insights returned but {what}", partial_data=data,
                                details={"max_items": limit, "returned": len(ins)})
    if c.overflow_require_suggested_mapping.value:
        missing = [i for i, item in enumerate(insights_of(data) or []) if isinstance(item, dict) and not item.get("suggested_mapping")]
        if missing:
            return env, failure("E3004", f"insights {missing} have no suggested_mapping, which this module requires",
                                partial_data=data, details={"insights_without_mapping": missing})
    return env, None


def _enum_strategy(data: dict[str, Any], module: Module) -> dict[str, Any] | None:
    enum_violations = check_enum_strategy(data, module, ("data",))
    if not enum_violations:
        return None
    return failure("E3005", enum_violations[0].message, partial_data=data,
                   details={"fields": [dotted(v.path) for v in enum_violations]})


def _contract(env: dict[str, Any], module: Module, out: Outcome) -> Outcome:
    data = env["data"]
    tier = check_tier(env.get("meta"), module, ("meta",))
    if tier:
        out.envelope = failure("E2001", "; ".join(v.message for v in tier), partial_data=data,
                               details={"tier": "exec", "confidence": env["meta"].get("confidence"), "risk": env["meta"].get("risk")})
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
        if not isinstance(conf, (int, float)) or isinstance(conf, bool) or not 0 <= conf <= 1:
            return failure("E3006", "the module requires a confidence in [0, 1]", partial_data=data,
                           details={"constraint": "require_confidence"})
    if cons.get("no_inventing_data"):
        empty = [dotted(p) for p in _empty_leaves(data, ("data",))]
        if empty:
            out.warnings.append("no_inventing_data: mark missing information as \"unknown\" instead of leaving "
                                + ", ".join(empty[:5]) + " empty")
    return None


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
