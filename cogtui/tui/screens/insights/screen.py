"""The insights dashboard (`i`): what overflow insights and custom enum values keep coming back, and promoting them.

Everything comes from the run history (`History.insights`, `insight_timeline`,
`modules`), read in a thread worker that posts one `Loaded` message. The
screen keeps one `InsightsState` (core.history.dashboard_state): every
message and key updates it, and `_draw` / `_draw_selection` draw every part
from it (trend, tables with their promoted marks, detail, status line, the
footer's keys), so no two parts can disagree. `p` builds a promotion plan
(`core.authoring.promotion_target`) in another worker and hands it to the migration
preview; `u` undoes a promotion that is its module's latest change; `enter`
opens the row: every sample in full and the runs behind it.

Module names, mappings and enum values come from model output via the history:
they reach widgets as `Text`/`Content` and notifications as plain text, never
as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import cast

from rich.text import Text
from textual import getters, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Select, Sparkline, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from cogtui.core.authoring.promotion_target import PromotionRequest
from cogtui.core.diagnostics import plural
from cogtui.core.history.dashboard import DashboardData, latest_run_id, read_dashboard
from cogtui.core.history.dashboard_state import ENUMS, INSIGHTS, InsightsState, Phase
from cogtui.core.history.store import HistoryError

from ...keys import KeySpec, bindings, register
from ...messages import Navigate
from ...mounting import while_open
from ...shown import block, cell, markup
from ...stylesheets import stylesheet
from ...widgets.insight_detail import InsightDetail, custom_enum_content, insight_content
from ...widgets.insight_tables import CustomEnumTable, InsightTable
from ...widgets.key_footer import KeyFooter
from ...workbench import Workbench, workbench
from ...worker_failures import ReportsWorkerFailures
from ..migrate import PlanPreview
from . import promotions

register(
    KeySpec("insights.promote", "p", "promote", "Promote", main=True, doc="promote into schema.json (a diff first)"),
    KeySpec("insights.undo", "u", "undo_promotion", "Undo", main=True, doc="undo the highlighted row's promotion"),
    KeySpec("insights.filter", "f", "focus_filter", "Module", main=True, doc="filter by module"),
    KeySpec("insights.switch_tab", "t", "switch_tab", "Insights/enums", main=True, doc="insights / custom enum values"),
    KeySpec("insights.reload", "r", "reload", "Reload"),
    KeySpec("insights.close", "escape", "close", "Back", main=True),
)

POLL_SECONDS = 3.0  # how often the dashboard checks whether other writers (cogn run, other TUIs) added runs
ALL_MODULES = "\x00all"  # the filter's "all modules" value: no module name can contain NUL
TIMELINE_BUCKETS = 48
EXAMPLES = 5
TAB_IDS = {INSIGHTS: "insights-tab", ENUMS: "enums-tab"}
INSIGHTS_TAB, ENUMS_TAB = TAB_IDS[INSIGHTS], TAB_IDS[ENUMS]


class InsightsScreen(ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("insights.tcss")
    BINDINGS = bindings(
        "insights.promote",
        "insights.undo",
        "insights.filter",
        "insights.switch_tab",
        "insights.reload",
        "insights.close",
    )
    HELP = (
        "Overflow insights grouped by suggested mapping, and custom enum values by field, from the runs that "
        "passed their contract. `p` promotes the highlighted row into its module's schema after showing the "
        "diff; a promoted row is marked ✓ and `u` undoes it while it is its module's latest promotion or migration "
        "(on an earlier one it says why not); `enter` shows the row in full with its runs."
    )

    module_select = getters.query_one("#insights-module", Select)
    trend_line = getters.query_one("#insights-sparkline", Sparkline)
    trend_label = getters.query_one("#insights-trend-label", Static)
    empty_hint = getters.query_one("#insights-empty", Static)
    tabs = getters.query_one("#insights-tabs", TabbedContent)
    insight_table = getters.query_one("#insights-table", InsightTable)
    enum_table = getters.query_one("#enums-table", CustomEnumTable)
    detail = getters.query_one("#insights-detail", InsightDetail)
    status_line = getters.query_one("#status", Static)

    class Loaded(Message):
        def __init__(self, data: DashboardData) -> None:
            super().__init__()
            self.data = data

    class LoadFailed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    class NewRuns(Message):
        """Another writer recorded runs since the dashboard was read."""

    def __init__(self, module: str | None = None) -> None:
        super().__init__()
        self.state = InsightsState(module)  # what every part of the screen shows
        self._module_names: list[str] | None = None
        self._tables_show = -1  # the state's revision the tables show
        self.skipped_said: list[str] = []  # the damaged-row warnings already notified

    @property
    def module(self) -> str | None:
        return self.state.module

    @property
    def filled(self) -> bool:
        """The tables show the current filter's data (tests and the benchmark wait on it)."""
        return self.state.phase is Phase.READY

    @property
    def bench(self) -> Workbench:
        return workbench(self.app)

    def compose(self) -> ComposeResult:
        module = self.state.module
        options = [(Text("All modules"), ALL_MODULES)] + ([(cell(module), module)] if module else [])
        with Horizontal(id="insights-top"):
            yield Select(options, allow_blank=False, value=module or ALL_MODULES, id="insights-module")
            with Vertical(id="insights-trend"):
                yield Static("Insights over time", id="insights-trend-label")  # the span once loaded
                yield Sparkline([], id="insights-sparkline")
        yield Static(id="insights-empty", classes="-hidden")
        # The first tab shown; no `initial=`: a tab strip given one raises if the app quits as it is drawn
        # (Textual's Tabs sets it unchecked on mount; tests/tui/test_textual_behaviour.py, as the editor's tabs).
        with TabbedContent(id="insights-tabs"):
            with TabPane("Insights", id=INSIGHTS_TAB):
                yield InsightTable(id="insights-table")
            with TabPane("Custom enums", id=ENUMS_TAB):
                yield CustomEnumTable(id="enums-table")
        yield InsightDetail(id="insights-detail")
        yield Static(id="status")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        self.insight_table.focus()
        self.load()
        self.set_interval(POLL_SECONDS, self._poll)

    def on_screen_resume(self) -> None:
        """Back from the promotion preview (or anywhere): the schemas may have changed."""
        if self.state.data is not None:
            self._read_promotions(self.state.data)

    @work(
        name="watch the history for insights", thread=True, exclusive=True, group="insights-poll", exit_on_error=False
    )
    def _poll(self) -> None:
        try:
            latest = latest_run_id()
        except HistoryError:
            return  # the next load reports it
        data = self.state.data
        if self.filled and data is not None and latest != data.latest_id:
            self.post_message(self.NewRuns())

    @on(NewRuns)
    def _new_runs(self) -> None:
        self.load()

    # ------------------------------------------------------------ loading

    def load(self, module: str | None = None, same: bool = True) -> None:
        self.state.reading(self.state.module if same else module)
        self._draw_selection()
        self._read(self.state.module)

    @work(name="read the insights", thread=True, exclusive=True, group="insights-load", exit_on_error=False)
    def _read(self, module: str | None) -> None:
        try:
            data = read_dashboard(module, EXAMPLES, TIMELINE_BUCKETS)
        except HistoryError as exc:
            self.post_message(self.LoadFailed(str(exc)))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(data))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        skipped = message.data.skipped
        if skipped and skipped != self.skipped_said:  # damaged history rows: said once, as a warning
            more = f"\n… and {len(skipped) - 5} more" if len(skipped) > 5 else ""
            self.notify("\n".join(skipped[:5]) + more, title="Run history", severity="warning", markup=False)
        self.skipped_said = list(skipped)
        if self.state.loaded(message.data):
            self._draw()
            self._read_promotions(message.data)

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.state.failed(message.error)
        self._draw_selection()
        self.notify(message.error, title="Run history", severity="error", timeout=10, markup=False)

    @work(
        name="read the promoted insights", thread=True, exclusive=True, group="insights-promoted", exit_on_error=False
    )
    def _read_promotions(self, data: DashboardData) -> None:
        self.post_message(promotions.read_promotions(data, self.bench.store.load))

    @on(promotions.PromotionsRead)
    def _promotions_read(self, message: promotions.PromotionsRead) -> None:
        if message.data is self.state.data:  # else a newer read is on its way
            self.state.promotions_known(message.data.latest_id, message.promoted, message.undoable, message.refusals)
            self._draw()

    # ------------------------------------------------------------ drawing: from the state only

    def _draw(self) -> None:
        """Everything a read changes: the filter's options, the trend, the tables, then the selection."""
        state, data = self.state, self.state.data
        if data is None:
            return
        self._set_module_options(data.modules)
        self.trend_line.data = [float(n) for _, n in data.timeline]
        self.trend_label.update(block(state.trend_label()))
        hint = self.empty_hint
        hint.update(block(state.empty_hint()))
        hint.set_class(not state.empty, "-hidden")
        self.tabs.set_class(state.empty, "-hidden")
        self.detail.set_class(state.empty, "-hidden")
        if state.revision != self._tables_show:
            self._tables_show = state.revision
            for tab, table in ((INSIGHTS, self.insight_table), (ENUMS, self.enum_table)):
                with table.prevent(DataTable.RowHighlighted):
                    table.fill(state.rows(tab), partial(state.fully_promoted, tab), state.cursor[tab])
        self._draw_selection()

    def _draw_selection(self) -> None:
        """What the highlighted row, the tab and the phase decide: the detail, the status line, the keys."""
        state = self.state
        detail = self.detail
        document = state.current
        if document is None:
            what = "custom enum values" if state.tab == ENUMS else "overflow insights"
            detail.show("Reading the run history…" if state.data is None else f"No {what} for this filter.")
        else:
            promoted_in = state.promoted_in(state.tab, document)
            undo, refusal = state.undo_ready(), state.undo_refusal() or ""
            if state.tab == ENUMS:
                detail.show(custom_enum_content(document, bool(promoted_in), undo, refusal))
            else:
                detail.show(insight_content(document, promoted_in, undo, refusal))
        status = block(state.status_line())  # plain text: it names modules
        skipped = state.data.skipped if state.data is not None else []
        if skipped:  # damaged history rows left out of what is shown: counted in the warning colour
            status += markup("  ·  [$warning]⚠ $n: damaged rows skipped[/]", n=plural(len(skipped), "warning"))
        self.status_line.update(status)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers what the state allows: no promote on a promoted row, no undo without one."""
        return self.state.can(action)

    def _set_module_options(self, modules: list[str]) -> None:
        module = self.state.module
        names = sorted(set(modules) | ({module} if module else set()))
        if names == self._module_names:
            return
        self._module_names = names
        select = cast("Select[str]", self.module_select)
        # Replacing the options resets the value; neither is the user choosing a module.
        with select.prevent(Select.Changed):
            select.set_options([(Text("All modules"), ALL_MODULES), *((cell(n), n) for n in names)])
            select.value = module or ALL_MODULES

    # ------------------------------------------------------------ selection

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        tab = ENUMS if isinstance(event.data_table, CustomEnumTable) else INSIGHTS
        self.state.highlight(tab, event.cursor_row)
        if tab == self.state.tab:
            self._draw_selection()

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_row()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        tab = ENUMS if event.pane.id == ENUMS_TAB else INSIGHTS
        if tab != self.state.tab:
            self.state.switch_tab()
        self._draw_selection()

    @on(Select.Changed, "#insights-module")
    def _module_chosen(self, event: Select.Changed) -> None:
        module = None if event.value in (ALL_MODULES, Select.NULL) else str(event.value)
        if module != self.state.module:
            self.load(module, same=False)

    # ------------------------------------------------------------ actions

    def action_focus_filter(self) -> None:
        self.module_select.focus()

    def action_switch_tab(self) -> None:
        self.state.switch_tab()
        self.tabs.active = TAB_IDS[self.state.tab]
        (self.enum_table if self.state.tab == ENUMS else self.insight_table).focus()
        self._draw_selection()

    def action_reload(self) -> None:
        self.load()

    def action_close(self) -> None:
        self.dismiss()

    def action_open_row(self) -> None:
        document = self.state.current
        if document is None:
            return
        from .row import InsightRowScreen

        self.app.push_screen(InsightRowScreen(self.state.tab, document, self.state.module))

    def action_promote(self) -> None:
        document = self.state.current
        if document is None or not self.state.can("promote"):
            return
        done = self.state.promoted_in(self.state.tab, document)
        requests = [r for r in promotions.requests_of(self.state.tab, document) if r.module not in done]
        self._choose(requests, "Promote", self._build_plan)

    def action_undo_promotion(self) -> None:
        key = self.state.current_key
        document = self.state.current
        if key is None or document is None or not self.state.can("undo_promotion"):
            return
        if (refusal := self.state.undo_refusal()) is not None:  # said, not only shown in the detail (MIG-10)
            self.notify(refusal, title="Nothing undone", severity="warning", timeout=8, markup=False)
            return
        modules = self.state.undoable.get(key, ())
        requests = [r for r in promotions.requests_of(self.state.tab, document) if r.module in modules]
        self._choose(requests, "Undo the promotion of", self._undo)

    def _choose(self, requests: list[PromotionRequest], verb: str, go: Callable[[PromotionRequest], None]) -> None:
        """One request goes ahead; several (a mapping suggested by several modules) ask which module."""
        if len(requests) == 1:
            go(requests[0])
            return
        if not requests:
            return
        from ..modals import ChoiceModal

        def chosen(ident: str | None) -> None:
            if ident is not None:
                go(requests[int(ident.removeprefix("m"))])

        # Button ids must be identifiers; module names need not be, so the choices are numbered.
        what = requests[0].mapping or requests[0].value
        modal = ChoiceModal(
            f"{verb} {what}",
            f"{len(requests)} modules. Into which module's schema?",
            [(f"m{i}", request.module) for i, request in enumerate(requests)],
        )
        modal.add_class("insights-choice")  # insights.tcss lays many choices out in a grid
        self.app.push_screen(modal, chosen)

    def _build_plan(self, request: PromotionRequest) -> None:
        self.state.start(f"Planning: {request.title}")
        self._draw_selection()
        self._run_promotion(lambda: promotions.build_plan(request, self.bench.store.load))

    def _undo(self, request: PromotionRequest) -> None:
        self.state.start(f"Undoing: {request.title}")
        self._draw_selection()
        self._run_promotion(lambda: promotions.undo(request, self.bench.store.load))

    @work(name="promote an insight", thread=True, exclusive=True, group="insights-promote", exit_on_error=False)
    def _run_promotion(self, job: Callable[[], Message]) -> None:
        self.post_message(job())

    @on(promotions.PlanReady)
    def _preview(self, message: promotions.PlanReady) -> None:
        self.state.finish()
        self._draw_selection()
        self.app.post_message(Navigate(PlanPreview(message.plan, message.title, message.remake)))

    @on(promotions.PromotionFailed)
    def _promotion_failed(self, message: promotions.PromotionFailed) -> None:
        self.state.finish()
        self._draw_selection()
        self.notify(message.error, title=message.title, severity="warning", timeout=8, markup=False)

    @on(promotions.PromotionUndone)
    def _undone(self, message: promotions.PromotionUndone) -> None:
        self.state.finish()
        kept = (
            f"; your later edits are kept in the backup's edited/ ({', '.join(message.edited)})"
            if message.edited
            else ""
        )
        self.notify(f"Restored {', '.join(message.restored) or 'nothing'}{kept}", title=message.title, markup=False)
        if self.state.data is not None:
            self._read_promotions(self.state.data)
        self._draw_selection()
