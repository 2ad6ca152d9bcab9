"""Golden tests of a module: run them all, a progress bar, a table of pass and fail, a failing case's diff.

The provider is the app's configured one (replay when it has no API key, or when
the configured name is not a provider: a notification says so); `$judge` goldens
are scored by the judge of `judge:` in config.yaml (run/judge.py). The screen keeps
one `GoldensState` (core.run.golden_state) and draws the title, progress bar,
table and summary from it; each run's results carry its number, so "run again"
while cases are coming in never mixes two runs in the table. `a` on a failing
case accepts its answer as the golden (the diff first, then a dialog), `u` undoes
it (golden_accepting.py, with an `AcceptState`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import getters, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, ProgressBar, Static

from cogtui.core.authoring.accept_state import AcceptState
from cogtui.core.authoring.golden_accept import AcceptPlan
from cogtui.core.eval.model import Target
from cogtui.core.files.terminal_text import terminal_json
from cogtui.core.module.model import Module
from cogtui.core.run.golden_runner import CaseResult, run_case
from cogtui.core.run.golden_state import GoldensPhase, GoldensState, judge_lines, result_label
from cogtui.core.run.judge import MISSING_CONFIG, JudgeSetup, judge_provider
from cogtui.core.run.manifest_policy import run_refusal
from cogtui.core.run.providers import make_provider
from cogtui.core.run.run_start import default_provider
from cogtui.core.run.runner import RunOptions

from ...keys import KeySpec, bindings, register
from ...module_loads import ModuleLoaded, ModuleLoads
from ...mounting import while_open
from ...quitting import InFlight
from ...richstyle import themed
from ...shown import assemble, cell, markup, styled
from ...stylesheets import stylesheet
from ...widgets.key_footer import KeyFooter
from ...widgets.text_views import CodeView
from ...workbench import Workbench, workbench
from ...worker_failures import ReportsWorkerFailures
from ..golden_accepting import AcceptFlow, AcceptsAnswers, Candidate

register(
    KeySpec("goldens.rerun", "ctrl+r", "rerun", "Run again", main=True, priority=True, doc="run again"),
    KeySpec("goldens.close", "escape", "close", "Back", main=True),
    KeySpec(
        "goldens.accept",
        "a",
        "accept",
        "Accept answer",
        main=True,
        doc="accept the failing case's answer as its golden (the diff, then a dialog; a backup is kept)",
    ),
    KeySpec("goldens.undo", "u", "undo", "Undo accept", main=True, doc="undo the last accept"),
)


class GoldensScreen(AcceptsAnswers, ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("history.tcss")
    BINDINGS = bindings("goldens.rerun", "goldens.close", "goldens.accept", "goldens.undo")
    HELP = (
        "Every golden test of the module, compared at the contract level, $judge rubrics scored by the judge of "
        "config.yaml (docs/golden-tests.md); a accepts a failing case's answer as its golden, u undoes it."
    )

    cases_table = getters.query_one("#goldens-table", DataTable)
    title_line = getters.query_one("#goldens-title", Static)
    progress_bar = getters.query_one("#goldens-progress", ProgressBar)
    envelope_view = getters.query_one("#goldens-view", CodeView)  # a case's envelope, diff or the summary

    class CaseDone(Message):
        def __init__(self, result: CaseResult, generation: int) -> None:
            super().__init__()
            self.result = result
            self.generation = generation

    class ProviderFailed(Message):
        def __init__(self, problem: str, generation: int) -> None:
            super().__init__()
            self.problem = problem
            self.generation = generation

    def __init__(self, module_path: Path) -> None:
        super().__init__()
        self.module_path = module_path
        self.module: Module | None = None
        self.state = GoldensState()  # what the title, progress, table and summary show
        self._provider_warned = False
        self.quitting = False  # quitting.py: a confirmed quit cancels the run
        self.loads = ModuleLoads(self, module_path)  # read off the UI thread as it opens and on every ctrl+r
        self.accepting = AcceptState()  # `a` and `u`
        self.accept_flow = AcceptFlow(self)

    @property
    def results(self) -> dict[str, CaseResult]:
        """This run's results by case name (tests read them)."""
        return {r.name: r for r in self.state.results}

    @property
    def bench(self) -> Workbench:
        return workbench(self.app)

    def compose(self) -> ComposeResult:
        with Horizontal(id="goldens-main"):
            with Vertical(id="goldens-left"):
                yield Static("", id="goldens-title")
                yield ProgressBar(total=1, show_eta=False, id="goldens-progress")
                yield DataTable(id="goldens-table", cursor_type="row")
            yield CodeView(id="goldens-view")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        self.cases_table.add_columns("case", "result", "why")
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.action_rerun()

    def action_rerun(self) -> None:
        self.loads.start()  # a ctrl+r while the module loads is the same run: ignored

    @on(ModuleLoaded)
    @while_open
    def _module_loaded(self, message: ModuleLoaded) -> None:
        """The module as it is on disk now (a schema changed since the last run counts): its cases run."""
        loaded = self.loads.arrived(message)
        if self.quitting:
            return
        if isinstance(loaded, str):
            self.workers.cancel_group(self, "goldens")
            self.state.failed(loaded)
            self._draw()
            return
        self.module = loaded
        refused = run_refusal(loaded) if loaded.tests else None
        if refused is not None:  # said once for the module, not as the same failure on every case
            self.workers.cancel_group(self, "goldens")
            self.cases_table.clear()
            self.state.cannot_run(loaded.name, refused)
            self._draw()
            return
        provider_name, problem = default_provider(self.bench.config)
        if problem and not self._provider_warned:
            self._provider_warned = True
            self.notify(problem, title="Provider", severity="warning", timeout=8, markup=False)
        try:
            judge = judge_provider(self.bench.config)
        except ValueError as exc:  # a judge: in config.yaml that names no provider
            self.state.failed(f"judge: in config.yaml: {exc}")
            self._draw()
            return
        label = Target(judge.name, judge.model).label if judge is not None else None
        generation = self.state.start(self.module.name, provider_name, len(self.module.tests), label)
        self.accepting.rerun()
        self.cases_table.clear()
        self._draw()
        if self.state.phase is GoldensPhase.RUNNING:
            self.run_all(loaded, provider_name, generation, judge)

    def in_flight(self) -> InFlight | None:
        """What quitting would cut short here (quitting.py): the golden tests still running."""
        if self.state.phase is not GoldensPhase.RUNNING:
            return None
        return InFlight(1, "golden run", "quitting cancels {it} (its results are not kept)")

    def stop_for_quit(self, settled: Callable[[], object]) -> None:
        self.workers.cancel_group(self, "goldens")
        settled()

    @work(name="run the golden tests", exclusive=True, group="goldens", exit_on_error=False)
    async def run_all(self, module: Module, provider_name: str, generation: int, judge: Any = None) -> None:
        app = self.bench
        try:
            provider = make_provider(provider_name, None, app.config)
        except ValueError as exc:  # UnknownProvider, a bad setting: a message, not a crashed app
            self.post_message(self.ProviderFailed(str(exc), generation))
            return

        def options(on: Any) -> RunOptions:
            return RunOptions(on, resolver=app.store.load)

        judging = JudgeSetup(judge, MISSING_CONFIG, options)
        try:
            for test in list(module.tests):
                result = await run_case(module, test, options(provider), judging)
                self.post_message(self.CaseDone(result, generation))
        finally:
            await provider.aclose()
            if judge is not None:
                await judge.aclose()

    @on(ProviderFailed)
    def _provider_failed(self, event: ProviderFailed) -> None:
        if event.generation != self.state.generation:
            return
        self.notify(event.problem, title="Provider", severity="error", timeout=10, markup=False)
        self.state.failed(event.problem, event.generation)
        self._draw()

    @on(CaseDone)
    def _case_done(self, event: CaseDone) -> None:
        if not self.state.case_done(event.generation, event.result):
            return  # a result of an earlier run
        r = event.result
        table = self.cases_table
        table.add_row(cell(r.name), self._mark(r), cell(r.reasons[0] if r.reasons else ""), key=r.name)
        if (shown := self.state.shown_case()) is not None:  # done: the cursor on the case the pane shows
            table.move_cursor(row=table.get_row_index(shown.name))
        self._draw()

    def _mark(self, r: CaseResult) -> Text:
        label = result_label(r, self.accepting.is_accepted(self.state.module, r.name))
        return themed(self.app, label, "success") if r.passed else themed(self.app, label, "error", bold=True)

    def _theme_changed(self, _theme: object) -> None:
        """Result cells carry the theme's colours (Rich text): drawn again in the new theme's."""
        table = self.cases_table
        column = table.ordered_columns[1].key
        for r in self.state.results:
            table.update_cell(r.name, column, self._mark(r))

    def _draw(self) -> None:
        """The title, progress, the table's cursor and the view pane, from the state."""
        state = self.state
        title = self.title_line
        if state.phase is GoldensPhase.FAILED:  # the problem comes from files or config: Content, never markup
            title.update(markup("[$error]$problem[/]", problem=state.problem))
        else:  # the module's name in bold, the rest as the state says it
            text = state.title()
            name = state.module if text.startswith(state.module) else ""
            title.update(assemble((name, "bold"), text[len(name) :]))
        done, total = state.progress()
        self.progress_bar.update(total=total, progress=done)
        table = self.cases_table
        table.show_cursor = state.shown_case() is not None  # no row looks highlighted while the pane says otherwise
        self._show_pane()

    def _show_pane(self) -> None:
        """The view pane, from the state: the case under the cursor once the run is done, else where the run is."""
        state = self.state
        r = state.shown_case()
        if r is None:
            self.envelope_view.show_content(styled(state.summary(), "$text-muted"))
            return
        judged = judge_lines(r, state.judge)
        scored = r.judgement is not None and r.judgement.score is not None
        if r.passed and not scored:  # the table says a rubric was not judged; the pane shows the answer
            self.envelope_view.show_json(r.result.envelope if r.result else {})
            return
        if r.passed:  # the judge's words above the answer they are about
            envelope = terminal_json(r.result.envelope if r.result else {}, indent=2)
            self.envelope_view.show_plain("\n".join(judged) + "\n\n" + envelope)
            return
        reasons = "\n".join(f"# {x}" for x in [*r.reasons, *judged])
        self.envelope_view.show_diff(f"# {r.name}\n{reasons}\n\n{r.diff}".rstrip())

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.state.highlight(str(event.row_key.value)):
            self._show_pane()

    def action_close(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return self.accepting.can_undo()
        return self.state.can(action)

    def offers(self, action: str) -> bool:
        """The footer's keys (KeyFooter): accept on a failing case shown, not accepted yet."""
        if action == "accept":
            shown = self.state.accept_target()
            return (
                shown is not None and not shown.passed and not self.accepting.is_accepted(self.state.module, shown.name)
            )
        return bool(self.check_action(action, ()))

    # ------------------------------------------------------------ accepting an answer (golden_accepting.py)

    def accept_candidate(self) -> Candidate | str:
        shown = self.state.accept_target()
        if shown is None:
            return "The cases are still running: a accepts a failing case's answer once they are done."
        result = shown.result
        if result is None:
            return shown.name, None, "", shown.passed
        return shown.name, result.envelope, result.provider, shown.passed

    def show_accept(self, plan: AcceptPlan) -> None:
        self.envelope_view.show_diff(f"# accept {plan.case}: {plan.path}\n{plan.diff}")

    def accept_changed(self) -> None:
        self._theme_changed(None)  # the result cells, with their "accepted" marks
        self._show_pane()
        self.refresh_bindings()
