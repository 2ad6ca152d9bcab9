"""`ctrl+g` on the run screen: save the active tab's run (its input and its envelope) as a golden test pair, on purpose.

First a thread worker loads the module afresh and plans the save (`golden_save.plan_save`, GOLD-8), posting one
`GoldenPlanned`: a run that is no golden (stopped, a runtime failure) or a duplicate (a golden with this input and
this answer) is refused with the reason; otherwise a dialog asks for the case's name (a free one proposed) and
says what to weigh first (a replay answer is a copy of a golden or an example, not a model's; a golden with this
input that expects another answer). Saving writes the pair (`core.authoring.golden_save`, GOLD-6) in a second worker
that loads the module again, so the manifest it edits is the one on disk now; it posts one `GoldenSaved`, whose
handler notifies and revalidates the module so the browser and the goldens screen see the new test. The dialog,
the two workers and their messages are one behaviour, from the key to the notice, hence one file.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from textual import getters, on
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

if TYPE_CHECKING:
    from pathlib import Path

    from textual.screen import Screen

    from ...widgets.run_pane import RunPane


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
    name_input = getters.query_one("#golden-name-input", Input)
    problem_line = getters.query_one("#golden-name-problem", Static)
    save_button = getters.query_one("#save", Button)

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
        self.name_input.focus()

    def problem(self) -> str | None:
        return name_problem(self.name_input.value.strip(), self.plan.taken)

    @on(Input.Changed, "#golden-name-input")
    def _check(self) -> None:
        problem = self.problem()
        self.problem_line.update(block(problem or ""))
        self.save_button.disabled = problem is not None

    @on(Input.Submitted, "#golden-name-input")
    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        if self.problem() is None:
            self.dismiss(self.name_input.value.strip())

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class GoldenSaveFlow:
    """The saves of one run screen's runs: the screen hands `start` the run in its tab shown, and its handlers of
    `GoldenPlanned` and `GoldenSaved` (posted to it by the workers) hand them to `planned` and `saved`."""

    def __init__(self, screen: Screen[Any], module_path: Path) -> None:
        self.screen, self.module_path = screen, module_path

    def start(self, pane: RunPane | None) -> None:
        """ctrl+g: plan the save of `pane`'s run, off the UI thread; `planned` goes on."""
        screen = self.screen
        if pane is None or pane.result is None:
            screen.notify("No finished run in this tab: ctrl+r runs the module first.", severity="warning")
            return
        path, result = self.module_path, pane.result
        run = Run(pane.request.input, result.envelope, result.interrupted)
        replay = pane.request.provider_name == "replay"

        def work() -> None:
            screen.post_message(plan(path, run, replay))

        screen.run_worker(work, thread=True, group="save-golden", exit_on_error=False, name="plan a golden")

    def planned(self, message: GoldenPlanned) -> None:
        """Refused with the reason, or the dialog asks for the name; saving starts once it is given."""
        screen, plan = self.screen, message.plan
        if plan is None or plan.refused is not None:
            why = message.error if plan is None else plan.refused
            screen.notify(why or "failed", title="Not saved as golden", severity="warning", timeout=10, markup=False)
            return
        path, run = self.module_path, message.run

        def named(name: str | None) -> None:
            if name is None:
                return

            def work() -> None:
                screen.post_message(save(path, run.given, run.envelope, run.interrupted, name))

            screen.run_worker(work, thread=True, group="save-golden", exit_on_error=False, name="save as golden")

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
        validate_entries(screen.app, [self.module_path], group="revalidate")


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
