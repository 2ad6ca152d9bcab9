"""`a` and `u` on the goldens and eval screens: accepting a failing case's answer as its golden, and undoing it.

One object per screen (the goldens screen's `GoldensState.accepting`, the eval screen's `EvalState.accepting`):
`a` proposes a plan (golden_accept.plan_accept) and the screen shows what `said()` says: the diff to confirm, or
why the answer is refused. Confirming writes the file (the screen's worker calls golden_accept.accept) and
`written` keeps it, newest last, for `u` to undo; a case accepted here is marked so (`is_accepted`) until the
screen runs the cases again. A plan made for an earlier run (the cases ran again meanwhile) is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the eval state holds one: `cogn eval` imports no file-writing code for it
    from cogtui.core.authoring.golden_accept import Accepted, AcceptPlan


@dataclass
class AcceptState:
    proposed: AcceptPlan | None = None  # shown as a diff, waiting for the author's yes
    accepted: list[Accepted] = field(default_factory=list)  # written here, newest last: `u` undoes the last
    message: str = ""  # what the screen says about the last step
    failed: bool = False  # the last step was refused or failed

    def propose(self, plan: AcceptPlan) -> bool:
        """`a` on a case: True when the author is asked to confirm the diff, False when it is refused (said)."""
        if plan.refusal is not None:
            self.proposed, self.message, self.failed = None, f"Not accepted: {plan.refusal}.", True
            return False
        self.proposed, self.message, self.failed = plan, "", False
        return True

    def confirm(self) -> AcceptPlan | None:
        """The author said yes: the plan to write (once)."""
        plan, self.proposed = self.proposed, None
        return plan

    def cancel(self) -> None:
        self.proposed = None

    def written(self, done: Accepted) -> None:
        self.accepted.append(done)
        self.message = f"{done.case}: {done.path.name} now holds this answer (u undoes; the old one: {done.backup})"
        self.failed = False

    def refused(self, why: str) -> None:
        """Writing or undoing failed: nothing changed, and the screen says why."""
        self.message, self.failed = why, True

    def can_undo(self) -> bool:
        return bool(self.accepted)

    def to_undo(self) -> Accepted | None:
        return self.accepted[-1] if self.accepted else None

    def undone(self, done: Accepted) -> None:
        if done in self.accepted:
            self.accepted.remove(done)
        self.message, self.failed = f"{done.case}: {done.path.name} is back as it was", False

    def is_accepted(self, module: str, case: str) -> bool:
        return any(a.module == module and a.case == case for a in self.accepted)

    def rerun(self) -> None:
        """The cases run again: an open proposal belongs to the old results. Undo stays possible."""
        self.proposed = None


__all__ = ["AcceptState"]
