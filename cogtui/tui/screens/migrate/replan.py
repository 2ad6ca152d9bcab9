"""Planning again by itself (MIG-9): when a module's files change on disk under the plan shown, the preview makes
a new plan rather than offer `a` on one that no longer matches them (apply would refuse it every time).

Two ways it finds out: an apply that refused a stale plan (`PreviewState.applied` says to plan again), and the
app's `modules_changed` signal (the watcher validated a module again), after which a worker reads the changed
modules' files (off the UI thread: a large module's files take a while) and names those whose plan no longer matches
them (`FoundStale`; `PreviewState.found_stale`). The state decides; this flow starts the
planning worker (a migration is planned again for its target, a promotion is made again by the `remake` it came
with), tells the user, and has the screen redraw.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cogtui.core.diagnostics import plural

from . import work as workers

if TYPE_CHECKING:
    from cogtui.core.authoring.migration import MigrationPlan

    from .apply import MigrationView

NO_REMAKE = "this change was made elsewhere; make it again from the insights dashboard"


class ReplanFlow:
    def __init__(self, screen: MigrationView, remake: Callable[[], MigrationPlan | str] | None) -> None:
        self.screen = screen
        self.remake = remake  # a promotion's own planning, from the files as they are now

    def after_stale_apply(self, index: int, error: str) -> None:
        """`a` found the files changed since the plan was made (nothing was written): plan again, and say so."""
        slot = self.screen.state.slots[index]
        self.screen.notify(
            f"{error}. Nothing was written; the plan was made again from the files as they are now: "
            "review it, then a applies it.",
            title=f"{slot.name}: the files changed on disk: planned again",
            severity="warning",
            timeout=12,
            markup=False,
        )
        self.start([index])

    def modules_changed(self, paths: list[Path] | None) -> None:
        """Modules were validated again after a change on disk: check, off the UI thread, whose plan no longer
        holds (`stale_found` plans those again).

        `None` (modules appeared or vanished) is passed over: the changed modules are validated next and named
        then, and checking every planned module's files for it would make a large preview read them all."""
        if paths is None:
            return
        candidates = self.screen.state.replan_candidates(paths)
        if candidates:
            workers.find_stale(self.screen.screen, candidates)

    def stale_found(self, message: workers.FoundStale) -> None:
        """Plans found stale: those still shown and applicable are planned again, and the user is told."""
        state = self.screen.state
        again = state.found_stale(message.found)
        if not again:
            return
        names = ", ".join(state.slots[i].name for i in again[:5]) + (" …" if len(again) > 5 else "")
        self.screen.notify(
            f"{names}: the files changed on disk: planned again. Review the new plan before applying it.",
            title=f"Planned {plural(len(again), 'module')} again",
            severity="warning",
            timeout=10,
            markup=False,
        )
        self.start(again)

    def start(self, indices: list[int]) -> None:
        screen, state = self.screen, self.screen.state
        for index in indices:
            path = state.slots[index].path
            if screen.preset is None and path is not None:
                workers.plan_modules(screen.screen, [(index, path)], state.to)
            elif self.remake is not None:
                workers.remake_plan(screen.screen, index, self.remake)
            else:
                state.replan_failed(index, NO_REMAKE)
            screen.refresh_module_prompt(index)
        screen.draw(force=True)

    def failed(self, message: workers.ReplanFailed) -> None:
        screen = self.screen
        screen.state.replan_failed(message.index, message.error)
        screen.notify(
            message.error,
            title=f"{screen.state.slots[message.index].name}: could not plan again",
            severity="error",
            timeout=12,
            markup=False,
        )
        screen.refresh_module_prompt(message.index)
        screen.draw(force=True)
