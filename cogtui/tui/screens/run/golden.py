"""`ctrl+g` on the run screen: save the active tab's run (its input and its envelope) as a golden test pair, on purpose.

First a thread worker loads the module afresh and plans the save (`golden_save.plan_save`, GOLD-8), posting one
`GoldenPlanned`: a run that is no golden (stopped, a runtime failure) or a duplicate (a golden with this input and
this answer) is refused with the reason; otherwise a dialog asks for the case's name (a free one proposed) and
says what to weigh first (a replay answer is a copy of a golden or an example, not a model's; a golden with this
input that expects another answer). Saving writes the pair (`core.authoring.golden_save`, GOLD-6) in a second worker
that loads the module again, so the manifest it edits is the one on disk now; it posts one `GoldenSaved`, whose
handler notifies and revalidates the module so the browser and the goldens screen see the new test.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from cogtui.core.authoring.golden_save import (
    GoldenSaveError,
    SavedGolden,
    SavePlan,
    name_problem,
    plan_save,
    save_golden,
)
from cogtui.core.module.loader import NotAModule, load_module

from ...keys import bindings
from ...mounting import while_open
from ...shown import block
from ...watching import validate_entries
from ...workbench import Notifies

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App
    from textual.screen import Screen

    from ...widgets.run_pane import RunPane


class GoldenSaveView(Notifies, Protocol):
    """What saving a golden uses of the run screen (RunScreen implements it)."""

    module_path: Path

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the screen itself: where the worker runs and posts

    def active_pane(self) -> RunPane | None: ...


class GoldenSaved(Message):
    """The pair was written (`saved`), or why not (`error`)."""

    def __init__(self, saved: SavedGolden | None, error: str | None) -> None:
        super().__init__()
        self.saved, self.error = saved, error


class Run(NamedTuple):
    """The run to save, as it was when ctrl+g was pressed."""

    given: Any
    envelope: dict[str, Any] | None
    interrupted: bool


class GoldenPlanned(Message):
    """What saving the run would do (`plan`), or why it cannot even be planned (`error`), for the run kept."""

    def __init__(self, plan: SavePlan | None, error: str | None, run: Run) -> None:
        super().__init__()
        self.plan, self.error, self.run = plan, error, run


class GoldenNameModal(ModalScreen[str | None]):
    """The case's name (a free one proposed, checked as it is typed) and what to weigh before saving."""

    BINDINGS = bindings("modal.cancel")

    def __init__(self, plan: SavePlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        notes = self.plan.notes()
        with Vertical(classes="dialog", id="golden-name"):
            yield Label("Save as golden test", classes="dialog-title")
            yield Static(
                "The run's input and envelope become tests/NAME.input.json and tests/NAME.expected.json.",
                classes="dialog-body",
            )
            yield Input(self.plan.name, placeholder="the test case's name", id="golden-name-input")
            yield Static("", id="golden-name-problem", classes="dialog-problem")
            yield Static(
                block("\n".join(f"⚠ {note}" for note in notes)),
                id="golden-name-notes",
                classes="dialog-warning" + ("" if notes else " -hidden"),
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    @while_open
    def on_mount(self) -> None:
        self.query_one("#golden-name-input", Input).focus()

    def problem(self) -> str | None:
        return name_problem(self.query_one("#golden-name-input", Input).value.strip(), self.plan.taken)

    @on(Input.Changed, "#golden-name-input")
    def _check(self) -> None:
        problem = self.problem()
        self.query_one("#golden-name-problem", Static).update(block(problem or ""))
        self.query_one("#save", Button).disabled = problem is not None

    @on(Input.Submitted, "#golden-name-input")
    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        if self.problem() is None:
            self.dismiss(self.query_one("#golden-name-input", Input).value.strip())

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class GoldenSaveFlow:
    def __init__(self, screen: GoldenSaveView) -> None:
        self.screen = screen

    def start(self) -> None:
        """ctrl+g: plan the save of the active tab's run, off the UI thread; `planned` goes on."""
        screen = self.screen
        pane = screen.active_pane()
        if pane is None or pane.result is None:
            screen.notify("No finished run in this tab: ctrl+r runs the module first.", severity="warning")
            return
        path, result = screen.module_path, pane.result
        run = Run(pane.request.input, result.envelope, result.interrupted)
        replay = pane.request.provider_name == "replay"

        def work() -> None:
            node.post_message(plan(path, run, replay))

        node = screen.screen
        node.run_worker(work, thread=True, group="save-golden", exit_on_error=False, name="plan a golden")

    def planned(self, message: GoldenPlanned) -> None:
        """Refused with the reason, or the dialog asks for the name; saving starts once it is given."""
        screen, plan = self.screen, message.plan
        if plan is None or plan.refused is not None:
            why = message.error if plan is None else plan.refused
            screen.notify(why or "failed", title="Not saved as golden", severity="warning", timeout=10, markup=False)
            return
        path, run = screen.module_path, message.run

        def named(name: str | None) -> None:
            if name is None:
                return

            def work() -> None:
                node.post_message(save(path, run.given, run.envelope, run.interrupted, name))

            node.run_worker(work, thread=True, group="save-golden", exit_on_error=False, name="save as golden")

        node = screen.screen
        screen.app.push_screen(GoldenNameModal(plan), named)

    def saved(self, message: GoldenSaved) -> None:
        screen = self.screen
        if message.saved is None:
            screen.notify(message.error or "failed", title="Not saved as golden", severity="error", markup=False)
            return
        saved = message.saved
        where = "listed in module.yaml's tests" if saved.listed else "found by the tests/ folder's pairing"
        screen.notify(
            f"tests/{saved.input_path.name} → tests/{saved.expected_path.name} ({where}).",
            title=f"Saved golden test {saved.name}",
            timeout=8,
            markup=False,
        )
        validate_entries(screen.app, [screen.module_path], group="revalidate")


# One save at a time: each loads the module, picks the first free name and rewrites module.yaml, so two at
# once (ctrl+g pressed twice) would pick the same name, or the second would write module.yaml without the
# first's entry. Held from the load to the commit, the next save sees what the one before wrote.
_saving = threading.Lock()


def plan(path: Path, run: Run, replay: bool) -> GoldenPlanned:
    try:
        module = load_module(path)
    except (NotAModule, OSError) as exc:
        return GoldenPlanned(None, f"cannot load {path}: {exc}", run)
    return GoldenPlanned(plan_save(module, run.given, run.envelope, run.interrupted, replay=replay), None, run)


def save(
    path: Path, given: Any, envelope: dict[str, Any] | None, interrupted: bool = False, name: str | None = None
) -> GoldenSaved:
    with _saving:
        try:
            module = load_module(path)
        except (NotAModule, OSError) as exc:
            return GoldenSaved(None, f"cannot load {path}: {exc}")
        try:
            return GoldenSaved(save_golden(module, given, envelope, name=name, interrupted=interrupted), None)
        except GoldenSaveError as exc:
            return GoldenSaved(None, str(exc))
