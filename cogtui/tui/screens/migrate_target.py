"""`t` in the migration preview: switch the target version (v2.2 ⇄ v2.5, as `cogn migrate --to`) and plan again.

The versions come from the core's planner (`TARGETS`); the screen keeps no rule
of its own. A switch is refused while files are being written, or once a
migration was applied here (undo it first: its backup belongs to that target).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.widgets import OptionList

from cogtui.core.authoring.migration.planner import TARGETS

from ..workbench import Notifies
from .migrate_model import ModuleSlot

if TYPE_CHECKING:
    from textual.screen import Screen


class TargetView(Notifies, Protocol):
    """What switching the target uses of the migration screen (MigrationScreen implements it)."""

    slots: list[ModuleSlot]
    listed: list[int]
    current: int | None
    multi: bool
    file_index: int
    to: str

    @property
    def to_label(self) -> str: ...

    @property
    def screen(self) -> Screen[object]: ...  # the screen itself: its widgets and workers

    def show_module_list(self) -> None: ...

    def plan_all(self) -> None: ...


TARGET_ORDER = tuple(dict.fromkeys(TARGETS.values()))  # ("v2.2", "v2.5"): each once, in the planner's order


def next_target(current: str) -> str:
    """The version after `current` ("2.2" or "v2.2"), wrapping around; bare digits, as `--to` takes them."""
    now = TARGETS.get(current.strip().lower(), TARGET_ORDER[0])
    return TARGET_ORDER[(TARGET_ORDER.index(now) + 1) % len(TARGET_ORDER)].removeprefix("v")


def switch_target(screen: TargetView) -> None:
    if any(s.busy in ("applying", "undoing") for s in screen.slots):
        screen.notify("Wait: files are being written.", severity="warning", timeout=3)
        return
    if applied := [s.name for s in screen.slots if s.applied is not None]:
        screen.notify(
            f"Applied to {screen.to_label} here: {', '.join(applied)}. Undo (u) before planning another target.",
            title="Target not switched",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return
    screen.screen.workers.cancel_group(
        screen.screen, "migrate-plan"
    )  # a late plan for the old target is dropped on arrival
    screen.to = next_target(screen.to)
    screen.slots = [ModuleSlot(s.path.name, s.path, busy="planning") for s in screen.slots if s.path is not None]
    screen.listed = []
    screen.current = None if screen.multi else 0
    screen.file_index = 0
    if screen.multi:
        screen.screen.query_one("#migrate-modules", OptionList).clear_options()
    screen.show_module_list()
    screen.notify(f"Planning the migration to {screen.to_label}…", timeout=3)
    screen.plan_all()
