"""The eval screen (`e` from the browser): every golden of a module against the targets, a matrix filling live.

Cells fill in as results stream from the worker (it only posts messages); a progress bar counts them; `enter` on a
cell shows that run's diff against the golden and its envelope; a sparkline shows the module's pass rate over its
recent evals (from the history, where each eval is recorded). `t` chooses the targets and the response cache
(eval_options.py), remembered per module until cogtui quits. The screen gets everything it needs through its
constructor (config, a module resolver, the drafts), never from the app class.

Everything shown (title, matrix, progress bar, summary, verdict, the footer's keys) is drawn from one `EvalState`
(core/eval/eval_state.py), which the messages below update: escape cancels a running eval (shown as cancelled, the
finished cells kept), and goes back once it is over.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, ProgressBar, Sparkline, Static
from textual.worker import Worker, WorkerState

from cogtui.core.eval.engine import EvalOutcome, EvalSettings, run_eval
from cogtui.core.eval.eval_state import CellStatus, EvalPhase, EvalState, trend_drawn, trend_label
from cogtui.core.eval.model import Cell, EvalReport, Target
from cogtui.core.eval.targets import EvalChoice, configured_targets
from cogtui.core.files.terminal_text import visible
from cogtui.core.history.evals import EvalPoint
from cogtui.core.history.store import History, HistoryError
from cogtui.core.module.model import Module
from cogtui.core.run.providers import make_provider
from cogtui.core.run.run_start import default_provider
from cogtui.core.run.runner import RunOptions
from cogtui.core.settings.config import Config

from ..keys import KeySpec, bindings, register
from ..module_loads import ModuleLoaded, ModuleLoads
from ..mounting import while_open
from ..quitting import InFlight
from ..richstyle import themed
from ..run_drafts import RunDrafts
from ..shown import assemble, block, cell, styled
from ..stylesheets import stylesheet
from ..widgets.key_footer import KeyFooter
from ..widgets.text_views import CodeView
from ..worker_failures import ReportsWorkerFailures
from .eval_options import EvalOptions

register(
    KeySpec("eval.rerun", "ctrl+r", "rerun", "Run again", main=True, priority=True),
    KeySpec("eval.options", "t", "options", "Targets & cache", main=True),
    KeySpec("eval.cancel", "escape", "cancel", "Cancel", main=True),
    KeySpec("eval.close", "escape", "close", "Back", main=True),
)

TREND = 20  # evals in the sparkline
CELL_STYLE = {
    CellStatus.PASSED: "success",
    CellStatus.FAILED: "error",
    CellStatus.CANCELLED: "text-muted",
    CellStatus.NOT_RUN: "text-muted",
}


class EvalScreen(ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("eval.tcss")
    BINDINGS = bindings("eval.rerun", "eval.options", "eval.cancel", "eval.close")
    HELP = (
        "Every golden case against each target; enter on a cell shows its diff and envelope; t chooses the "
        "targets and the response cache (docs/eval.md); escape cancels a running eval."
    )

    class CellStarted(Message):
        def __init__(self, generation: int, case: str, target: str) -> None:
            super().__init__()
            self.generation, self.case, self.target = generation, case, target

    class CellDone(Message):
        def __init__(self, generation: int, cell: Cell) -> None:
            super().__init__()
            self.generation, self.cell = generation, cell

    class EvalDone(Message):
        def __init__(self, generation: int, outcome: EvalOutcome) -> None:
            super().__init__()
            self.generation, self.outcome = generation, outcome

    class TrendLoaded(Message):
        def __init__(self, points: list[EvalPoint]) -> None:
            super().__init__()
            self.points = points

    class Failed(Message):
        def __init__(self, problem: str) -> None:
            super().__init__()
            self.problem = problem

    def __init__(
        self,
        module_path: Path,
        config: Config,
        resolver: Callable[[str], Module | None] | None = None,
        drafts: RunDrafts | None = None,
        jobs: int = 4,
    ) -> None:
        super().__init__()
        self.module_path = module_path
        self.config = config
        self.resolver = resolver
        self.drafts = drafts or RunDrafts()
        self.choice: EvalChoice | None = None  # the targets and cache mode: remembered, else the default provider
        self.jobs = jobs
        self.module: Module | None = None
        self.state = EvalState()
        self.quitting = False  # quitting.py: a confirmed quit cancels the eval
        self.loads = ModuleLoads(self, module_path)  # read off the UI thread as it opens and on every ctrl+r
        self.detail_shown: tuple[object, ...] | None = None  # what the right pane shows now: redrawn when it changes

    @property
    def report(self) -> EvalReport | None:
        return self.state.report

    def compose(self) -> ComposeResult:
        with Horizontal(id="eval-main"):
            with Vertical(id="eval-left"):
                yield Static("", id="eval-title")
                yield ProgressBar(total=1, show_eta=False, id="eval-progress")
                yield DataTable(id="eval-matrix", cursor_type="cell", zebra_stripes=True)
                yield Static("", id="eval-summary")
                with Horizontal(id="eval-trend-row"):
                    yield Static("pass rate, recent evals", id="eval-trend-label")
                    yield Sparkline([], id="eval-trend")
            with Vertical(id="eval-right"):
                yield CodeView(id="eval-diff")
                yield CodeView(id="eval-envelope")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        # Matrix cells carry the theme's colours (Rich text): drawn again in a new theme's.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_state(every_cell=True))
        self.loads.start()

    @on(ModuleLoaded)
    @while_open
    def _module_loaded(self, message: ModuleLoaded) -> None:
        """The module as it is on disk now (each run loads it: a schema changed since the last counts): it runs."""
        loaded = self.loads.arrived(message)
        if self.quitting or self.state.phase is EvalPhase.RUNNING:
            return
        if isinstance(loaded, str):
            self.state.failed(loaded)
            self.show_state()
            return
        first = self.module is None
        self.module = loaded
        self.state.loaded(loaded.name, [t.name for t in loaded.tests])
        if first:
            self.load_trend()
        self.start()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.state.can(action)

    # ------------------------------------------------------------ running

    def current_choice(self) -> EvalChoice:
        if self.choice is None:
            self.choice = self.drafts.eval_choice(self.module_path)
        if self.choice is None:
            name, problem = default_provider(self.config)
            if problem:
                self.notify(problem, title="Provider", severity="warning", timeout=8, markup=False)
            self.choice = EvalChoice((Target(name),))
        return self.choice

    def action_options(self) -> None:
        self.app.push_screen(
            EvalOptions(configured_targets(self.config), self.current_choice(), self.config), self._options_chosen
        )

    def _options_chosen(self, choice: EvalChoice | None) -> None:
        if choice is None:
            return
        self.choice = choice
        self.drafts.keep_eval_choice(self.module_path, choice)
        if self.state.phase is EvalPhase.RUNNING:
            self.notify("The eval running now keeps its targets; ctrl+r runs it with the new ones.", title="Eval")
            return
        self.action_rerun()

    def action_rerun(self) -> None:
        if self.state.phase is not EvalPhase.RUNNING:
            self.loads.start()  # a ctrl+r while the module loads is the same eval: ignored

    def start(self) -> None:
        if self.module is None or self.state.phase is EvalPhase.RUNNING:
            return
        choice = self.current_choice()
        try:
            providers = [make_provider(t.provider, t.model, self.config) for t in choice.targets]
        except ValueError as exc:  # UnknownProvider, a bad setting: a message, not a crashed app
            self.state.failed(str(exc))
            self.show_state()
            return
        targets = [(Target(p.name, p.model), p) for p in providers]
        generation = self.state.start([t.label for t, _ in targets], self.jobs, choice.cache)
        self.build_matrix()
        if self.state.total:  # start() found cells to run (else the state is EMPTY)
            self.run_all(generation, self.module, targets, choice.cache)

    def action_cancel(self) -> None:
        if self.state.cancel():
            self.workers.cancel_group(self, "eval")  # the worker's finally closes the providers
            self.show_state(every_cell=True)

    def in_flight(self) -> InFlight | None:
        """What quitting would cut short here (quitting.py): a running eval."""
        if self.state.phase is not EvalPhase.RUNNING:
            return None
        return InFlight(1, "eval", "quitting cancels {it} (a cancelled eval is not recorded in the history)")

    def stop_for_quit(self, settled: Callable[[], object]) -> None:
        self.action_cancel()
        settled()

    @work(exclusive=True, group="eval", exit_on_error=False)
    async def run_all(self, generation: int, module: Module, targets: list[tuple[Target, Any]], cache: str) -> None:
        def options(provider: Any) -> RunOptions:
            return RunOptions(
                provider, resolver=self.resolver, deadline=self.config.run_deadline, media_roots=self.config.media_roots
            )

        settings = EvalSettings(jobs=self.jobs, cache=cache, prices=self.config.prices, options=options)
        history: History | None = None
        try:
            history = History.open_default()
        except HistoryError as exc:
            self.post_message(self.Failed(f"The eval will not be recorded: {exc}"))

        def cell_started(_module: str, case: str, target: str) -> None:
            self.post_message(self.CellStarted(generation, case, target))

        def cell_done(cell: Cell) -> None:
            self.post_message(self.CellDone(generation, cell))

        try:
            outcome = await run_eval([module], targets, settings, history, cell_done, cell_started)
            self.post_message(self.EvalDone(generation, outcome))
        finally:
            for _, provider in targets:
                await provider.aclose()
            if history is not None:
                history.close()

    @work(thread=True, exclusive=True, group="eval-trend", exit_on_error=False)
    def load_trend(self) -> None:
        if self.module is None:
            return
        try:
            with History.open_default() as history:
                points = history.eval_trend(self.module.name, TREND)
        except HistoryError:
            points = []  # no history: no trend, and the run itself says why
        self.post_message(self.TrendLoaded(points))

    # ------------------------------------------------------------ results (the one place state changes)

    @on(CellStarted)
    def _cell_started(self, event: CellStarted) -> None:
        if self.state.cell_started(event.generation, event.case, event.target):
            self.show_cell(event.case, event.target)

    @on(CellDone)
    def _cell_done(self, event: CellDone) -> None:
        if self.state.cell_done(event.generation, event.cell):
            self.show_cell(event.cell.case, event.cell.target)
            self.show_state()

    @on(EvalDone)
    def _eval_done(self, event: EvalDone) -> None:
        if not self.state.finished(event.generation, event.outcome.report):
            return
        for note in event.outcome.notes:
            self.notify(note, title="Eval", severity="warning", timeout=8, markup=False)
        self.show_state(every_cell=True)
        self.load_trend()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """An eval that failed unexpectedly is shown as failed (the app also reports it: ReportsWorkerFailures)."""
        if event.worker.group == "eval" and event.state is WorkerState.ERROR and not self.state.final:
            self.state.failed(visible(f"the eval stopped: {event.worker.error}", single_line=True))
            self.show_state(every_cell=True)

    @on(TrendLoaded)
    def _trend_loaded(self, event: TrendLoaded) -> None:
        rates = [p.pass_rate for p in event.points]
        sparkline = self.query_one("#eval-trend", Sparkline)
        sparkline.data = rates
        sparkline.display = trend_drawn(rates)
        self.query_one("#eval-trend-label", Static).update(trend_label(rates))

    @on(Failed)
    def _failed(self, event: Failed) -> None:
        self.notify(event.problem, title="Eval", severity="warning", timeout=8, markup=False)

    @on(DataTable.CellSelected, "#eval-matrix")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        case, column = str(event.cell_key.row_key.value), str(event.cell_key.column_key.value)
        if column == "case" and self.state.targets:  # the case's name: its first target's cell
            column = self.state.targets[0]
        self.state.select(case, column)
        self.show_detail()

    def action_close(self) -> None:
        self.dismiss(None)

    # ------------------------------------------------------------ drawing the state

    def build_matrix(self) -> None:
        """A row per case and a column per target, every cell as the state has it."""
        table = self.query_one("#eval-matrix", DataTable)
        table.clear(columns=True)
        table.add_column("case", key="case")
        for label in self.state.targets:
            table.add_column(cell(visible(label, single_line=True)), key=label)
        for case in self.state.cases if self.state.targets else []:
            table.add_row(cell(visible(case, single_line=True)), *[""] * len(self.state.targets), key=case)
        if self.state.targets and self.state.cases:
            table.move_cursor(row=0, column=1)  # on a result, where enter shows something
        self.show_state(every_cell=True)

    def show_cell(self, case: str, target: str) -> None:
        status = self.state.status(case, target)
        style = CELL_STYLE.get(status)
        label = self.state.label(case, target)
        mark = themed(self.app, label, style, bold=status is CellStatus.FAILED) if style else cell(label)
        # The column grows to its widest label: sized by its header alone ("replay"), it cut "✗ E2001" to "✗ E200".
        self.query_one("#eval-matrix", DataTable).update_cell(case, target, mark, update_width=True)
        if self.state.selected == (case, target):
            self.show_detail()

    def show_state(self, every_cell: bool = False) -> None:
        """Title, progress, summary, verdict and footer from the state (and every matrix cell when asked)."""
        state = self.state
        title = state.title()
        if state.module and title.startswith(state.module):
            self.query_one("#eval-title", Static).update(assemble((state.module, "bold"), title[len(state.module) :]))
        else:
            self.query_one("#eval-title", Static).update(styled(title, "$error" if state.problem else "$text-muted"))
        done, total = state.progress()
        self.query_one(ProgressBar).update(total=total, progress=done)
        muted = state.phase is not EvalPhase.DONE
        summary = state.summary()
        self.query_one("#eval-summary", Static).update(styled(summary, "$text-muted") if muted else block(summary))
        if every_cell and state.targets:
            for case in state.cases:
                for target in state.targets:
                    self.show_cell(case, target)
        self.show_detail()
        self.refresh_bindings()

    def show_detail(self) -> None:
        """The right pane: the selected cell's diff and envelope, else the eval's verdict."""
        state = self.state
        chosen = state.selected_cell()
        shown = (state.selected, chosen, state.phase) if state.selected else (state.verdict(), state.phase)
        if shown == self.detail_shown:
            return
        self.detail_shown = shown
        diff_view = self.query_one("#eval-diff", CodeView)
        envelope_view = self.query_one("#eval-envelope", CodeView)
        if state.selected is None:
            verdict = state.verdict()
            hint = "\n[$text-muted]enter on a cell: its diff and envelope[/]" if state.phase is EvalPhase.DONE else ""
            colour = "$success" if state.phase is EvalPhase.DONE and not state.failures else "$text-muted"
            colour = "$error" if state.phase is EvalPhase.DONE and state.failures else colour
            diff_view.show_text(f"[{colour}]{verdict}[/]{hint}" if verdict else "")
            envelope_view.show_text("")
            return
        case, target = state.selected
        if chosen is None:
            diff_view.show_plain(f"{case} on {target}: {state.status(case, target)}", "$text-muted")
            envelope_view.show_text("")
            return
        head = f"# {case} on {target}: {state.label(case, target)}" + (
            f" (run {chosen.run_id})" if chosen.run_id else ""
        )
        reasons = "".join(f"\n# {r}" for r in chosen.reasons)
        if chosen.passed:
            diff_view.show_plain(f"{head}\nThe envelope satisfies the golden.")
        else:
            diff_view.show_diff(f"{head}{reasons}\n\n{chosen.diff}".rstrip())
        envelope_view.show_json(chosen.envelope if chosen.envelope is not None else {})
