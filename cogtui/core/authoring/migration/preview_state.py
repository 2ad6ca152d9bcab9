"""The migration preview as one state object: its modules (slots), the page shown, and every change to them.

The TUI's migration screen keeps one `PreviewState`, feeds it what happens (a plan arrived, the author
moved, an apply or undo started or ended, the target switched) and draws every part from it: the head
line (`heading`), the status line (`status_line`), the planning progress (`progress`), which keys the
footer offers (`can`), and each module's page. So the parts cannot disagree. A module that was applied
is done, one whose apply or undo failed says so until the next attempt, and a module being written
accepts no second write.

Three modes: a live migration of modules on disk (the target can be switched), a promotion from the
insights dashboard (one prepared plan, no target to switch), and the read-only review of a saved plan
(nothing can be applied, undone or planned again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cogtui.core.authoring.migration.apply import ApplyResult, UndoResult, staleness
from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.authoring.migration.review import ReviewPlan
from cogtui.core.diagnostics import plural

WRITING = ("applying", "undoing")
# Said of a module whose files changed on disk under its plan (MIG-9): the preview made a new one itself.
REPLANNED = "the files changed on disk after the plan was made: planned again"


@dataclass
class ModuleSlot:
    """One module of the preview. Only PreviewState's transitions change it."""

    name: str
    path: Path | None  # None for a saved plan's module (it lives on another machine)
    plan: ReviewPlan | None = None  # None while planning
    live: MigrationPlan | None = None  # what `apply_plan` writes; None in review mode and for bad input
    busy: str | None = None  # "planning", "applying" or "undoing"
    applied: ApplyResult | None = None
    undone: UndoResult | None = None
    failure: str | None = None  # the last apply or undo that failed
    replanned: str | None = None  # why the plan shown was made again by itself (REPLANNED), until the next apply
    undoable: bool = False  # a backup of an earlier change to it can be restored (found when it was planned)

    @property
    def can_undo(self) -> bool:
        """`u` has something to undo: the change applied here, or an earlier one cogtui kept a backup of."""
        return self.path is not None and self.busy is None and (self.applied is not None or self.undoable)

    @property
    def can_apply(self) -> bool:
        return (
            self.live is not None
            and self.plan is not None
            and self.plan.can_apply
            and self.applied is None
            and self.busy is None
        )

    def apply_refusal(self) -> str | None:
        """Why `a` does nothing for this module, or None when it can be applied."""
        if self.busy:
            return f"{self.name} is still {self.busy}; wait for it to finish."
        if self.plan is None:
            return f"{self.name} has no plan yet."
        if self.plan.errors:
            count = len(self.plan.errors)
            return f"{self.name} cannot be migrated: fix the {count} problem{'s' * (count != 1)} shown first."
        if self.applied is not None:
            return f"{self.name}: this change is already applied; u undoes it."
        if self.plan.already_current or not self.plan.files:
            return f"{self.name} is already current: there is nothing to apply."
        if self.live is None:
            return f"{self.name}: {self.failure or 'this plan cannot be applied here'}."
        return None

    def phase(self) -> str:
        """What the status line says of the module, in words."""
        if self.busy or self.plan is None:
            return self.busy or "planning"
        if self.applied is not None:
            return "applied (u undoes it)"
        if self.failure is not None:
            return "failed (see the summary)"
        if self.plan.errors:
            return "cannot migrate"
        return "a applies" if self.can_apply else "nothing to apply"


@dataclass(frozen=True)
class ApplyRequest:
    """What `a` would apply, and how to ask for confirmation."""

    title: str
    body: str
    indices: list[int]


@dataclass
class PreviewState:
    slots: list[ModuleSlot] = field(default_factory=list)
    to: str = "2.2"
    review_name: str | None = None  # the saved plan's file name in review mode
    promotion: str | None = None  # the promotion's title when the plan came from the insights dashboard
    listed: list[int] = field(default_factory=list)  # slots in the module list (already-current ones left out)
    current: int | None = None  # None: the overview
    file_index: int = 0  # 0: the module's summary; n: its n-th file
    problem: str | None = None  # why a saved plan could not be reviewed
    multi: bool = False

    @classmethod
    def for_paths(cls, paths: list[Path], to: str, promotion: str | None = None) -> PreviewState:
        state = cls([ModuleSlot(p.name, p, busy="planning") for p in paths], to, promotion=promotion)
        state.multi = len(state.slots) > 1
        state.current = None if state.multi else 0
        return state

    @property
    def review(self) -> bool:
        return self.review_name is not None

    @property
    def to_label(self) -> str:
        return f"v{self.to.removeprefix('v')}"

    @property
    def slot(self) -> ModuleSlot | None:
        return self.slots[self.current] if self.current is not None and self.slots else None

    # ------------------------------------------------------------ what happens

    def planned(
        self, index: int, plan: ReviewPlan, live: MigrationPlan | None, to: str | None, undoable: bool = False
    ) -> bool:
        """A module's plan (`undoable`: a backup of an earlier change to it exists); False (nothing changes) when it
        was made for a target since switched away from."""
        if to is not None and to != self.to:
            return False
        slot = self.slots[index]
        first_time = slot.plan is None
        slot.plan, slot.live, slot.busy, slot.name = plan, live, None, plan.module
        slot.undoable = undoable
        if first_time and index not in self.listed and not plan.already_current:
            self.listed.append(index)
        return True

    def review_loaded(self, plans: list[ReviewPlan], problem: str | None) -> None:
        self.problem = problem
        self.slots = [ModuleSlot(p.module, None, plan=p) for p in plans]
        self.multi = len(self.slots) > 1
        self.current = None if self.multi or not self.slots else 0
        self.listed = [i for i, p in enumerate(plans) if not p.already_current] if self.multi else []

    def select(self, index: int | None, file_index: int) -> None:
        self.current, self.file_index = index, file_index

    def file_count(self, index: int | None) -> int:
        plan = self.slots[index].plan if index is not None and self.slots else None
        return len(plan.files) if plan is not None else 0

    def step_module(self, step: int, last_file: bool = False) -> bool:
        order = [None, *self.listed] if self.multi else [self.current]
        position = order.index(self.current) + step if self.current in order else 0
        if not 0 <= position < len(order):
            return False
        target = order[position]
        self.select(target, self.file_count(target) if last_file else 0)
        return True

    def next_file(self) -> bool:
        """The next file (past the last one: the next module); False at the very end."""
        if self.file_index < self.file_count(self.current):
            self.select(self.current, self.file_index + 1)
            return True
        return self.step_module(1)

    def prev_file(self) -> bool:
        if self.file_index > 0:
            self.select(self.current, self.file_index - 1)
            return True
        return self.step_module(-1, last_file=True)

    def start_apply(self, indices: list[int]) -> list[tuple[int, MigrationPlan]]:
        """The modules that can still be applied among `indices`, now marked as being written."""
        jobs = [(i, live) for i in indices if self.slots[i].can_apply and (live := self.slots[i].live) is not None]
        for i, _ in jobs:
            self.slots[i].busy = "applying"
        return jobs

    def applied(self, index: int, result: ApplyResult | None, error: str | None, stale: bool = False) -> bool:
        """An apply's outcome; True when the module must be planned again: the apply found the files changed
        on disk since the plan was made (`stale`, nothing was written), so the plan shown is no longer what
        `a` would write, and a new one replaces it rather than a failure that `a` would repeat."""
        slot = self.slots[index]
        slot.busy = None
        if result is not None:
            slot.applied, slot.undone, slot.failure, slot.replanned = result, None, None, None
            return False
        if stale and slot.path is not None:
            return self.files_changed(index)
        slot.failure = error or "failed"
        return False

    def files_changed(self, index: int) -> bool:
        """The files under a module's plan changed on disk (an apply found it, or the module's watched files
        changed and the plan no longer matches them): True when the module is now being planned again. A
        module being written, already applied, under review or never planned is left as it is."""
        slot = self.slots[index]
        if self.review or slot.path is None or slot.busy or slot.applied is not None or slot.plan is None:
            return False
        slot.busy, slot.failure, slot.replanned = "planning", None, REPLANNED
        return True

    def replan_candidates(self, paths: list[Path] | None) -> list[tuple[int, MigrationPlan]]:
        """Among the modules at `paths` (None: every one), those with a plan `a` could apply, with that plan: the
        ones to check against their files (`apply.staleness` reads them: the screen does it off the UI thread)."""
        changed = None if paths is None else {p.resolve() for p in paths}
        return [
            (i, s.live)
            for i, s in enumerate(self.slots)
            if s.path is not None
            and (changed is None or s.path.resolve() in changed)
            and s.can_apply
            and s.live is not None
        ]

    def stale_slots(self, paths: list[Path] | None) -> list[int]:
        """Among the modules at `paths` (None: every one), those with a plan `a` could apply whose files on disk
        are no longer what it was made from (reads them: `apply.staleness`)."""
        return [i for i, plan in self.replan_candidates(paths) if staleness(plan) is not None]

    def found_stale(self, found: list[tuple[int, MigrationPlan]]) -> list[int]:
        """Plans found stale (`replan_candidates` checked against the files): those still shown and still
        applicable are now being planned again (`files_changed`); a plan replaced, applied or being written
        since the check is left as it is."""
        return [
            i for i, plan in found if self.slots[i].live is plan and self.slots[i].can_apply and self.files_changed(i)
        ]

    def replan_failed(self, index: int, error: str) -> None:
        """The plan could not be made again: nothing can be applied until it can (esc, then plan again)."""
        slot = self.slots[index]
        slot.busy, slot.live, slot.replanned = None, None, None
        slot.failure = f"the files changed on disk and the plan could not be made again: {error}"

    def start_undo(self, index: int) -> bool:
        slot = self.slots[index]
        if slot.path is None or slot.busy:
            return False
        slot.busy = "undoing"
        return True

    def undone(self, index: int, result: UndoResult | None, error: str | None) -> bool:
        """The undo's outcome; True when the module must be planned again (a migration, not a promotion)."""
        slot = self.slots[index]
        if result is None:
            slot.busy, slot.failure = None, error or "failed"
            return False
        slot.applied, slot.undone, slot.failure, slot.undoable = None, result, None, False
        replan = self.promotion is None and slot.path is not None
        slot.busy = "planning" if replan else None  # a promotion is not planned again: undone is where it ends
        return replan

    def writes_failed(self) -> None:
        """A worker failed unexpectedly: the modules it was writing are no longer busy."""
        for slot in self.slots:
            slot.busy = None if slot.busy in WRITING else slot.busy

    def retarget(self, to: str) -> None:
        """Plan every module again for another target version."""
        self.to = to
        self.slots = [ModuleSlot(s.path.name, s.path, busy="planning") for s in self.slots if s.path is not None]
        self.listed, self.current, self.file_index = [], None if self.multi else 0, 0

    # ------------------------------------------------------------ what is shown

    @property
    def writing(self) -> bool:
        return any(s.busy in WRITING for s in self.slots)

    def progress(self) -> tuple[int, int] | None:
        """(planned, modules) while several modules are still being planned; None otherwise."""
        done = sum(1 for s in self.slots if s.plan is not None)
        return (done, len(self.slots)) if self.multi and done < len(self.slots) else None

    def can(self, action: str) -> bool:
        """The keys bound: nothing is applied, undone or re-targeted in a review, a
        promotion has no target version to switch, and a plan without modules has nothing to page through."""
        if action in ("apply", "undo", "switch_target") and self.review:
            return False
        if action in ("next_file", "prev_file", "next_module", "prev_module", "toggle_layout") and not self.slots:
            return False
        return not (action == "switch_target" and self.promotion is not None)

    def offers(self, action: str) -> bool:
        """The keys the footer shows: those bound (`can`), apply only when something is ready to apply and undo
        only when the module shown has a change to undo. The keys stay bound: `a` or `u` pressed with nothing to
        do says why."""
        if action == "apply":
            return self.can(action) and isinstance(self.apply_request(), ApplyRequest)
        if action == "undo":
            return self.can(action) and self.slot is not None and self.slot.can_undo
        return self.can(action)

    @property
    def change_kind(self) -> str:
        """What an apply writes here, in words for messages: a promotion (from the insights) or a migration."""
        return "promotion" if self.promotion is not None else "migration"

    def mode(self) -> str:
        if self.promotion is not None:
            return self.promotion
        return f"Review {self.review_name} (read-only)" if self.review else f"Migrate to {self.to_label}"

    def heading(self) -> str:
        slot = self.slot
        if slot is None:
            return f"{self.mode()} · {plural(len(self.slots), 'module')}"
        plan = slot.plan
        versions = f" {plan.source_format} → {plan.target}" if plan is not None else ""
        position = f" · file {self.file_index}/{len(plan.files)}" if plan is not None and self.file_index else ""
        return f"{self.mode()} · {slot.name}{versions}{position}"

    def key_description(self, action: str, split: bool) -> str | None:
        """A footer key's description where it depends on the state: the layout key names the layout it
        switches to, and escape under review leaves cogtui (review is its only screen)."""
        if action == "toggle_layout":
            return "Unified" if split else "Side by side"
        if action == "close" and self.review:
            return "Quit"
        return None

    def status_line(self, split: bool) -> str:
        target = None if self.promotion is not None or self.review else self.to_label
        layout = f"{'side by side' if split else 'unified'} (s)" + (f" · to {target} (t)" if target else "")
        if self.review:
            return f"read-only: apply and undo are disabled · {layout} · esc quits"
        slot = self.slot
        if slot is None:
            planned = sum(1 for s in self.slots if s.plan is not None)
            return f"{planned}/{len(self.slots)} planned · {layout} · esc back"
        return f"{slot.name}: {slot.phase()} · {layout} · esc back"

    def apply_request(self) -> ApplyRequest | str:
        """The modules `a` applies (every ready one from the overview), or why it applies nothing."""
        if self.current is None:
            ready = [i for i in self.listed if self.slots[i].can_apply]
            if not ready:
                return "No module is ready to migrate."
            names = ", ".join(self.slots[i].name for i in ready[:8]) + (" …" if len(ready) > 8 else "")
            return ApplyRequest(
                f"Apply {len(ready)} migration{'s' * (len(ready) != 1)}?",
                f"Migrate {names} to {self.to_label}? Each module is backed up, written and validated on its own.",
                ready,
            )
        slot = self.slots[self.current]
        refusal = slot.apply_refusal()
        if refusal is not None or slot.plan is None:
            return refusal or "nothing to apply"
        plan = slot.plan
        return ApplyRequest(
            f"Apply the migration of {plan.module}?",
            f"{plan.module}: {plan.source_format} → {plan.target} ({plan.counts_text()}). The files it "
            "changes are backed up first; u undoes it.",
            [self.current],
        )
