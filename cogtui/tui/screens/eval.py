"""The eval screen (`e` from the browser): every golden of a module against the targets, a matrix filling live.

Cells fill in as results stream from the worker (it only posts messages); a
progress bar counts them; `enter` on a cell shows that run's diff against the
golden and its envelope; a sparkline shows the module's pass rate over its
recent evals (from the history, where each eval is recorded). `t` chooses the
targets and the response cache (eval_options.py), remembered per module until
cogtui quits. The screen gets everything it needs through its constructor
(config, a module resolver, the drafts), never from the app class.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, ProgressBar, Sparkline, Static

from cogtui.core.eval.engine import EvalOutcome, EvalSettings, run_eval
from cogtui.core.eval.model import Cell, EvalReport, Target
from cogtui.core.eval.targets import EvalChoice, configured_targets
from cogtui.core.history.evals import EvalPoint
from cogtui.core.history.store import History, HistoryError
from cogtui.core.module.loader import NotAModule, load_module
from cogtui.core.module.model import Module
from cogtui.core.run.providers import make_provider
from cogtui.core.run.run_start import default_provider
from cogtui.core.run.runner import RunOptions
from cogtui.core.settings.config import Config

from ..keys import KeySpec, bindings, register
from ..richstyle import themed
from ..run_drafts import RunDrafts
from ..widgets.text_views import CodeView
from ..worker_failures import ReportsWorkerFailures
from .eval_options import EvalOptions

register(
    KeySpec("eval.rerun", "ctrl+r", "rerun", "Run again", main=True, priority=True),
    KeySpec("eval.options", "t", "options", "Targets & cache"),  # listed by help (`?`)
    KeySpec("eval.close", "escape", "close", "Back", main=True),
)

TREND = 20  # evals in the sparkline
PENDING = "…"


def cell_label(cell: Cell) -> str:
    return ("✓ pass" if cell.passed else f"✗ {cell.code or 'fail'}") + (" (cached)" if cell.cached else "")


def summary_text(report: EvalReport) -> str:
    """Two lines per target: the verdict, then latency, tokens and cost."""
    lines = []
    for s in report.summaries:
        t = s.tokens
        violations = ", ".join(f"{code} ×{n}" for code, n in s.violations.items()) or "no violations"
        cache = (
            f" · cache {t['cache_read']:,} read, {t['cache_write']:,} written"
            if t["cache_read"] or t["cache_write"]
            else ""
        )
        p50 = "-" if s.latency_p50_ms is None else f"{s.latency_p50_ms:,.0f} ms"
        p95 = "-" if s.latency_p95_ms is None else f"{s.latency_p95_ms:,.0f} ms"
        cost = "cost ?" if s.cost_usd is None else f"${s.cost_usd:.4f}"
        cost += f" (cache saved ${s.saved_usd:.4f})" if s.saved_usd else ""
        lines.append(f"{s.target}  {s.passed}/{s.cases} passed ({s.pass_rate:.0%}) · {violations}")
        lines.append(f"  p50 {p50} · p95 {p95} · tokens {t['input']:,} in, {t['output']:,} out{cache} · {cost}")
    return "\n".join(lines)


class EvalScreen(ReportsWorkerFailures, Screen[None]):
    CSS_PATH = Path(__file__).parent.parent / "styles" / "eval.tcss"
    BINDINGS = bindings("eval.rerun", "eval.options", "eval.close")
    HELP = (
        "Every golden case against each target; enter on a cell shows its diff and envelope; t chooses the "
        "targets and the response cache (docs/eval.md)."
    )

    class CellDone(Message):
        def __init__(self, cell: Cell) -> None:
            super().__init__()
            self.cell = cell

    class EvalDone(Message):
        def __init__(self, outcome: EvalOutcome) -> None:
            super().__init__()
            self.outcome = outcome

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
        self.labels: list[str] = []
        self.cells: dict[tuple[str, str], Cell] = {}
        self.report: EvalReport | None = None
        self.running = False

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
        yield Footer()

    def on_mount(self) -> None:
        try:
            self.module = load_module(self.module_path)
        except (NotAModule, OSError) as exc:
            self._problem(str(exc))
            return
        self.load_trend()
        self.action_rerun()

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
        if self.running:
            self.notify("The eval running now keeps its targets; ctrl+r runs it with the new ones.", title="Eval")
            return
        self.action_rerun()

    def action_rerun(self) -> None:
        if self.module is None or self.running:
            return
        choice = self.current_choice()
        try:
            providers = [make_provider(t.provider, t.model, self.config) for t in choice.targets]
        except ValueError as exc:  # UnknownProvider, a bad setting: a message, not a crashed app
            self._problem(str(exc))
            return
        targets = [(Target(p.name, p.model), p) for p in providers]
        self.labels = list(dict.fromkeys(t.label for t, _ in targets))
        self.cells.clear()
        self.report = None
        cases = [t.name for t in self.module.tests]
        table = self.query_one("#eval-matrix", DataTable)
        table.clear(columns=True)
        table.add_column("case", key="case")
        for label in self.labels:
            table.add_column(Text(label), key=label)
        for case in cases:
            table.add_row(Text(case), *([PENDING] * len(self.labels)), key=case)
        total = len(cases) * len(self.labels)
        self.query_one(ProgressBar).update(total=max(total, 1), progress=0)
        self.query_one("#eval-title", Static).update(
            Content.from_markup(
                "[b]$name[/] — $n case$s × $t target$ts, $j at once$cache",
                name=self.module.name,
                n=str(len(cases)),
                s="s" * (len(cases) != 1),
                t=str(len(self.labels)),
                ts="s" * (len(self.labels) != 1),
                j=str(self.jobs),
                cache="" if choice.cache == "off" else f" · cache: {choice.cache}",
            )
        )
        self.query_one("#eval-summary", Static).update("")
        self.query_one("#eval-diff", CodeView).show_text("[$text-muted]running…[/]" if total else "")
        self.query_one("#eval-envelope", CodeView).show_text("")
        if not total:
            self.query_one("#eval-summary", Static).update(
                Content.styled("This module has no golden tests (tests/*.input.json → *.expected.json).", "$text-muted")
            )
            return
        self.running = True
        self.run_all(self.module, targets, choice.cache)

    @work(exclusive=True, group="eval", exit_on_error=False)
    async def run_all(self, module: Module, targets: list[tuple[Target, Any]], cache: str) -> None:
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

        def cell_done(cell: Cell) -> None:
            self.post_message(self.CellDone(cell))

        try:
            outcome = await run_eval([module], targets, settings, history, cell_done)
            self.post_message(self.EvalDone(outcome))
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

    @on(CellDone)
    def _cell_done(self, event: CellDone) -> None:
        cell = event.cell
        self.cells[(cell.case, cell.target)] = cell
        mark = themed(self.app, cell_label(cell), "success" if cell.passed else "error", bold=not cell.passed)
        table = self.query_one("#eval-matrix", DataTable)
        table.update_cell(cell.case, cell.target, mark)
        self.query_one(ProgressBar).update(progress=len(self.cells))

    @on(EvalDone)
    def _eval_done(self, event: EvalDone) -> None:
        self.running = False
        self.report = event.outcome.report
        for note in event.outcome.notes:
            self.notify(note, title="Eval", severity="warning", timeout=8, markup=False)
        self.show_report(self.report)
        self.load_trend()

    def show_report(self, report: EvalReport) -> None:
        """The per-target figures under the matrix, and the verdict on the right."""
        self.query_one("#eval-summary", Static).update(Content(summary_text(report)))
        failed, total = report.failed, len(report.cells)
        verdict = f"[$success]all {total} passed[/]" if not failed else f"[$error]{failed} of {total} failed[/]"
        self.query_one("#eval-diff", CodeView).show_text(
            verdict + "\n[$text-muted]enter on a cell: its diff and envelope[/]"
        )

    @on(TrendLoaded)
    def _trend_loaded(self, event: TrendLoaded) -> None:
        self.query_one("#eval-trend", Sparkline).data = [p.pass_rate for p in event.points]
        label = f"pass rate, last {len(event.points)} evals" if event.points else "no evals recorded yet"
        self.query_one("#eval-trend-label", Static).update(label)

    @on(Failed)
    def _failed(self, event: Failed) -> None:
        self.notify(event.problem, title="Eval", severity="warning", timeout=8, markup=False)

    def _problem(self, problem: str) -> None:
        self.query_one("#eval-title", Static).update(Content.styled(problem, "$error"))

    @on(DataTable.CellSelected, "#eval-matrix")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        self.show_cell(str(event.cell_key.row_key.value), str(event.cell_key.column_key.value))

    def show_cell(self, case: str, target: str) -> None:
        cell = self.cells.get((case, target))
        diff_view = self.query_one("#eval-diff", CodeView)
        envelope_view = self.query_one("#eval-envelope", CodeView)
        if cell is None:
            diff_view.show_plain(f"{case} on {target}: not finished yet", "$text-muted")
            return
        head = f"# {case} on {target}: {cell_label(cell)}" + (f" (run {cell.run_id})" if cell.run_id else "")
        reasons = "".join(f"\n# {r}" for r in cell.reasons)
        if cell.passed:
            diff_view.show_plain(f"{head}\nThe envelope satisfies the golden.")
        else:
            diff_view.show_diff(f"{head}{reasons}\n\n{cell.diff}".rstrip())
        envelope_view.show_json(cell.envelope if cell.envelope is not None else {})

    def action_close(self) -> None:
        self.dismiss(None)
