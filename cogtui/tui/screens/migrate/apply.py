"""Applying and undoing in the migration preview: the confirmations, the workers' start, and their outcomes.

The screen owns the preview's state; this flow asks, starts the workers
(work.py) and feeds their outcomes to the state (PreviewState.applied,
undone), through the screen's one handler per message, then has it redrawn.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cogtui.core.authoring.migration import backups_for
from cogtui.core.authoring.migration.preview_state import ApplyRequest, ModuleSlot, PreviewState
from cogtui.core.settings.locations import backups_dir

from ...watching import validate_entries
from ...workbench import Notifies
from . import model as view
from . import work as workers

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from cogtui.core.authoring.migration import MigrationPlan


class MigrationView(Notifies, Protocol):
    """What this flow uses of the migration screen (MigrationScreen implements it)."""

    state: PreviewState
    preset: MigrationPlan | None
    review_file: Path | None
    title_text: str | None

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the screen itself: where the workers run and post

    def draw(self, force: bool = False) -> None: ...

    def refresh_module_prompt(self, index: int) -> None: ...


class ApplyFlow:
    def __init__(self, screen: MigrationView, on_stale: Callable[[int, str], object]) -> None:
        self.screen = screen
        self.on_stale = on_stale  # an apply found the files changed since the plan: plan again (replan.py)

    def applied(self, message: workers.Applied) -> None:
        screen = self.screen
        migrated: list[ModuleSlot] = []
        for outcome in message.outcomes:
            slot = screen.state.slots[outcome.index]
            if screen.state.applied(outcome.index, outcome.result, outcome.error, outcome.stale):
                self.on_stale(outcome.index, outcome.error or "the files changed on disk")
            elif outcome.result is not None:
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
        slot = screen.state.slots[message.index]
        replan = screen.state.undone(message.index, message.result, message.error)
        if message.result is None:
            screen.notify(
                message.error or "failed",
                title=f"Could not undo {slot.name}",
                severity="error",
                timeout=12,
                markup=False,
            )
        else:
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
                if replan:  # the plan is made again from the restored files
                    workers.plan_modules(screen.screen, [(message.index, slot.path)], screen.state.to)
        screen.refresh_module_prompt(message.index)
        screen.draw(force=True)

    def apply(self) -> None:
        screen = self.screen
        request = screen.state.apply_request()
        if isinstance(request, str):
            screen.notify(request, title="Nothing applied", severity="warning", timeout=6, markup=False)
            return
        from ..modals import ConfirmModal

        if screen.preset is not None:
            files = ", ".join(f.path for f in screen.preset.files)
            request = ApplyRequest(
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
        jobs = screen.state.start_apply(indices)
        for i, _ in jobs:
            screen.refresh_module_prompt(i)
        screen.draw(force=True)
        workers.apply_plans(screen.screen, jobs, promotion=screen.preset is not None)

    def undo(self) -> None:
        screen = self.screen
        index, slot = screen.state.current, screen.state.slot
        if index is None or slot is None:
            screen.notify(f"Choose a module (J/K) to undo its {screen.state.change_kind}.", severity="warning")
            return
        if slot.busy:
            screen.notify(f"{slot.name} is still {slot.busy}; wait for it to finish.", severity="warning", markup=False)
            return
        if slot.applied is not None:  # the exact inverse of what was just applied here: no need to ask
            self.start_undo(index)
            return
        backups = backups_for(slot.name)
        if not backups:
            kind = screen.state.change_kind
            screen.notify(f"There is no {kind} of {slot.name} to undo.", severity="warning", markup=False)
            return
        from ..modals import ConfirmModal

        body = f"Restore {slot.path} from the backup {backups[-1].name}? Files edited since are kept in the backup."
        screen.app.push_screen(
            ConfirmModal(
                f"Undo the last {screen.state.change_kind} of {slot.name}?", body, confirm="Undo", danger=True
            ),
            lambda ok: self.start_undo(index) if ok else None,
        )

    def start_undo(self, index: int) -> None:
        screen = self.screen
        slot = screen.state.slots[index]
        if slot.path is not None and screen.state.start_undo(index):
            screen.refresh_module_prompt(index)
            screen.draw(force=True)
            workers.undo_module(screen.screen, index, slot.name, slot.path)
