"""Applying and undoing: `a` and `u`, their confirmations, the workers that write, and what their outcomes say.

`a` applies the module shown, or on the overview every module ready; a promotion's plan is applied the same way,
validated afterwards rather than checked as a v2.2 migration. Every apply backs the module's files up first and is
rolled back on failure; `u` restores the last backup (at once when it undoes what was just applied here, after a
confirmation otherwise). The workers post `Applied` and `Undone` (AGENTS.md invariant 8), the screen's handler for
each calls this flow, which feeds the outcome to the state (`PreviewState.applied`, `undone`), tells the user,
has the browser validate the changed modules again and the screen redraw. An apply that finds the files changed
since the plan was made writes nothing and hands the module to replan.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.screen import Screen

from cogtui.core.authoring.migration import (
    ApplyResult,
    MigrationError,
    MigrationPlan,
    StalePlan,
    UndoResult,
    apply_plan,
    backups_for,
    undo_latest,
)
from cogtui.core.authoring.migration.preview_state import ApplyRequest, ModuleSlot
from cogtui.core.diagnostics import plural
from cogtui.core.settings.locations import backups_dir

from ...watching import validate_entries
from .planning import MigrationView, plan_modules

# ---------------------------------------------------------------- what the workers post


@dataclass(frozen=True)
class ApplyOutcome:
    """One module of an apply: its result, or why it failed (and was rolled back)."""

    index: int
    result: ApplyResult | None
    error: str | None
    note: str | None = None  # e.g. the validation result after a promotion
    note_is_problem: bool = False  # the note reports errors or warnings
    stale: bool = False  # the files changed on disk since the plan was made: nothing was written, plan again


class Applied(Message):
    def __init__(self, outcomes: list[ApplyOutcome]) -> None:
        super().__init__()
        self.outcomes = outcomes


class Undone(Message):
    def __init__(self, index: int, result: UndoResult | None, error: str | None) -> None:
        super().__init__()
        self.index, self.result, self.error = index, result, error


# ---------------------------------------------------------------- the workers


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


def applied_notice(migrated: list[ModuleSlot], backups: Path, change: str | None = None) -> tuple[str, str]:
    """(title, text) of the notification after applying: where the backup went, and how to undo.

    `change` names a change that is not a migration (a promotion from the insights dashboard)."""
    if len(migrated) == 1 and migrated[0].applied is not None:
        backup = migrated[0].applied.backup_dir
        text = f"Backup at {backup}. Press u to undo." if backup else "No backup was made."
        return (change or f"Migrated {migrated[0].name}"), text
    return f"Migrated {plural(len(migrated), 'module')}", f"Backups are under {backups}. u on a module undoes it."


# ---------------------------------------------------------------- the flow


class ApplyFlow:
    def __init__(self, view: MigrationView, on_stale: Callable[[int, str], object]) -> None:
        self.view = view
        self.on_stale = on_stale  # an apply found the files changed since the plan: plan again (replan.py)

    def applied(self, message: Applied) -> None:
        view = self.view
        migrated: list[ModuleSlot] = []
        for outcome in message.outcomes:
            slot = view.state.slots[outcome.index]
            if view.state.applied(outcome.index, outcome.result, outcome.error, outcome.stale):
                self.on_stale(outcome.index, outcome.error or "the files changed on disk")
            elif outcome.result is not None:
                migrated.append(slot)
                if outcome.note:
                    view.notify(
                        outcome.note,
                        title=f"{slot.name} validated",
                        timeout=12,
                        markup=False,
                        severity="warning" if outcome.note_is_problem else "information",
                    )
            else:
                view.notify(
                    outcome.error or "failed",
                    title=f"Could not {'apply the change to' if view.preset else 'migrate'} {slot.name}",
                    severity="error",
                    timeout=12,
                    markup=False,
                )
            view.refresh_module_prompt(outcome.index)
        if migrated:
            change = f"Applied: {view.title_text}" if view.preset is not None and view.title_text else None
            title, text = applied_notice(migrated, backups_dir(), change)
            view.notify(text, title=title, timeout=10, markup=False)
        if paths := [s.path for s in migrated if s.path is not None]:
            validate_entries(view.app, paths, group="revalidate")
        view.draw(force=True)

    def undone(self, message: Undone) -> None:
        view = self.view
        slot = view.state.slots[message.index]
        replan = view.state.undone(message.index, message.result, message.error)
        if message.result is None:
            view.notify(
                message.error or "failed",
                title=f"Could not undo {slot.name}",
                severity="error",
                timeout=12,
                markup=False,
            )
        else:
            view.notify(
                f"Restored from {message.result.backup_dir}.",
                title=f"Undid the {'change to' if view.preset else 'migration of'} {slot.name}",
                timeout=10,
                markup=False,
            )
            if message.result.edited_since:
                view.notify(
                    "Edited after the migration (kept in the backup's edited/): "
                    + ", ".join(message.result.edited_since),
                    severity="warning",
                    timeout=12,
                    markup=False,
                )
            if slot.path is not None:
                validate_entries(view.app, [slot.path], group="revalidate")
                if replan:  # the plan is made again from the restored files
                    plan_modules(view.screen, [(message.index, slot.path)], view.state.to)
        view.refresh_module_prompt(message.index)
        view.draw(force=True)

    def apply(self) -> None:
        view = self.view
        request = view.state.apply_request()
        if isinstance(request, str):
            view.notify(request, title="Nothing applied", severity="warning", timeout=6, markup=False)
            return
        from ..modals import ConfirmModal

        if view.preset is not None:
            files = ", ".join(f.path for f in view.preset.files)
            request = ApplyRequest(
                view.title_text or "Apply the change?",
                f"Write {files} of {view.preset.module}? The files are backed up first, "
                "the module is validated afterwards, and u undoes it.",
                request.indices,
            )
        view.app.push_screen(
            ConfirmModal(request.title, request.body, confirm="Apply"),
            lambda ok: self.start_apply(request.indices) if ok else None,
        )

    def start_apply(self, indices: list[int]) -> None:
        view = self.view
        jobs = view.state.start_apply(indices)
        for i, _ in jobs:
            view.refresh_module_prompt(i)
        view.draw(force=True)
        apply_plans(view.screen, jobs, promotion=view.preset is not None)

    def undo(self) -> None:
        view = self.view
        index, slot = view.state.current, view.state.slot
        if index is None or slot is None:
            view.notify(f"Choose a module (J/K) to undo its {view.state.change_kind}.", severity="warning")
            return
        if slot.busy:
            view.notify(f"{slot.name} is still {slot.busy}; wait for it to finish.", severity="warning", markup=False)
            return
        if slot.applied is not None:  # the exact inverse of what was just applied here: no need to ask
            self.start_undo(index)
            return
        backups = backups_for(slot.name)
        if not backups:
            kind = view.state.change_kind
            view.notify(f"There is no {kind} of {slot.name} to undo.", severity="warning", markup=False)
            return
        from ..modals import ConfirmModal

        body = f"Restore {slot.path} from the backup {backups[-1].name}? Files edited since are kept in the backup."
        view.app.push_screen(
            ConfirmModal(f"Undo the last {view.state.change_kind} of {slot.name}?", body, confirm="Undo", danger=True),
            lambda ok: self.start_undo(index) if ok else None,
        )

    def start_undo(self, index: int) -> None:
        view = self.view
        slot = view.state.slots[index]
        if slot.path is not None and view.state.start_undo(index):
            view.refresh_module_prompt(index)
            view.draw(force=True)
            undo_module(view.screen, index, slot.name, slot.path)
