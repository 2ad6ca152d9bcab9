"""Envelope rules a manifest or the spec's prose declares: risk aggregation (ENV-5), `schema_strictness: high`
(FMT-10) and `enums.unknown_tag`. Called by envelope_rules.check_envelope, so the checker and the runtime agree."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogtui.core.module.schema_types import excerpt
from cogtui.core.module.tiers import RISK_LEVELS
from cogtui.core.rules.violation import PathT, Violation, dotted

if TYPE_CHECKING:
    from cogtui.core.module.model import Module


def check_risk_aggregation(meta: Any, data: dict[str, Any], path: PathT) -> list[Violation]:
    """SPEC-v2.2 §2.4: `meta.risk = max(data.changes[*].risk)`. A meta.risk below a change's risk hides it (ENV-5).

    Only risks written as one of the four levels count; a higher meta.risk is the author's caution, not an error.
    """
    changes = data.get("changes")
    risk = meta.get("risk") if isinstance(meta, dict) else None
    if not isinstance(changes, list) or risk not in RISK_LEVELS:
        return []
    levels = [c["risk"] for c in changes if isinstance(c, dict) and c.get("risk") in RISK_LEVELS]
    if not levels:
        return []
    highest = max(levels, key=RISK_LEVELS.index)
    if RISK_LEVELS.index(risk) >= RISK_LEVELS.index(highest):
        return []
    return [
        Violation(
            "E3001",
            "meta.risk.aggregate",
            (*path, "meta", "risk"),
            f"meta.risk {excerpt(risk)} is below the highest data.changes[*].risk {excerpt(highest)}; it must be their maximum",
        )
    ]


def check_strictness(data: dict[str, Any], module: Module, path: PathT) -> list[Violation]:
    """`schema_strictness: high` (SPEC-v2.2 §4.3 "严格，全部必填"): every property the data schema declares
    at its top level is required, `extensions` excepted (FMT-10). medium and low hold the schema as written."""
    if module.contract.schema_strictness.value != "high" or not isinstance(module.schemas.data, dict):
        return []
    from cogtui.core.files.json_pointer import deref

    schema = deref(module.schemas.data, module.schemas.root)
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return []
    return [
        Violation(
            "E3001",
            "strictness.high.required",
            (*path, str(name)),
            f"{dotted((*path, str(name)))} is missing; schema_strictness high makes every declared field required",
        )
        for name in props
        if name != "extensions" and name not in data
    ]


def unknown_tag(module: Module | None) -> str:
    """The key of an extensible enum's escape object: `enums.unknown_tag`, `custom` by default (SPEC-v2.2 §1.3)."""
    tag = module.enums.get("unknown_tag") if module is not None else None
    return tag if isinstance(tag, str) and tag else "custom"
