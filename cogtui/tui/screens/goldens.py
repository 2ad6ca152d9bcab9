"""Golden tests of a module: run them all, a progress bar, a table of pass and fail, a failing case's diff.

The provider is the app's configured one (replay when it has no API key, or when
the configured name is not a provider: a notification says so).
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, ProgressBar, Static

from cogtui.core.files.terminal_text import visible
from cogtui.core.module.loader import NotAModule, load_module
from cogtui.core.module.model import Module
from cogtui.core.run.golden_runner import CaseResult, run_case
from cogtui.core.run.providers import make_provider
from cogtui.core.run.run_start import default_provider
from cogtui.core.run.runner import RunOptions

from ..keys import KeySpec, bindings, register
from ..richstyle import themed
from ..shown import cell, markup
from ..widgets.text_views import CodeView
from ..workbench import Workbench, workbench
from ..worker_failures import ReportsWorkerFailures

register(
    KeySpec("goldens.rerun", "ctrl+r", "rerun", "Run again", main=True, priority=True),
    KeySpec("goldens.close", "escape", "close", "Back", main=True),
)


class GoldensScreen(ReportsWorkerFailures, Screen[None]):
    CSS_PATH = Path(__file__).parent.parent / "styles" / "history.tcss"
    BINDINGS = bindings("goldens.rerun", "goldens.close")
    HELP = "Every golden test of the module, compared at the contract level (docs/golden-tests.md)."

    class CaseDone(Message):
        def __init__(self, result: CaseResult, index: int, total: int) -> None:
            super().__init__()
            self.result = result
            self.index = index
            self.total = total

    class ProviderFailed(Message):
        def __init__(self, problem: str) -> None:
            super().__init__()
            self.problem = problem

    def __init__(self, module_path: Path) -> None:
        super().__init__()
        self.module_path = module_path
        self.module: Module | None = None
        self.results: dict[str, CaseResult] = {}
        self._provider_warned = False

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
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("case", "result", "why")
        try:
            self.module = load_module(self.module_path)
        except (NotAModule, OSError) as exc:
            self._show_problem(str(exc))
            return
        self.action_rerun()

    def action_rerun(self) -> None:
        if self.module is None:
            return
        table = self.query_one(DataTable)
        table.clear()
        self.results.clear()
        total = len(self.module.tests)
        provider_name, problem = default_provider(self.bench.config)
        if problem and not self._provider_warned:
            self._provider_warned = True
            self.notify(problem, title="Provider", severity="warning", timeout=8, markup=False)
        self.query_one("#goldens-title", Static).update(
            markup(
                "[b]$name[/] — $total golden test$s via $provider",
                name=self.module.name,
                total=str(total),
                s="s" * (total != 1),
                provider=provider_name,
            )
        )
        if not total:
            self.query_one(CodeView).show_text(
                "[$text-muted]This module has no golden tests (tests/*.input.json → *.expected.json).[/]"
            )
            return
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=0)
        self.query_one(CodeView).show_text("[$text-muted]running…[/]")
        self.run_all(provider_name)

    @work(exclusive=True, group="goldens", exit_on_error=False)
    async def run_all(self, provider_name: str) -> None:
        assert self.module is not None
        app = self.bench
        try:
            provider = make_provider(provider_name, None, app.config)
        except ValueError as exc:  # UnknownProvider, a bad setting: a message, not a crashed app
            self.post_message(self.ProviderFailed(str(exc)))
            return
        try:
            tests = list(self.module.tests)
            for i, test in enumerate(tests):
                result = await run_case(self.module, test, RunOptions(provider, resolver=app.store.load))
                self.post_message(self.CaseDone(result, i + 1, len(tests)))
        finally:
            await provider.aclose()

    @on(ProviderFailed)
    def _provider_failed(self, event: ProviderFailed) -> None:
        self.notify(event.problem, title="Provider", severity="error", timeout=10, markup=False)
        self._show_problem(event.problem)

    def _show_problem(self, problem: str) -> None:
        """In the title, as `Content`: CodeView.show_text takes markup, and this text comes from files or config."""
        self.query_one("#goldens-title", Static).update(markup("[$error]$problem[/]", problem=problem))
        self.query_one(CodeView).show_text("")

    @on(CaseDone)
    def _case_done(self, event: CaseDone) -> None:
        r = event.result
        self.results[r.name] = r
        mark = themed(self.app, "✓ pass", "success") if r.passed else themed(self.app, "✗ fail", "error", bold=True)
        why = cell(visible(r.reasons[0], single_line=True) if r.reasons else "")
        self.query_one(DataTable).add_row(cell(visible(r.name, single_line=True)), mark, why, key=r.name)
        self.query_one(ProgressBar).update(progress=event.index)
        if event.index == event.total:
            failed = sum(1 for x in self.results.values() if not x.passed)
            summary = (
                f"[$success]all {event.total} passed[/]"
                if not failed
                else f"[$error]{failed} of {event.total} failed[/]"
            )
            self.query_one(CodeView).show_text(summary + "\n[$text-muted]Highlight a case to see its diff.[/]")

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        r = self.results.get(str(event.row_key.value))
        if r is None:
            return
        if r.passed:
            self.query_one(CodeView).show_json(r.result.envelope if r.result else {})
            return
        reasons = "\n".join(f"# {x}" for x in r.reasons)
        self.query_one(CodeView).show_diff(f"# {r.name}\n{reasons}\n\n{r.diff}")

    def action_close(self) -> None:
        self.dismiss(None)
