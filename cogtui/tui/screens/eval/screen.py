"""The eval screen (`e` from the browser): every golden of a module against the targets, a matrix filling live.

Cells fill in as results stream from the worker (it only posts messages); a progress bar counts them; `enter` on a
cell shows that run's diff against the golden and its envelope; a sparkline shows the module's pass rate over its
recent evals (from the history, where each eval is recorded). `t` chooses the targets and the response cache
(options.py), remembered per module until cogtui quits. The screen gets everything it needs through its
constructor (config, a module resolver, the drafts), never from the app class.

Everything shown (title, matrix, progress bar, summary, verdict, the footer's keys) is drawn from one `EvalState`
(core/eval/eval_state.py), which the messages below update: escape cancels a running eval (shown as cancelled, the
finished cells kept), and goes back once it is over. `$judge` goldens are scored by the judge of `judge:` in
config.yaml (run/judge.py): the matrix shows each score, the pane the judge's words. `a` on a failing cell accepts
its answer as the case's golden (the diff first, then a dialog), `u` undoes it (golden_accepting.py).
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

from cogtui.core.authoring.accept_state import AcceptState
from cogtui.core.authoring.golden_accept import AcceptPlan
from cogtui.core.eval.engine import EvalOutcome, EvalSettings, open_history, run_eval
from cogtui.core.eval.eval_state import EvalPhase, EvalState, trend_drawn, trend_label
from cogtui.core.eval.model import Cell, EvalReport, Target
from cogtui.core.eval.targets import EvalChoice, configured_targets
from cogtui.core.files.terminal_text import visible
from cogtui.core.history.evals import EvalPoint
from cogtui.core.history.store import History, HistoryError
from cogtui.core.module.model import Module
from cogtui.core.run.judge import MISSING_CONFIG, judge_provider
from cogtui.core.run.providers import make_provider
from cogtui.core.run.run_start import default_provider
from cogtui.core.run.runner import RunOptions
from cogtui.core.settings.config import Config

from ...keys import KeySpec, bindings, register
from ...module_loads import ModuleLoaded, ModuleLoads
from ...mounting import while_open
from ...quitting import InFlight
from ...run_drafts import RunDrafts
from ...stylesheets import stylesheet
from ...widgets.key_footer import KeyFooter
from ...widgets.text_views import CodeView
from ...worker_failures import ReportsWorkerFailures
from ..golden_accepting import AcceptFlow, AcceptsAnswers, Candidate
from .drawing import DrawsEvalState
from .options import EvalOptions

register(
    KeySpec("eval.rerun", "ctrl+r", "rerun", "Run again", main=True, priority=True, doc="run again"),
    KeySpec(
        "eval.options",
        "t",
        "options",
        "Targets & cache",
        main=True,
        doc="choose the targets (configured providers, or typed `provider/model`) and the response cache; kept per module until cogtui quits",
    ),
    KeySpec(
        "eval.cancel",
        "escape",
        "cancel",
        "Cancel",
        main=True,
        doc="cancel the running eval (the finished cells stay; nothing is recorded)",
    ),
    KeySpec("eval.close", "escape", "close", "Back", main=True, doc="back, once the eval is over"),
    KeySpec(
        "eval.accept",
        "a",
        "accept",
        "Accept answer",
        main=True,
        doc="accept the chosen failing cell's answer as its golden (the diff, then a dialog; a backup is kept)",
    ),
    KeySpec("eval.undo", "u", "undo", "Undo accept", main=True, doc="undo the last accept"),
)


TREND = 20  # evals in the sparkline


class EvalScreen(DrawsEvalState, AcceptsAnswers, ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("eval.tcss")
    BINDINGS = bindings("eval.rerun", "eval.options", "eval.cancel", "eval.close", "eval.accept", "eval.undo")
    HELP = (
        "Every golden case against each target; enter on a cell shows its diff and envelope (and a judged case's "
        "score); t chooses the targets and the response cache (docs/eval.md); a accepts a failing cell's answer as "
        "its golden, u undoes it; escape cancels a running eval."
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
        self.detail_shown = None
        self.accept_flow = AcceptFlow(self)

    @property
    def accepting(self) -> AcceptState:
        return self.state.accepting

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

    def offers(self, action: str) -> bool:
        """The footer's keys (KeyFooter): accept only on a failing cell chosen; pressed elsewhere, it says why."""
        return self.state.offers(action)

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
        try:
            judge = judge_provider(self.config)
        except ValueError as exc:  # a judge: in config.yaml that names no provider
            self.state.failed(f"judge: in config.yaml: {exc}")
            self.show_state()
            return
        targets = [(Target(p.name, p.model), p) for p in providers]
        label = Target(judge.name, judge.model).label if judge is not None else None
        generation = self.state.start([t.label for t, _ in targets], self.jobs, choice.cache, label)
        self.build_matrix()
        if self.state.total:  # start() found cells to run (else the state is EMPTY)
            self.run_all(generation, self.module, targets, choice.cache, judge)

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

    @work(name="run the eval", exclusive=True, group="eval", exit_on_error=False)
    async def run_all(
        self, generation: int, module: Module, targets: list[tuple[Target, Any]], cache: str, judge: Any = None
    ) -> None:
        def options(provider: Any) -> RunOptions:
            return RunOptions(
                provider, resolver=self.resolver, deadline=self.config.run_deadline, media_roots=self.config.media_roots
            )

        settings = EvalSettings(
            jobs=self.jobs,
            cache=cache,
            prices=self.config.prices,
            options=options,
            judge=judge,
            judge_missing=MISSING_CONFIG,
        )
        history: History | None = None
        try:
            history, settings.keep_runs_for, why = open_history()
        except HistoryError as exc:  # a location cogtui cannot use: nothing can be kept for it
            self.post_message(self.Failed(f"The eval will not be recorded: {exc}"))
        else:
            if why is not None:
                self.post_message(
                    self.Failed(
                        f"{why}. The eval's runs are recorded when it ends if the history opens then, else kept"
                    )
                )

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
            if judge is not None:
                await judge.aclose()
            if history is not None:
                history.close()

    @work(name="read the eval trend", thread=True, exclusive=True, group="eval-trend", exit_on_error=False)
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
        sparkline = self.trend_line
        sparkline.data = rates
        sparkline.display = trend_drawn(rates)
        self.trend_label.update(trend_label(rates))

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

    # ------------------------------------------------------------ accepting an answer (golden_accepting.py)

    def accept_candidate(self) -> Candidate | str:
        cell = self.state.accept_target()
        if cell is None:
            return "Choose a failing cell first (enter on it): a accepts its answer as the golden."
        return cell.case, cell.envelope, cell.target.partition("/")[0], cell.passed

    def show_accept(self, plan: AcceptPlan) -> None:
        """The diff of the expected file against the answer, where the cell's details are."""
        self.detail_shown = ("accept", plan.case)
        self.diff_view.show_diff(f"# accept {plan.case}: {plan.path}\n{plan.diff}")

    def accept_changed(self) -> None:
        self.detail_shown = None
        self.show_state(every_cell=True)
