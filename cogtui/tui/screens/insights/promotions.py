"""The insights dashboard's promotion work, off the UI thread: which rows are already in their module's
schema (and can be undone), planning a promotion, and undoing one. Each worker posts one message; the
screen's handlers feed it to the dashboard state (`core.history.dashboard_state`). The rules are the
core's (`core.authoring.promotion_target`); this file only runs them in threads.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.message import Message

from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.authoring.promote import PromotionError
from cogtui.core.authoring.promotion_target import (
    PromotionRequest,
    can_undo,
    enum_promotion,
    is_promoted,
    mapping_promotions,
    plan_promotion,
    undo_promotion,
    undo_refusal,
)
from cogtui.core.history.dashboard import DashboardData
from cogtui.core.history.dashboard_state import ENUMS, INSIGHTS, RowKey, row_key
from cogtui.core.module.model import Module

Load = Callable[[str], Module | None]  # a module by name, from the app's module store


Rows = dict[RowKey, tuple[str, ...]]


class PromotionsRead(Message):
    """Which rows of one read are in their schema (modules per row), which can be undone, and why not where not."""

    def __init__(self, data: DashboardData, promoted: Rows, undoable: Rows, refusals: Rows) -> None:
        super().__init__()
        self.data, self.promoted, self.undoable, self.refusals = data, promoted, undoable, refusals


class PlanReady(Message):
    def __init__(self, plan: MigrationPlan, title: str, remake: Callable[[], MigrationPlan | str]) -> None:
        super().__init__()
        self.plan, self.title = plan, title
        self.remake = remake  # the same promotion planned again, from the module as it is then (MIG-9)


class PromotionFailed(Message):
    """A promotion could not be planned, or an undo could not be made: the notification says why."""

    def __init__(self, error: str, title: str) -> None:
        super().__init__()
        self.error, self.title = error, title


class PromotionUndone(Message):
    def __init__(self, title: str, restored: tuple[str, ...], edited: tuple[str, ...]) -> None:
        super().__init__()
        self.title, self.restored, self.edited = title, restored, edited


def requests_of(tab: str, document: dict[str, Any]) -> list[PromotionRequest]:
    """The promotions a row offers, one per module (none for a row without a mapping)."""
    if tab == ENUMS:
        return [enum_promotion(document)]
    requests = mapping_promotions(document)
    return [] if isinstance(requests, str) else requests


def read_promotions(data: DashboardData, load: Load) -> PromotionsRead:
    """For each row, the modules whose schema already holds it, those where `u` can undo it, and why it cannot
    in the others."""
    modules: dict[str, Module | None] = {}
    promoted: Rows = {}
    undoable: Rows = {}
    refusals: Rows = {}
    for tab, rows in ((INSIGHTS, data.insights), (ENUMS, data.custom_enums)):
        for document in rows:
            done, undo, why = [], [], []
            for request in requests_of(tab, document):
                if request.module not in modules:
                    modules[request.module] = load(request.module)
                module = modules[request.module]
                if module is not None and is_promoted(request, module):
                    done.append(request.module)
                    if can_undo(request, module):
                        undo.append(request.module)
                    elif (refusal := undo_refusal(request, module)) is not None:
                        why.append(refusal)
            key = row_key(tab, document)
            for found, into in ((done, promoted), (undo, undoable), (why, refusals)):
                if found:
                    into[key] = tuple(found)
    return PromotionsRead(data, promoted, undoable, refusals)


def not_on_path(module: str) -> str:
    return f"{module} is not on the search path; add its folder (--path, COGNITIVE_MODULES_PATH) to edit its schema"


def build_plan(request: PromotionRequest, load: Load) -> PlanReady | PromotionFailed:
    module = load(request.module)
    if module is None:
        return PromotionFailed(not_on_path(request.module), request.title)
    try:
        return PlanReady(plan_promotion(request, module), request.title, partial(remake_plan, request, load))
    except PromotionError as exc:
        return PromotionFailed(str(exc), request.title)


def remake_plan(request: PromotionRequest, load: Load) -> MigrationPlan | str:
    """The promotion planned again from the module as it is now (its files changed under the preview), or why not."""
    made = build_plan(request, load)
    return made.plan if isinstance(made, PlanReady) else made.error


def undo(request: PromotionRequest, load: Load) -> PromotionUndone | PromotionFailed:
    title = f"Undo: {request.title}"
    module = load(request.module)
    if module is None:
        return PromotionFailed(not_on_path(request.module), title)
    try:
        result = undo_promotion(request, module)
    except PromotionError as exc:
        return PromotionFailed(str(exc), title)
    return PromotionUndone(title, result.restored, result.edited_since)
