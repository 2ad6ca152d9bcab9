"""`t` in the migration preview: switch the target version (v2.2 ⇄ v2.5, as `cogn migrate --to`) and plan again.

The versions come from the core's planner (`TARGETS`); the screen keeps no rule
of its own. A switch is refused while files are being written, or once a
migration was applied here (undo it first: its backup belongs to that target).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.widgets import OptionList

from cogtui.core.authoring.migration.planner import TARGETS
from cogtui.core.authoring.migration.preview_state import PreviewState

from ...workbench import Notifies

if TYPE_CHECKING:
    from textual.screen import Screen


class TargetView(Notifies, Protocol):
    """What switching the target uses of the migration screen (MigrationScreen implements it)."""

    state: PreviewState

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
    state = screen.state
    if state.writing:
        screen.notify("Wait: files are being written.", severity="warning", timeout=3)
        return
    if applied := [s.name for s in state.slots if s.applied is not None]:
        screen.notify(
            f"Applied to {state.to_label} here: {', '.join(applied)}. Undo (u) before planning another target.",
            title="Target not switched",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return
    # A late plan for the old target is dropped on arrival.
    screen.screen.workers.cancel_group(screen.screen, "migrate-plan")
    state.retarget(next_target(state.to))
    if state.multi:
        screen.screen.query_one("#migrate-modules", OptionList).clear_options()
    screen.show_module_list()
    screen.notify(f"Planning the migration to {state.to_label}…", timeout=3)
    screen.plan_all()
