"""The insights dashboard (`i`): what overflow insights and custom enum values keep coming back, and promoting them.

Everything comes from the run history (`History.insights`, `insight_timeline`,
`modules`), read in a thread worker that posts one `Loaded` message; its
handler is the only code that fills the widgets. `p` builds a promotion plan
(`core.promote`) in another thread worker and hands it to the migration
preview, where the author reviews the diff and applies or undoes it.

Module names, mappings and enum values come from model output via the history:
they reach widgets as `Text`/`Content` and notifications as plain text, never
as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Select, Sparkline, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.authoring.promote import PromotionError
from cogtui.core.authoring.promotion_target import PromotionRequest, enum_promotion, mapping_promotions, plan_promotion
from cogtui.core.history.dashboard import DashboardData, latest_run_id, read_dashboard
from cogtui.core.history.store import HistoryError

from ..keys import KeySpec, bindings, register
from ..messages import Navigate, PlanPreview
from ..shown import block, cell, markup
from ..widgets.insight_detail import InsightDetail, custom_enum_content, insight_content
from ..widgets.insight_tables import CustomEnumTable, InsightTable, short_date
from ..workbench import Workbench, workbench
from ..worker_failures import ReportsWorkerFailures

register(
    KeySpec("insights.promote", "p", "promote", "Promote", main=True),
    KeySpec("insights.filter", "f", "focus_filter", "Module", main=True),
    KeySpec("insights.switch_tab", "t", "switch_tab", "Insights/enums", main=True),
    KeySpec("insights.reload", "r", "reload", "Reload"),
    KeySpec("insights.close", "escape", "close", "Back", main=True),
)

POLL_SECONDS = 3.0  # how often the dashboard checks whether other writers (cogn run, other TUIs) added runs
ALL_MODULES = "\x00all"  # the filter's "all modules" value: no module name can contain NUL
TIMELINE_BUCKETS = 48
EXAMPLES = 5
INSIGHTS_TAB, ENUMS_TAB = "insights-tab", "enums-tab"
NO_RUNS_HINT = (
    "No runs recorded yet.\n\nRun a module with `cogn run NAME`, or press r on a module in the browser: "
    "its overflow insights and custom enum values collect here, ready to be promoted into the schema."
)


def plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' * (n != 1)}"


class InsightsScreen(ReportsWorkerFailures, Screen[None]):
    CSS_PATH = Path(__file__).parent.parent / "styles" / "insights.tcss"
    BINDINGS = bindings(
        "insights.promote", "insights.filter", "insights.switch_tab", "insights.reload", "insights.close"
    )
    HELP = (
        "Overflow insights grouped by suggested mapping, and custom enum values by field, from the run history. "
        "`p` promotes the highlighted row into its module's schema after showing the diff."
    )

    class Loaded(Message):
        def __init__(self, data: DashboardData) -> None:
            super().__init__()
            self.data = data

    class LoadFailed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    class PlanReady(Message):
        def __init__(self, plan: MigrationPlan, title: str) -> None:
            super().__init__()
            self.plan = plan
            self.title = title

    class PlanFailed(Message):
        def __init__(self, error: str, title: str) -> None:
            super().__init__()
            self.error = error
            self.title = title

    def __init__(self, module: str | None = None) -> None:
        super().__init__()
        self.module = module  # the filter: None for all modules
        self.filled = False  # True once the tables show the current filter's data (tests and the benchmark wait on it)
        self.shown_latest_id = 0  # the newest run id the shown data was read at
        self._module_names: list[str] | None = None
        self.skipped_said: list[str] = []  # the damaged-row warnings already notified

    @property
    def bench(self) -> Workbench:
        return workbench(self.app)

    def compose(self) -> ComposeResult:
        options = [(Text("All modules"), ALL_MODULES)] + ([(cell(self.module), self.module)] if self.module else [])
        with Horizontal(id="insights-top"):
            yield Select(options, allow_blank=False, value=self.module or ALL_MODULES, id="insights-module")
            with Vertical(id="insights-trend"):
                yield Static("Insights over time", id="insights-trend-label")  # the span once loaded
                yield Sparkline([], id="insights-sparkline")
        yield Static(NO_RUNS_HINT, id="insights-empty", classes="-hidden")
        with TabbedContent(id="insights-tabs", initial=INSIGHTS_TAB):
            with TabPane("Insights", id=INSIGHTS_TAB):
                yield InsightTable(id="insights-table")
            with TabPane("Custom enums", id=ENUMS_TAB):
                yield CustomEnumTable(id="enums-table")
        yield InsightDetail(id="insights-detail")
        yield Static("Reading the run history…", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(InsightTable).focus()
        self.load()
        self.set_interval(POLL_SECONDS, self._poll)

    class NewRuns(Message):
        """Another writer recorded runs since the dashboard was read."""

    @work(thread=True, exclusive=True, group="insights-poll", exit_on_error=False)
    def _poll(self) -> None:
        try:
            latest = latest_run_id()
        except HistoryError:
            return  # the next load reports it
        if self.filled and latest != self.shown_latest_id:
            self.post_message(self.NewRuns())

    @on(NewRuns)
    def _new_runs(self) -> None:
        self.load()

    # ------------------------------------------------------------ loading

    def load(self) -> None:
        self.filled = False
        self._read(self.module)

    @work(thread=True, exclusive=True, group="insights-load", exit_on_error=False)
    def _read(self, module: str | None) -> None:
        try:
            data = read_dashboard(module, EXAMPLES, TIMELINE_BUCKETS)
        except HistoryError as exc:
            self.post_message(self.LoadFailed(str(exc)))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(data))

    @on(Loaded)
    def _fill(self, message: Loaded) -> None:
        """The one place the dashboard's widgets change."""
        data = message.data
        if data.module != self.module:
            return  # read for a filter the user has since changed
        self._set_module_options(data.modules)
        self.query_one(InsightTable).fill(data.insights)
        self.query_one(CustomEnumTable).fill(data.custom_enums)
        self.query_one(Sparkline).data = [float(n) for _, n in data.timeline]
        self._show_trend(data)
        empty = not data.insights and not data.custom_enums
        hint = self.query_one("#insights-empty", Static)
        if empty:
            scope = f" for {data.module}" if data.module else ""
            hint.update(
                block(
                    NO_RUNS_HINT
                    if not data.history_exists
                    else f"No overflow insights or custom enum values recorded{scope} yet.\n\nThey appear here "
                    "as runs return `extensions.insights` or `{custom, reason}` enum values."
                )
            )
        hint.set_class(not empty, "-hidden")
        self.query_one(TabbedContent).set_class(empty, "-hidden")
        self.query_one(InsightDetail).set_class(empty, "-hidden")
        total = sum(d["count"] for d in data.insights)
        values = sum(d["count"] for d in data.custom_enums)
        self._status(
            f"{plural(total, 'insight')} in {plural(len(data.insights), 'mapping')}  ·  "
            f"{plural(values, 'custom enum value')}  ·  {data.module or 'all modules'}",
            data.skipped,
        )
        self._show_detail()
        self.shown_latest_id = data.latest_id
        self.filled = True

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self._status("The run history could not be read.")
        self.notify(message.error, title="Run history", severity="error", timeout=10, markup=False)

    def _set_module_options(self, modules: list[str]) -> None:
        names = sorted(set(modules) | ({self.module} if self.module else set()))
        if names == self._module_names:
            return
        self._module_names = names
        select = cast("Select[str]", self.query_one("#insights-module", Select))
        # Replacing the options resets the value; neither is the user choosing a module.
        with select.prevent(Select.Changed):
            select.set_options([(Text("All modules"), ALL_MODULES), *((cell(n), n) for n in names)])
            select.value = self.module or ALL_MODULES

    def _show_trend(self, data: DashboardData) -> None:
        label = self.query_one("#insights-trend-label", Static)
        if not data.timeline:
            label.update("Insights over time: none yet")
            return
        first = min((d["first_seen"] for d in data.insights), default="")
        last = max((d["last_seen"] for d in data.insights), default="")
        # Within one day the dates alone say nothing: show the minutes.
        same_day = short_date(first) == short_date(last)
        span = f"{first[:10]} {first[11:16]}–{last[11:16]}" if same_day else f"{first[:10]} → {last[:10]}"
        label.update(block(f"Insights {span}, peak {max(n for _, n in data.timeline):,}"))  # dates from the history

    def _status(self, text: str, skipped: list[str] | None = None) -> None:
        """Plain text (it names modules): never parsed as markup. Damaged history rows left out of what is
        shown are counted here in the warning colour, and said once in a warning notification."""
        status = block(text)
        if skipped:
            status += markup("  ·  [$warning]⚠ $n: damaged rows skipped[/]", n=plural(len(skipped), "warning"))
            if skipped != self.skipped_said:
                more = f"\n… and {len(skipped) - 5} more" if len(skipped) > 5 else ""
                self.notify("\n".join(skipped[:5]) + more, title="Run history", severity="warning", markup=False)
        self.skipped_said = list(skipped or [])
        self.query_one("#status", Static).update(status)

    # ------------------------------------------------------------ selection

    def _active_table(self) -> InsightTable | CustomEnumTable:
        if self.query_one(TabbedContent).active == ENUMS_TAB:
            return self.query_one(CustomEnumTable)
        return self.query_one(InsightTable)

    def _show_detail(self) -> None:
        table = self._active_table()
        document = table.current
        detail = self.query_one(InsightDetail)
        if document is None:
            what = "custom enum values" if isinstance(table, CustomEnumTable) else "overflow insights"
            detail.show(f"No {what} for this filter.")
        elif isinstance(table, InsightTable):
            detail.show(insight_content(document))
        else:
            detail.show(custom_enum_content(document))

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self._active_table():
            self._show_detail()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._show_detail()

    @on(Select.Changed, "#insights-module")
    def _module_chosen(self, event: Select.Changed) -> None:
        module = None if event.value in (ALL_MODULES, Select.NULL) else str(event.value)
        if module != self.module:
            self.module = module
            self._status(f"Reading {module or 'all modules'}…")
            self.load()

    # ------------------------------------------------------------ actions

    def action_focus_filter(self) -> None:
        self.query_one("#insights-module", Select).focus()

    def action_switch_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = INSIGHTS_TAB if tabs.active == ENUMS_TAB else ENUMS_TAB
        self._active_table().focus()

    def action_reload(self) -> None:
        self._status("Reading the run history…")
        self.load()

    def action_close(self) -> None:
        self.dismiss()

    def action_promote(self) -> None:
        table = self._active_table()
        document = table.current
        if document is None:
            self.notify("Nothing to promote: highlight a row first.", severity="warning")
            return
        if isinstance(table, CustomEnumTable):
            self._build_plan(enum_promotion(document))
            return
        requests = mapping_promotions(document)
        if isinstance(requests, str):
            self.notify(requests, severity="warning", markup=False)
            return
        if len(requests) == 1:
            self._build_plan(requests[0])
            return
        from .modals import ChoiceModal

        def chosen(ident: str | None) -> None:
            if ident is not None:
                self._build_plan(requests[int(ident.removeprefix("m"))])

        # Button ids must be identifiers; module names need not be, so the choices are numbered.
        modal = ChoiceModal(
            f"Promote {requests[0].mapping}",
            f"{len(requests)} modules suggested it. Into which module's schema?",
            [(f"m{i}", request.module) for i, request in enumerate(requests)],
        )
        modal.add_class("insights-choice")  # insights.tcss lays many choices out in a grid
        self.app.push_screen(modal, chosen)

    @work(thread=True, exclusive=True, group="insights-promote", exit_on_error=False)
    def _build_plan(self, request: PromotionRequest) -> None:
        module = self.bench.store.load(request.module)
        if module is None:
            self.post_message(
                self.PlanFailed(
                    f"{request.module} is not on the search path; add its folder "
                    "(--path, COGNITIVE_MODULES_PATH) to edit its schema",
                    request.title,
                )
            )
            return
        try:
            plan = plan_promotion(request, module)
        except PromotionError as exc:
            self.post_message(self.PlanFailed(str(exc), request.title))
            return
        self.post_message(self.PlanReady(plan, request.title))

    @on(PlanReady)
    def _preview(self, message: PlanReady) -> None:
        self.app.post_message(Navigate(PlanPreview(message.plan, message.title)))

    @on(PlanFailed)
    def _plan_failed(self, message: PlanFailed) -> None:
        self.notify(message.error, title=message.title, severity="warning", timeout=8, markup=False)
