"""The migration preview's slow parts, run in thread workers: plan, read a plan file, check plans against their
files, apply, undo.

Each worker only calls the core and posts one of the screen's messages; the
screen's handler for that message is the one place its state changes
(AGENTS.md invariant 8). Failures the core reports (MigrationError, a bad plan
file) travel in the message; anything unexpected fails the worker, and the
screen reports it once from `Worker.StateChanged`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from cogtui.core.authoring.migration import (
    ApplyResult,
    MigrationError,
    MigrationPlan,
    StalePlan,
    UndoResult,
    apply_plan,
    backups_for,
    staleness,
    undo_latest,
)
from cogtui.core.authoring.migration.review import PlanFileError, ReviewPlan, load_plan_file
from cogtui.core.diagnostics import plural

from .model import plan_module


@dataclass(frozen=True)
class ApplyOutcome:
    """One module of an apply: its result, or why it failed (and was rolled back)."""

    index: int
    result: ApplyResult | None
    error: str | None
    note: str | None = None  # e.g. the validation result after a promotion
    note_is_problem: bool = False  # the note reports errors or warnings
    stale: bool = False  # the files changed on disk since the plan was made: nothing was written, plan again


class Planned(Message):
    """A module's plan is ready (posted by the planning worker)."""

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


class Applied(Message):
    def __init__(self, outcomes: list[ApplyOutcome]) -> None:
        super().__init__()
        self.outcomes = outcomes


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


class Undone(Message):
    def __init__(self, index: int, result: UndoResult | None, error: str | None) -> None:
        super().__init__()
        self.index, self.result, self.error = index, result, error


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


def find_stale(screen: Screen[Any], candidates: list[tuple[int, MigrationPlan]]) -> None:
    """Check each plan against its module's files on disk (reads them): `FoundStale` with those that changed."""

    def work() -> None:
        found = [(index, plan) for index, plan in candidates if staleness(plan) is not None]
        if found:
            screen.post_message(FoundStale(found))

    screen.run_worker(work, thread=True, group="migrate-stale", exit_on_error=False, name="check plans against files")


def read_plan_file(screen: Screen[Any], path: Path) -> None:
    def work() -> None:
        try:
            screen.post_message(ReviewLoaded(load_plan_file(path), None))
        except PlanFileError as exc:
            screen.post_message(ReviewLoaded([], str(exc)))

    screen.run_worker(work, thread=True, group="migrate-review", exit_on_error=False, name="read plan file")


def apply_plans(screen: Screen[Any], jobs: list[tuple[int, MigrationPlan]], promotion: bool = False) -> None:
    """Apply each plan (backed up, written, validated), then post every outcome in one `Applied`.

    A promotion is not a migration: it is applied without the `--v22` check, then validated as the module is.
    """

    def work() -> None:
        outcomes = []
        for index, plan in jobs:  # each module is its own unit: one failure leaves the others alone
            try:
                if promotion:
                    from cogtui.core.authoring.promote import apply_promotion
                    from cogtui.core.diagnostics import counts

                    result, diagnostics = apply_promotion(plan)
                    errors, warnings = counts(diagnostics)
                    clean = not errors and not warnings
                    note = "✓ valid" if clean else f"{plural(errors, 'error')}, {plural(warnings, 'warning')}"
                    outcomes.append(ApplyOutcome(index, result, None, note, note_is_problem=not clean))
                    continue
                outcomes.append(ApplyOutcome(index, apply_plan(plan, backup=True), None))
            except StalePlan as exc:
                outcomes.append(ApplyOutcome(index, None, str(exc), stale=True))
            except MigrationError as exc:
                outcomes.append(ApplyOutcome(index, None, str(exc)))
            except Exception as exc:  # noqa: BLE001 - apply_plan rolled back; report it with the others
                outcomes.append(ApplyOutcome(index, None, f"internal error (rolled back): {type(exc).__name__}: {exc}"))
        screen.post_message(Applied(outcomes))

    screen.run_worker(work, thread=True, group="migrate-apply", exit_on_error=False, name="apply migrations")


def undo_module(screen: Screen[Any], index: int, name: str, path: Path) -> None:
    def work() -> None:
        try:
            screen.post_message(Undone(index, undo_latest(name, path), None))
        except (MigrationError, OSError) as exc:
            screen.post_message(Undone(index, None, str(exc)))

    screen.run_worker(work, thread=True, group="migrate-undo", exit_on_error=False, name="undo migration")


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
