"""The run screen (`r`): an input editor validated as you type, provider and model pickers, and runs in tabs.

This file holds the screen's composition, its form (filled in as the module is read, kept as a draft for the
module until cogtui quits, named on the title line), leaving it, and one handler per key and message, handing
each behaviour to the file that holds it:

- `ctrl+r` runs from anywhere on the screen, a new tab each time, to compare providers or models on one input;
  with a target in "compare with", one tab runs the input on both targets and shows the two envelopes side by
  side (launch.py reads the form and starts the run once the module is read again, off the UI thread). A burst
  of presses is one run, and a press while the module is being read starts its run once it is read
  (`RunScreenState.presses`, decision TUI-5).
- tabs.py holds the runs' tabs, where each run ends: cancelled, or recorded in the history.
- input.py checks the input against the module's input schema as it is typed.
- golden.py saves the tab's run as a golden test (`ctrl+g`); prompt.py shows the prompt as a run would send it,
  its tokens and cost, without calling a model (`p`, or `f4` from the input).

`escape` cancels the run in the tab shown (the provider request is closed and the run is recorded as interrupted),
or goes back when it runs nothing. Going back while runs in other tabs are still running asks first; confirming
cancels them all and waits until each is recorded. Quitting the app does the same for every run screen
(`quitting.stop_everything`).

Text from files and models (test names, validation messages, provider errors) reaches widgets as `Text`/`Content`
or in plain notifications, never as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Select, Static, TabPane, TextArea

from cogtui.core.files.terminal_text import visible
from cogtui.core.module.model import Module
from cogtui.core.run.providers import PROVIDERS
from cogtui.core.run.run_start import InputChoice, default_provider, input_choices, starting_input
from cogtui.core.run.run_state import Press, RunScreenState

from ...keys import SPECS, KeySpec, bindings, register
from ...messages import Navigate
from ...module_loads import ModuleLoaded, ModuleLoads
from ...mounting import while_open
from ...quitting import InFlight
from ...run_drafts import RunDraft
from ...shown import assemble, cell, styled
from ...stylesheets import stylesheet
from ...widgets.area_theme import ThemedTextArea, keep_following_app_theme, starting_area_theme
from ...widgets.key_footer import KeyFooter
from ...workbench import Workbench, workbench
from ...worker_failures import ReportsWorkerFailures
from ..history import RunHistory
from ..modals import ConfirmModal
from .golden import GoldenPlanned, GoldenSaved, GoldenSaveFlow
from .input import InputCheck, InputChecked, fill_input
from .launch import RunForm, form_input, launch, read_form
from .prompt import PromptScreen
from .tabs import RunTabs, running_in

register(
    KeySpec("run.run", "ctrl+r", "run", "Run", main=True, priority=True),
    KeySpec("run.cancel", "escape", "cancel_or_close", "Cancel / back", main=True, doc="cancel, or back"),
    KeySpec("run.toggle_input", "f2", "toggle_input", "Hide input", main=True, doc="hide / show the input"),
    KeySpec("run.copy", "ctrl+y", "copy_envelope", "Copy envelope", doc="copy the envelope"),
    KeySpec("run.history", "f3", "history", "History", main=True, doc="the module's history"),
    KeySpec(
        "run.save_golden",
        "ctrl+g",
        "save_golden",
        "Save as golden",
        doc="save the tab's input and envelope as a golden test, under a name it asks for ([what it checks first](workbench.md#saving-a-run-as-a-golden-test))",
    ),
    KeySpec(
        "run.prompt",
        "p,f4",
        "prompt",
        "Prompt as sent",
        doc="the prompt as a run would send it (system, user, schema, attachments by reference), its input tokens and cost; nothing is sent to a model",
    ),
)


class RunScreen(ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("run.tcss")
    BINDINGS = bindings(
        "run.run", "run.cancel", "run.toggle_input", "run.copy", "run.history", "run.save_golden", "run.prompt"
    )
    HELP = (
        "Edit the input (JSON), pick a provider, ctrl+r to run. Each run opens a tab; ctrl+g saves its input and "
        "envelope as a golden test, under a name you give. What you type here is kept until cogtui quits."
    )
    # Composed once, there for the screen's life.
    title_line = getters.query_one("#run-title", Static)
    note_line = getters.query_one("#run-note", Static)  # what the run key's presses did
    top = getters.query_one("#run-top", Horizontal)  # the input and the pickers, hidden with f2
    run_input = getters.query_one("#run-input", TextArea)  # the module's input, as JSON text
    input_status = getters.query_one("#run-input-status", Static)
    golden_select = getters.query_one("#run-golden", Select)  # the inputs on offer: goldens and examples
    provider_select = getters.query_one("#run-provider", Select)
    model_input = getters.query_one("#run-model", Input)
    args_input = getters.query_one("#run-args", Input)
    compare_input = getters.query_one("#run-compare", Input)
    tabs = getters.query_one("#runs", RunTabs)

    def __init__(self, module_path: Path, input_value: Any = None, autorun: bool = False) -> None:
        super().__init__()
        self.module_path = module_path
        self.module: Module | None = None
        self.choices: list[InputChoice] = []
        self.preset_input = input_value
        self.autorun = autorun
        self.provider_problem: str | None = None
        self.closing = False  # confirmed: close once every cancelled run is recorded
        self.stopping = False  # closing or quitting: no new run starts
        self.quitting = False  # the app quits once every cancelled run is recorded
        self._on_settled: list[Callable[[], object]] = []
        self.loads = ModuleLoads(self, module_path)  # the module read off the UI thread: as it opens, on ctrl+r
        self.input_check = InputCheck(self, lambda: (self.run_input.text, self.module))
        self.golden_saving = GoldenSaveFlow(self, module_path)
        self.state = RunScreenState(visible(module_path.name, single_line=True))  # the title line and the presses

    @property
    def bench(self) -> Workbench:
        return workbench(self.app)

    def compose(self) -> ComposeResult:
        provider, self.provider_problem = default_provider(self.bench.config)
        with Horizontal(id="run-head"):
            yield Static("", id="run-title")
            yield Static("", id="run-note")
        with Horizontal(id="run-top"):
            with Vertical(id="run-input-box"):
                # tab_behavior="focus": escape must reach the screen (cancel) rather than just leave the editor.
                theme = starting_area_theme(self.app)
                yield ThemedTextArea.code_editor(
                    "", language="json", id="run-input", soft_wrap=True, tab_behavior="focus", theme=theme
                )
                yield Static("", id="run-input-status")
            with Vertical(id="run-controls"):
                yield Static("[$text-muted]input[/]", classes="run-label")
                yield Select([], prompt="input", id="run-golden", compact=True)
                yield Static("[$text-muted]provider / model[/]", classes="run-label")
                yield Select(
                    [(p, p) for p in PROVIDERS], value=provider, allow_blank=False, id="run-provider", compact=True
                )
                yield Input(placeholder="model (provider default)", id="run-model", compact=True)
                yield Static("[$text-muted]$ARGUMENTS[/]", classes="run-label")
                yield Input(placeholder="--args text", id="run-args", compact=True)
                yield Static("[$text-muted]compare with[/]", classes="run-label")
                yield Input(placeholder="provider/model: runs both", id="run-compare", compact=True)
        with RunTabs(self._settle, id="runs"), TabPane("no runs yet", id="run-empty"):
            yield Static("[$text-muted]ctrl+r runs the module on this input; each run opens a tab.[/]")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        if self.provider_problem:
            self.notify(self.provider_problem, title="Provider", severity="warning", timeout=8, markup=False)
        self.bench.modules_changed.subscribe(self, self._modules_changed)
        keep_following_app_theme(self, lambda: [self.run_input])
        self.run_input.focus()  # keys typed while the module loads land here, and stay
        self._target_changed()
        self.loads.start()  # the form is filled in once it is loaded (_opened)

    @on(ModuleLoaded)
    @while_open
    async def _module_loaded(self, message: ModuleLoaded) -> None:
        loaded = self.loads.arrived(message)
        if message.purpose is None:
            self._opened(loaded)
        elif isinstance(message.purpose, RunForm) and not self.stopping:  # closing or quitting since: no new run
            if isinstance(loaded, str):
                self.notify(loaded, severity="error", markup=False)
            else:
                self.module = loaded
                await launch(self.tabs, loaded, message.purpose, self.bench, self)
        if not self.stopping and self.module is not None and self.state.presses.ready():
            self._start_run()  # a press kept while the module was read: its run starts now
        self.show_title()

    # ------------------------------------------------------------ the form

    def _opened(self, loaded: Module | str) -> None:
        """The module as the screen opens: its inputs on offer, and the input kept from last time (or asked for)."""
        if isinstance(loaded, str):
            self.notify(loaded, severity="error", markup=False)
            if self.is_current:  # else a screen opened on top meanwhile: this one closes with escape
                self.dismiss(None)
            return
        self.module = loaded
        self.sub_title = self.state.module = visible(self.module.name, single_line=True)
        self.choices = input_choices(self.module)
        golden = self.golden_select
        golden.set_options([(cell(choice.label), i) for i, choice in enumerate(self.choices)])
        # What was left here last time (until cogtui quits), unless this screen was opened with an input of its own.
        draft = self.bench.run_drafts.get(self.module_path) if self.preset_input is None else None
        if draft is not None:
            self._restore(draft)
        else:
            if self.choices and self.preset_input is None:
                with self.prevent(Select.Changed):  # shown as chosen; its input is put in below, once
                    golden.value = 0
            start = json.dumps(starting_input(self.choices, self.preset_input), indent=2, ensure_ascii=False)
            fill_input(self.run_input, start)
        if self.autorun:
            self.call_after_refresh(self.action_run)

    def take_input(self, input_value: Any, autorun: bool) -> None:
        """Opened again (navigation.run_module: one run screen per module, decision TUI-2): an input asked for
        replaces the one shown, and `autorun` runs it in a new tab; the tabs and runs already here stay as they are."""
        if self.module is None:  # still loading as it opens: the form is filled in with these once it is loaded
            self.preset_input = input_value if input_value is not None else self.preset_input
            self.autorun = self.autorun or autorun
            return
        if input_value is not None:
            with self.prevent(Select.Changed):
                self.golden_select.clear()
            self.run_input.text = json.dumps(input_value, indent=2, ensure_ascii=False)
        if autorun:
            self.call_after_refresh(self.action_run)

    def _modules_changed(self, paths: list[Path] | None) -> None:
        """The module changed on disk (the watcher validated it again): the input is checked against it now,
        and the inputs on offer are its goldens and examples now (a golden saved with ctrl+g among them)."""
        if self.module is None or (paths is not None and self.module_path not in paths):
            return
        report = self.bench.store.report(self.module_path)
        if report is not None and report.module is not None:
            self.module = report.module
            self._offer_inputs(input_choices(self.module))
            self.input_check.now()

    def _offer_inputs(self, choices: list[InputChoice]) -> None:
        """New inputs on offer; the one chosen stays chosen, and the input being edited is left as it is."""
        if [c.label for c in choices] == [c.label for c in self.choices]:
            return
        golden = self.golden_select
        chosen = golden.value
        label = self.choices[chosen].label if isinstance(chosen, int) and 0 <= chosen < len(self.choices) else None
        self.choices = choices
        with self.prevent(Select.Changed):  # choosing an input replaces the text: not what a refresh may do
            golden.set_options([(cell(c.label), i) for i, c in enumerate(choices)])
            golden.value = next((i for i, c in enumerate(choices) if c.label == label), Select.BLANK)

    @on(Select.Changed, "#run-golden")
    def _golden(self, event: Select.Changed) -> None:
        if isinstance(event.value, int) and 0 <= event.value < len(self.choices):
            self.run_input.text = json.dumps(self.choices[event.value].value, indent=2, ensure_ascii=False)

    def _restore(self, draft: RunDraft) -> None:
        fill_input(self.run_input, draft.input_text)
        if draft.provider in PROVIDERS:
            self.provider_select.value = draft.provider
        self.model_input.value = draft.model
        self.args_input.value = draft.args

    def form_text(self) -> tuple[str, str, str, str]:
        """The input, provider, model and $ARGUMENTS as typed."""
        return self.run_input.text, str(self.provider_select.value), self.model_input.value, self.args_input.value

    @on(Select.Changed, "#run-provider")
    @on(Input.Changed, "#run-model, #run-args")
    def keep_draft(self) -> None:
        """Every change is kept for this module at once: escape, a quit prompt or a crash of a run loses nothing."""
        if self.module is None:
            return  # not filled in yet: an empty draft must not replace the last one
        self.bench.run_drafts.keep(self.module_path, RunDraft(*self.form_text()))

    @on(TextArea.Changed, "#run-input")
    def _input_changed(self) -> None:
        self.keep_draft()
        self.input_check.soon()

    @on(InputChecked)
    def _show_input_status(self, message: InputChecked) -> None:
        self.input_status.update(message.status)

    @on(Select.Changed, "#run-provider")
    @on(Input.Changed, "#run-model, #run-compare")
    def _target_changed(self) -> None:
        """The title names the provider and the model a run would use now."""
        from cogtui.core.eval.model import Target
        from cogtui.core.eval.targets import option

        provider = str(self.provider_select.value)
        model = self.model_input.value.strip() or None
        try:
            runs_as = option(Target(provider, model), self.bench.config).target
        except ValueError:
            runs_as = Target(provider, model)
        self.state.runs_on(runs_as.provider, runs_as.model)
        self.state.compare_with(self.compare_input.value)
        self.show_title()

    def show_title(self) -> None:
        """The title line, from the state: module, provider and model, and what the run key's presses did."""
        state = self.state
        title = state.title()
        self.title_line.update(assemble((state.module, "bold"), title[len(state.module) :]))
        key = (self.bench.config.keymap.get("run.run") or SPECS["run.run"].keys).split(",")[0]
        self.note_line.update(styled(state.presses.note(key), "$warning"))

    # ------------------------------------------------------------ runs

    def action_run(self) -> None:
        """A press of the run key: a run now, once the module is read, or none more (a burst's later press)."""
        if self.stopping:
            return
        ready = self.module is not None and not self.loads.loading
        if self.state.presses.pressed(ready, self.bench.key_time()) is Press.START:
            self._start_run()
        self.show_title()

    def _start_run(self) -> None:
        """The form read now, and the module read again for it: `_module_loaded` launches the run. Refused while a
        read is under way (two reads would start two runs): the screen's presses keep such a press."""
        if self.module is None or self.stopping or self.loads.loading:
            return
        if (form := read_form(self, *self.form_text(), self.compare_input.value)) is not None:
            self.loads.start(form)

    def action_prompt(self) -> None:
        """The prompt a run of this form would send, its tokens and cost (prompt.py); no model is called."""
        text, provider, model, args = self.form_text()
        parsed, input_value = form_input(self, text)
        if not parsed:
            return
        self.app.push_screen(
            PromptScreen(self.module_path, input_value, provider, model.strip() or None, args or None, self.bench)
        )

    def action_save_golden(self) -> None:
        self.golden_saving.start(self.tabs.active_run())

    @on(GoldenPlanned)
    def _golden_planned(self, message: GoldenPlanned) -> None:
        self.golden_saving.planned(message)

    @on(GoldenSaved)
    def _golden_saved(self, message: GoldenSaved) -> None:
        self.golden_saving.saved(message)

    def action_copy_envelope(self) -> None:
        pane = self.tabs.active_run()
        if pane is None or pane.result is None:
            self.notify("No finished run in this tab.", severity="warning")
            return
        self.app.copy_to_clipboard(json.dumps(pane.result.envelope, indent=2, ensure_ascii=False))
        self.notify("Envelope copied (OSC 52)")

    def action_toggle_input(self) -> None:
        self.top.toggle_class("-hidden")

    def action_history(self) -> None:
        self.app.post_message(Navigate(RunHistory(self.module_path)))

    # ------------------------------------------------------------ cancelling and leaving

    def action_cancel_or_close(self) -> None:
        if self.stopping:
            self.notify(f"{'Quitting' if self.quitting else 'Closing'} once the cancelled runs are recorded…")
            return
        if self.tabs.cancel_active():
            self.notify("Cancelling the run…")
            return
        running = running_in(self)
        if not running:
            self.dismiss(None)
            return
        what = "1 run is" if len(running) == 1 else f"{len(running)} runs are"
        self.app.push_screen(
            ConfirmModal(
                "Runs still running",
                f"{what} still running in other tabs. Closing cancels them; each is recorded "
                "in the history as interrupted.",
                confirm="Cancel runs and close",
                danger=True,
            ),
            self._close_confirmed,
        )

    def _close_confirmed(self, confirmed: bool | None) -> None:
        if not confirmed:
            return
        self.closing = True
        self.stop_runs()

    def in_flight(self) -> InFlight | None:
        """What quitting would cut short here (quitting.py): the runs still running."""
        if not (running := len(running_in(self))):
            return None
        return InFlight(running, "run", "quitting cancels and records {it} in the history as interrupted")

    def stop_for_quit(self, settled: Callable[[], object]) -> None:
        self.stop_runs(settled)

    def stop_runs(self, then: Callable[[], object] | None = None) -> None:
        """Cancel every running run and start no new one; call `then` once none runs and each run is recorded
        in the history (at once when nothing runs)."""
        self.stopping = True
        self.state.presses.forget()
        running = running_in(self)
        for pane in running:
            pane.cancel()
        if running:
            self.notify(f"Cancelling {len(running)} run{'s' * (len(running) != 1)}…")
        if then is not None:
            self._on_settled.append(then)
        self._settle()

    def _settle(self) -> None:
        """Once no run is running and every history record is written: tell who waits, and close if confirmed.
        The tabs call it whenever a run or a record ends."""
        if any(tabs.busy() for tabs in self.query(RunTabs)):  # a query: none before the screen is composed
            return
        waiting, self._on_settled = self._on_settled, []
        for then in waiting:
            then()
        if self.closing and self.is_current:
            self.dismiss(None)

    def on_screen_resume(self) -> None:
        self._settle()
