"""What promoting a row of the insights dashboard asks for, and into which module (the insights screen's rule).

An insight group (`History.insights`) names a suggested mapping, the modules
that suggested it and the latest examples; a custom enum row names one
module, field and value. A group without a suggested mapping has nothing to
promote. A group suggested by several modules offers one promotion per
module, each with that module's own examples (all of them when the module
has none of its own), and the author chooses; one module needs no choice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from cogtui.core.authoring.migration.apply import (
    MigrationError,
    UndoResult,
    latest_backup,
    undo_latest,
    undoable_backups,
)
from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.authoring.promote import PromotionError, plan_enum_promotion, plan_mapping_promotion
from cogtui.core.authoring.promotion_place import enum_value_in_schema, mapping_in_schema
from cogtui.core.module.model import Module

NO_MAPPING = "These insights have no suggested mapping, so there is nothing to promote."


@dataclass(frozen=True)
class PromotionRequest:
    """An enum value to add (field and value) or a suggested mapping to promote (with its samples), in `module`."""

    module: str
    field: str | None = None
    value: str | None = None
    mapping: str | None = None
    examples: tuple[dict[str, Any], ...] = ()

    @property
    def key(self) -> str:
        """What the promotion adds, the same however often it is asked for: kept in its backup (undo)."""
        if self.mapping is not None:
            return f"mapping {self.mapping}"
        return f"enum {self.field} {self.value}"

    @property
    def title(self) -> str:
        if self.mapping is not None:
            return f"Promote {self.mapping} in {self.module}"
        return f"Add {self.value!r} to {self.field} in {self.module}"


def enum_promotion(row: Mapping[str, Any]) -> PromotionRequest:
    """A custom enum value row: add the value to the field's enum in its module."""
    return PromotionRequest(str(row["module"]), field=str(row["field"]), value=str(row["value"]))


def mapping_promotions(group: Mapping[str, Any]) -> list[PromotionRequest] | str:
    """One request per module that suggested the group's mapping, or why nothing can be promoted."""
    mapping = group.get("suggested_mapping")
    if mapping is None:
        return NO_MAPPING
    modules = [str(m) for m in group.get("modules") or ()]
    if not modules:
        return "No module suggested these insights, so there is no schema to promote them into."
    examples = tuple(group.get("examples") or ())
    return [
        PromotionRequest(
            module, mapping=str(mapping), examples=tuple(e for e in examples if e.get("module") == module) or examples
        )
        for module in modules
    ]


def plan_promotion(request: PromotionRequest, module: Module) -> MigrationPlan:
    """The plan the request asks for in `module` (PromotionError when it cannot be made); its backup
    will name the request, so `undo_promotion` can undo exactly it."""
    if request.mapping is not None:
        plan = plan_mapping_promotion(module, request.mapping, list(request.examples))
    elif request.field is None or request.value is None:
        raise PromotionError("a promotion needs a suggested mapping, or an enum field and value")
    else:
        plan = plan_enum_promotion(module, request.field, request.value)
    return replace(plan, promotion=request.key)


def is_promoted(request: PromotionRequest, module: Module) -> bool:
    """The module's schema already holds what the request would add (the dashboard marks the row)."""
    if request.mapping is not None:
        return mapping_in_schema(module, request.mapping)
    return (
        request.field is not None
        and request.value is not None
        and (enum_value_in_schema(module, request.field, request.value))
    )


def can_undo(request: PromotionRequest, module: Module) -> bool:
    """The latest change to the module's folder that can be undone is this promotion."""
    latest = latest_backup(module.name, module.path)
    return latest is not None and latest[1].get("promotion") == request.key


def undo_refusal(request: PromotionRequest, module: Module) -> str | None:
    """Why `u` cannot undo the request's promotion in `module`, said precisely: which later changes stand in the
    way and where each is undone, or that cogtui holds no backup of it; None when it can be undone (MIG-10)."""
    changes = [manifest for _folder, manifest in undoable_backups(module.name, module.path)]
    mine = [i for i, manifest in enumerate(changes) if manifest.get("promotion") == request.key]
    if mine and mine[-1] == len(changes) - 1:
        return None
    name = module.name
    if not mine:
        return (
            f"cogtui keeps no backup of this promotion in {name} (it was added outside cogtui, or its backup was "
            "removed), so u has nothing to restore: edit the schema to take it out."
        )
    later = changes[mine[-1] + 1 :]
    latest = later[-1]
    where = "u on the migration screen (m on the module)" if latest.get("promotion") is None else "u on its row here"
    first = (
        f"undo it first ({where})"
        if len(later) == 1
        else f"undo those {len(later)} changes first, newest first (the latest: {where})"
    )
    after = "a later change" if len(later) == 1 else f"{len(later)} later changes"
    return (
        f"u undoes only {name}'s latest change, and this promotion ({when(changes[mine[-1]])}) has {after} after it; "
        f"the latest is {change_name(latest)} ({when(latest)}). To take this one back, {first}, then press u here."
    )


def change_name(manifest: Mapping[str, Any]) -> str:
    """A change as its backup records it, in words: a promotion (of a mapping, of an enum value) or a migration."""
    promotion = manifest.get("promotion")
    if not isinstance(promotion, str):
        return f"the migration from {manifest.get('from') or '?'} to v{manifest.get('to') or '?'}"
    kind, _, rest = promotion.partition(" ")
    if kind == "mapping":
        return f"the promotion of {json.dumps(rest, ensure_ascii=False)}"
    field, _, value = rest.partition(" ")
    return f"the enum value {json.dumps(value, ensure_ascii=False)} added to {field}"


def when(manifest: Mapping[str, Any]) -> str:
    """When a change was made, to the minute in UTC, as its backup records it."""
    try:
        return datetime.fromisoformat(str(manifest.get("created"))).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return "when is not recorded"


def undo_promotion(request: PromotionRequest, module: Module) -> UndoResult:
    """Undo the promotion: only when it is the module's latest change (a later migration or promotion
    would be undone with it otherwise); PromotionError says why not."""
    if not can_undo(request, module):
        raise PromotionError(undo_refusal(request, module) or f"{request.title!r} cannot be undone now")
    try:
        return undo_latest(module.name, module.path)
    except MigrationError as exc:
        raise PromotionError(str(exc)) from None
