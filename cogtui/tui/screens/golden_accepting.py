"""`a` and `u` on the goldens and eval screens: accept a failing case's answer as its golden, on purpose, and undo it.

`a` plans off the UI thread (the module read afresh, `golden_accept.plan_accept`, D255) and posts one
`AcceptPlanned`; its handler hands the plan to the screen's `AcceptState`: a refusal is said (an answer out of
contract, a replay answer, a `$validate` or `$judge` golden), otherwise the screen shows the diff of the expected
file against the answer and a dialog asks. Yes writes the file in a second worker (atomically, the old one kept
first) that posts one `AcceptDone`; `u` puts the last accepted file back the same way, while it is still what
was written. Each change revalidates the module, so the browser and the editor see the new golden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message

from cogtui.core.authoring.accept_state import AcceptState
from cogtui.core.authoring.golden_accept import Accepted, AcceptError, AcceptPlan, accept, plan_accept, undo
from cogtui.core.module.loader import NotAModule, load_module

from ..watching import validate_entries
from ..workbench import Notifies
from .modals import ConfirmModal

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App
    from textual.screen import Screen


class AcceptView(Notifies, Protocol):
    """What accepting uses of the goldens and eval screens."""

    module_path: Path

    @property
    def accepting(self) -> AcceptState: ...

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the screen itself: where the workers run and post

    def show_accept(self, plan: AcceptPlan) -> None: ...  # the diff, where the case's details are

    def accept_changed(self) -> None: ...  # the table's marks and the footer's keys, from the state


Candidate = tuple[str, dict[str, Any] | None, str, bool]  # case, envelope, provider, passed


class AcceptPlanned(Message):
    def __init__(self, plan: AcceptPlan) -> None:
        super().__init__()
        self.plan = plan


class AcceptDone(Message):
    """A file written (`done`, `undone` False) or put back (`undone` True), or why not (`error`)."""

    def __init__(self, done: Accepted | None, error: str | None, undone: bool = False) -> None:
        super().__init__()
        self.done, self.error, self.undone = done, error, undone


class AcceptFlow:
    def __init__(self, view: AcceptView) -> None:
        self.view = view

    def propose(self, case: str, envelope: dict[str, Any] | None, provider: str, passed: bool) -> None:
        """`a` on a case: plan what accepting its answer would write, off the UI thread."""
        path = self.view.module_path

        def work() -> None:
            node.post_message(AcceptPlanned(planned(path, case, envelope, provider, passed)))

        node = self.view.screen
        node.run_worker(work, thread=True, group="accept", exit_on_error=False, name="plan an accept")

    def planned(self, message: AcceptPlanned) -> None:
        view = self.view
        if not view.accepting.propose(message.plan):
            view.notify(view.accepting.message, title="Not accepted", severity="warning", timeout=10, markup=False)
            view.accept_changed()
            return
        view.show_accept(message.plan)
        name = message.plan.path.name if message.plan.path else "the expected file"
        view.app.push_screen(
            ConfirmModal(
                f"Accept the answer of {message.plan.case}?",
                f"{name} becomes the answer (the diff is on the right). The old file is kept, and u puts it back.",
                confirm="Accept",
            ),
            self._confirmed,
        )

    def _confirmed(self, yes: bool | None) -> None:
        view = self.view
        plan = view.accepting.confirm() if yes else None
        if plan is None:
            view.accepting.cancel()
            view.accept_changed()
            return

        def work() -> None:
            try:
                node.post_message(AcceptDone(accept(plan), None))
            except AcceptError as exc:
                node.post_message(AcceptDone(None, str(exc)))

        node = view.screen
        node.run_worker(work, thread=True, group="accept", exit_on_error=False, name="accept an answer")

    def undo(self) -> None:
        """`u`: the last accepted file put back."""
        view = self.view
        done = view.accepting.to_undo()
        if done is None:
            view.notify("Nothing accepted here to undo.", severity="warning")
            return

        def work() -> None:
            try:
                undo(done)
                node.post_message(AcceptDone(done, None, undone=True))
            except AcceptError as exc:
                node.post_message(AcceptDone(None, str(exc), undone=True))

        node = view.screen
        node.run_worker(work, thread=True, group="accept", exit_on_error=False, name="undo an accept")

    def finished(self, message: AcceptDone) -> None:
        view = self.view
        if message.done is None:
            view.accepting.refused(message.error or "failed")
            view.notify(view.accepting.message, title="Not changed", severity="error", markup=False)
        elif message.undone:
            view.accepting.undone(message.done)
            view.notify(view.accepting.message, title="Accept undone", markup=False)
        else:
            view.accepting.written(message.done)
            view.notify(view.accepting.message, title="Golden updated", timeout=8, markup=False)
        view.accept_changed()
        validate_entries(view.app, [view.module_path], group="revalidate")


def planned(path: Path, case: str, envelope: dict[str, Any] | None, provider: str, passed: bool) -> AcceptPlan:
    try:
        module = load_module(path)
    except (NotAModule, OSError) as exc:
        return AcceptPlan(path.name, case, None, f"cannot load {path}: {exc}")
    return plan_accept(module, case, envelope, provider, passed)


class AcceptsAnswers:
    """A screen's `a` and `u` keys and the handlers of the flow's messages (the goldens and eval screens mix it
    in); the screen says which case `a` is about (`accept_candidate`)."""

    accept_flow: AcceptFlow

    def accept_candidate(self) -> Candidate | str:
        """The case, its answer, the provider that gave it and whether it passed; or why there is none now."""
        raise NotImplementedError

    def action_accept(self) -> None:
        candidate = self.accept_candidate()
        if isinstance(candidate, str):
            self.accept_flow.view.notify(candidate)
            return
        self.accept_flow.propose(*candidate)

    def action_undo(self) -> None:
        self.accept_flow.undo()

    def on_accept_planned(self, message: AcceptPlanned) -> None:
        self.accept_flow.planned(message)

    def on_accept_done(self, message: AcceptDone) -> None:
        self.accept_flow.finished(message)
