"""Planning: the plans the preview shows, for which target, made off the UI thread and posted one by one.

At opening, every module is planned for the target (`plan_all`), a promotion arrives with its plan already made
(`show_preset`), or a saved plan file is read (`read_saved`, `cogtui review`). `t` switches the target (v2.2 ⇄
v2.5, as `cogn migrate --to`) and plans every module again (`switch_target`). Each plan arrives as a `Planned`
message, a plan file as `ReviewLoaded`: the screen's handler for each feeds the state and draws (AGENTS.md
invariant 8: workers only post messages). Planning again when a module's files change under its plan is a
behaviour of its own, replan.py, which plans through `plan_modules` too.

`MigrationView` is what the flows (this file's, replan.py's and apply.py's) use of the screen, so that none of
them imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from cogtui.core.authoring.migration import MigrationPlan, backups_for, plan_migration
from cogtui.core.authoring.migration.planner import TARGETS
from cogtui.core.authoring.migration.preview_state import PreviewState
from cogtui.core.authoring.migration.review import PlanFileError, ReviewPlan, load_plan_file
from cogtui.core.module.loader import NotAModule, load_module

from ...workbench import Notifies

if TYPE_CHECKING:
    from textual.app import App


class MigrationView(Notifies, Protocol):
    """What the preview's flows use of the migration screen (MigrationScreen implements it)."""

    state: PreviewState
    preset: MigrationPlan | None  # a plan made elsewhere (a promotion), shown and applied like a migration
    title_text: str | None

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the screen itself: where the workers run and post

    def draw(self, force: bool = False) -> None: ...

    def refresh_module_prompt(self, index: int) -> None: ...

    def show_module_list(self) -> None: ...


# ---------------------------------------------------------------- what the workers post


class Planned(Message):
    """A module's plan is ready (posted by the planning worker, and by replan.py's `remake_plan`)."""

    def __init__(
        self, index: int, plan: ReviewPlan, live: MigrationPlan | None, to: str | None = None, undoable: bool = False
    ) -> None:
        super().__init__()
        self.index, self.plan, self.live = index, plan, live
        self.to = to  # the target it was planned for: a plan for a target since switched away from is dropped
        self.undoable = undoable  # a backup of an earlier change to the module exists: `u` can undo it


class ReviewLoaded(Message):
    """A saved plan file was read: its plans, or why it could not be."""

    def __init__(self, plans: list[ReviewPlan], problem: str | None) -> None:
        super().__init__()
        self.plans, self.problem = plans, problem


# ---------------------------------------------------------------- the workers


def plan_module(path: Path, to: str) -> tuple[ReviewPlan, MigrationPlan | None]:
    """Plan one module (runs in a thread worker); a module that cannot be planned becomes a plan with an error."""
    try:
        module = load_module(path)
    except (NotAModule, OSError) as exc:
        return ReviewPlan.unplannable(path.name, path, str(exc)), None
    try:
        plan = plan_migration(module, to)
    except Exception as exc:  # noqa: BLE001 - a planner bug must not take the preview down
        message = f"internal error while planning: {type(exc).__name__}: {exc}"
        return ReviewPlan.unplannable(module.name, path, message, module.format.value), None
    return ReviewPlan.from_plan(plan), (plan if plan.ok else None)


def plan_modules(screen: Screen[Any], jobs: list[tuple[int, Path]], to: str) -> None:
    """Plan each module in turn, posting `Planned` per module so the screen can show progress."""

    def work() -> None:
        worker = get_current_worker()
        for index, path in jobs:
            if worker.is_cancelled:
                return
            plan, live = plan_module(path, to)
            screen.post_message(Planned(index, plan, live, to, bool(backups_for(plan.module))))

    screen.run_worker(work, thread=True, group="migrate-plan", exit_on_error=False, name="plan migrations")


def read_plan_file(screen: Screen[Any], path: Path) -> None:
    def work() -> None:
        try:
            screen.post_message(ReviewLoaded(load_plan_file(path), None))
        except PlanFileError as exc:
            screen.post_message(ReviewLoaded([], str(exc)))

    screen.run_worker(work, thread=True, group="migrate-review", exit_on_error=False, name="read plan file")


# ---------------------------------------------------------------- where the plans come from


def read_saved(view: MigrationView, path: Path, plans: list[ReviewPlan] | None) -> None:
    """A saved plan file under review: its plans when already read (`cogtui review -` reads stdin), else read."""
    if plans is not None:
        view.screen.post_message(ReviewLoaded(plans, None))
    else:
        read_plan_file(view.screen, path)


def show_preset(view: MigrationView, plan: MigrationPlan) -> None:
    """A plan made elsewhere arrives as if just planned; `u` is offered when an earlier change left a backup."""
    undoable = bool(backups_for(plan.module))
    view.screen.post_message(Planned(0, ReviewPlan.from_plan(plan), plan, undoable=undoable))


def plan_all(view: MigrationView) -> None:
    """Plan every slot for the current target (at opening, and after `t` switches the target)."""
    view.draw()
    state = view.state
    plan_modules(view.screen, [(i, s.path) for i, s in enumerate(state.slots) if s.path], state.to)


# ---------------------------------------------------------------- `t`: another target

TARGET_ORDER = tuple(dict.fromkeys(TARGETS.values()))  # ("v2.2", "v2.5"): each once, in the planner's order


def next_target(current: str) -> str:
    """The version after `current` ("2.2" or "v2.2"), wrapping around; bare digits, as `--to` takes them.

    The versions are the core planner's (`TARGETS`): the screen keeps no list of its own."""
    now = TARGETS.get(current.strip().lower(), TARGET_ORDER[0])
    return TARGET_ORDER[(TARGET_ORDER.index(now) + 1) % len(TARGET_ORDER)].removeprefix("v")


def switch_target(view: MigrationView) -> None:
    """Plan every module for the next target; refused while files are being written, or once a migration was
    applied here (undo it first: its backup belongs to that target)."""
    state = view.state
    if state.writing:
        view.notify("Wait: files are being written.", severity="warning", timeout=3)
        return
    if applied := [s.name for s in state.slots if s.applied is not None]:
        view.notify(
            f"Applied to {state.to_label} here: {', '.join(applied)}. Undo (u) before planning another target.",
            title="Target not switched",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return
    # A late plan for the old target is dropped on arrival (`Planned.to`); the workers still going stop here.
    view.screen.workers.cancel_group(view.screen, "migrate-plan")
    state.retarget(next_target(state.to))
    view.show_module_list()  # the overview alone: the modules are listed again as they are planned
    view.notify(f"Planning the migration to {state.to_label}…", timeout=3)
    plan_all(view)
