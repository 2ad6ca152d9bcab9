"""Applying and undoing in the migration preview: the confirmations, the workers' start, and their outcomes.

The screen owns the slots; this flow asks, starts the workers (migrate_work.py)
and applies what they post, through the screen's one handler per message.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cogtui.core.authoring.migration import backups_for
from cogtui.core.settings.locations import backups_dir

from ..watching import validate_entries
from ..workbench import Notifies
from . import migrate_model as view
from . import migrate_work as workers
from .migrate_model import ModuleSlot

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from cogtui.core.authoring.migration import MigrationPlan


class MigrationView(Notifies, Protocol):
    """What this flow uses of the migration screen (MigrationScreen implements it)."""

    slots: list[ModuleSlot]
    listed: list[int]
    current: int | None
    preset: MigrationPlan | None
    review_file: Path | None
    title_text: str | None
    to: str

    @property
    def to_label(self) -> str: ...

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the screen itself: where the workers run and post

    def draw(self, force: bool = False) -> None: ...

    def refresh_module_prompt(self, index: int) -> None: ...


class ApplyFlow:
    def __init__(self, screen: MigrationView) -> None:
        self.screen = screen

    def applied(self, message: workers.Applied) -> None:
        screen = self.screen
        migrated: list[ModuleSlot] = []
        for outcome in message.outcomes:
            slot = screen.slots[outcome.index]
            slot.busy = None
            if outcome.result is not None:
                slot.applied, slot.undone, slot.failure = outcome.result, None, None
                migrated.append(slot)
                if outcome.note:
                    screen.notify(
                        outcome.note,
                        title=f"{slot.name} validated",
                        timeout=12,
                        markup=False,
                        severity="warning" if outcome.note_is_problem else "information",
                    )
            else:
                slot.failure = outcome.error
                screen.notify(
                    outcome.error or "failed",
                    title=f"Could not {'apply the change to' if screen.preset else 'migrate'} {slot.name}",
                    severity="error",
                    timeout=12,
                    markup=False,
                )
            screen.refresh_module_prompt(outcome.index)
        if migrated:
            change = f"Applied: {screen.title_text}" if screen.preset is not None and screen.title_text else None
            title, text = view.applied_notice(migrated, backups_dir(), change)
            screen.notify(text, title=title, timeout=10, markup=False)
        if paths := [s.path for s in migrated if s.path is not None]:
            validate_entries(screen.app, paths, group="revalidate")
        screen.draw(force=True)

    def undone(self, message: workers.Undone) -> None:
        screen = self.screen
        slot = screen.slots[message.index]
        if message.result is None:
            slot.busy, slot.failure = None, message.error
            screen.notify(
                message.error or "failed",
                title=f"Could not undo {slot.name}",
                severity="error",
                timeout=12,
                markup=False,
            )
        else:
            slot.applied, slot.undone, slot.failure = None, message.result, None
            slot.busy = "planning"  # the plan is made again from the restored files
            screen.notify(
                f"Restored from {message.result.backup_dir}.",
                title=f"Undid the {'change to' if screen.preset else 'migration of'} {slot.name}",
                timeout=10,
                markup=False,
            )
            if message.result.edited_since:
                screen.notify(
                    "Edited after the migration (kept in the backup's edited/): "
                    + ", ".join(message.result.edited_since),
                    severity="warning",
                    timeout=12,
                    markup=False,
                )
            if slot.path is not None:
                validate_entries(screen.app, [slot.path], group="revalidate")
                if screen.preset is None:
                    workers.plan_modules(screen.screen, [(message.index, slot.path)], screen.to)
                else:  # a promotion is not planned again: undone is where it ends
                    slot.busy = None
        screen.refresh_module_prompt(message.index)
        screen.draw(force=True)

    def apply(self) -> None:
        screen = self.screen
        request = view.apply_request(screen.slots, screen.listed, screen.current, screen.to_label)
        if isinstance(request, str):
            screen.notify(request, title="Nothing applied", severity="warning", timeout=6, markup=False)
            return
        from .modals import ConfirmModal

        if screen.preset is not None:
            files = ", ".join(f.path for f in screen.preset.files)
            request = view.ApplyRequest(
                screen.title_text or "Apply the change?",
                f"Write {files} of {screen.preset.module}? The files are backed up first, "
                "the module is validated afterwards, and u undoes it.",
                request.indices,
            )
        screen.app.push_screen(
            ConfirmModal(request.title, request.body, confirm="Apply"),
            lambda ok: self.start_apply(request.indices) if ok else None,
        )

    def start_apply(self, indices: list[int]) -> None:
        screen = self.screen
        jobs = [(i, live) for i in indices if screen.slots[i].can_apply and (live := screen.slots[i].live) is not None]
        for i, _ in jobs:
            screen.slots[i].busy = "applying"
            screen.refresh_module_prompt(i)
        screen.draw(force=True)
        workers.apply_plans(screen.screen, jobs, promotion=screen.preset is not None)

    def undo(self) -> None:
        screen = self.screen
        if screen.current is None or not screen.slots:
            screen.notify("Choose a module (J/K) to undo its migration.", severity="warning")
            return
        index, slot = screen.current, screen.slots[screen.current]
        if slot.busy:
            screen.notify(f"{slot.name} is still {slot.busy}; wait for it to finish.", severity="warning", markup=False)
            return
        if slot.applied is not None:  # the exact inverse of what was just applied here: no need to ask
            self.start_undo(index)
            return
        backups = backups_for(slot.name)
        if not backups:
            screen.notify(f"There is no migration of {slot.name} to undo.", severity="warning", markup=False)
            return
        from .modals import ConfirmModal

        body = f"Restore {slot.path} from the backup {backups[-1].name}? Files edited since are kept in the backup."
        screen.app.push_screen(
            ConfirmModal(f"Undo the last migration of {slot.name}?", body, confirm="Undo", danger=True),
            lambda ok: self.start_undo(index) if ok else None,
        )

    def start_undo(self, index: int) -> None:
        screen = self.screen
        slot = screen.slots[index]
        if slot.path is not None:
            slot.busy = "undoing"
            screen.refresh_module_prompt(index)
            screen.draw(force=True)
            workers.undo_module(screen.screen, index, slot.name, slot.path)
