"""Planning again by itself when a module's files change on disk under the plan shown: the preview makes a new plan
rather than offer `a` on one that no longer matches them, which apply would refuse every time (MIG-9).

Two ways it finds out: an apply that refused a stale plan (apply.py calls `after_stale_apply`), and the app's
`modules_changed` signal (the watcher validated a module again), after which a worker reads the changed modules'
files (off the UI thread: a large module's files take a while) and names those whose plan no longer matches them
(`FoundStale`; `PreviewState.found_stale`). The state decides; this flow starts the planning again (a migration
is planned again for its target, planning.py's worker; a promotion is made again by the `remake` it came with,
`remake_plan` here), tells the user, and has the screen redraw.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.screen import Screen

from cogtui.core.authoring.migration import MigrationPlan, backups_for, staleness
from cogtui.core.authoring.migration.review import ReviewPlan
from cogtui.core.diagnostics import plural

from .planning import MigrationView, Planned, plan_modules

NO_REMAKE = "this change was made elsewhere; make it again from the insights dashboard"


class ReplanFailed(Message):
    """A plan made elsewhere (a promotion) could not be made again after its files changed on disk."""

    def __init__(self, index: int, error: str) -> None:
        super().__init__()
        self.index, self.error = index, error


class FoundStale(Message):
    """The plans (by module index) whose files on disk are no longer what they were made from."""

    def __init__(self, found: list[tuple[int, MigrationPlan]]) -> None:
        super().__init__()
        self.found = found


def find_stale(screen: Screen[Any], candidates: list[tuple[int, MigrationPlan]]) -> None:
    """Check each plan against its module's files on disk (reads them): `FoundStale` with those that changed."""

    def work() -> None:
        found = [(index, plan) for index, plan in candidates if staleness(plan) is not None]
        if found:
            screen.post_message(FoundStale(found))

    screen.run_worker(work, thread=True, group="migrate-stale", exit_on_error=False, name="check plans against files")


def remake_plan(screen: Screen[Any], index: int, remake: Callable[[], MigrationPlan | str]) -> None:
    """Make a plan from elsewhere (a promotion) again, from the files as they are now: `Planned` or `ReplanFailed`."""

    def work() -> None:
        made = remake()
        if isinstance(made, str):
            screen.post_message(ReplanFailed(index, made))
        else:
            screen.post_message(
                Planned(index, ReviewPlan.from_plan(made), made, undoable=bool(backups_for(made.module)))
            )

    screen.run_worker(work, thread=True, group="migrate-plan", exit_on_error=False, name="plan the change again")


class ReplanFlow:
    def __init__(self, view: MigrationView, remake: Callable[[], MigrationPlan | str] | None) -> None:
        self.view = view
        self.remake = remake  # a promotion's own planning, from the files as they are now

    def after_stale_apply(self, index: int, error: str) -> None:
        """`a` found the files changed since the plan was made (nothing was written): plan again, and say so."""
        slot = self.view.state.slots[index]
        self.view.notify(
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
        candidates = self.view.state.replan_candidates(paths)
        if candidates:
            find_stale(self.view.screen, candidates)

    def stale_found(self, message: FoundStale) -> None:
        """Plans found stale: those still shown and applicable are planned again, and the user is told."""
        state = self.view.state
        again = state.found_stale(message.found)
        if not again:
            return
        names = ", ".join(state.slots[i].name for i in again[:5]) + (" …" if len(again) > 5 else "")
        self.view.notify(
            f"{names}: the files changed on disk: planned again. Review the new plan before applying it.",
            title=f"Planned {plural(len(again), 'module')} again",
            severity="warning",
            timeout=10,
            markup=False,
        )
        self.start(again)

    def start(self, indices: list[int]) -> None:
        view, state = self.view, self.view.state
        for index in indices:
            path = state.slots[index].path
            if view.preset is None and path is not None:
                plan_modules(view.screen, [(index, path)], state.to)
            elif self.remake is not None:
                remake_plan(view.screen, index, self.remake)
            else:
                state.replan_failed(index, NO_REMAKE)
            view.refresh_module_prompt(index)
        view.draw(force=True)

    def failed(self, message: ReplanFailed) -> None:
        view = self.view
        view.state.replan_failed(message.index, message.error)
        view.notify(
            message.error,
            title=f"{view.state.slots[message.index].name}: could not plan again",
            severity="error",
            timeout=12,
            markup=False,
        )
        view.refresh_module_prompt(message.index)
        view.draw(force=True)
