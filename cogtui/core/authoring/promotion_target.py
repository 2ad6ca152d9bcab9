"""What promoting a row of the insights dashboard asks for, and into which module (the insights screen's rule).

An insight group (`History.insights`) names a suggested mapping, the modules
that suggested it and the latest examples; a custom enum row names one
module, field and value. A group without a suggested mapping has nothing to
promote. A group suggested by several modules offers one promotion per
module, each with that module's own examples (all of them when the module
has none of its own), and the author chooses; one module needs no choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.authoring.promote import PromotionError, plan_enum_promotion, plan_mapping_promotion
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
    """The plan the request asks for in `module` (PromotionError when it cannot be made)."""
    if request.mapping is not None:
        return plan_mapping_promotion(module, request.mapping, list(request.examples))
    if request.field is None or request.value is None:
        raise PromotionError("a promotion needs a suggested mapping, or an enum field and value")
    return plan_enum_promotion(module, request.field, request.value)
