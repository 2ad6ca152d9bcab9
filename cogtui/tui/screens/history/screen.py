"""A module's past runs, from the history database: open an envelope, re-run its input, compare two runs.

The screen keeps one `RunListState` (core.history.run_list_state) and draws the
title, the marked row, the view pane and the footer's keys from it: the keys that
need a run are offered only when one is highlighted, `d` only once another run is
marked. Module names, provider/model names and error texts come from files and
the history, so they reach widgets as `Text`/`Content` (never parsed as markup).
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.text import Text
from textual import events, getters, on, work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from cogtui.core.files.json_pointer import object_at
from cogtui.core.files.terminal_text import visible
from cogtui.core.history.run_cells import (
    READABLE,
    cut,
    fit_columns,
    provider_model,
    provider_model_header,
    time_cell,
    when_cell,
    width,
)
from cogtui.core.history.run_list_state import NO_RUNS, RUNS_LISTED, ListPhase, RunListState
from cogtui.core.history.store import History, HistoryError, RunRecord
from cogtui.core.run.golden_runner import envelope_diff

from ...keys import KeySpec, bindings, register
from ...messages import Navigate
from ...mounting import while_open
from ...richstyle import themed
from ...shown import assemble, cell
from ...stylesheets import stylesheet
from ...widgets.key_footer import KeyFooter
from ...widgets.text_views import CodeView
from ...worker_failures import ReportsWorkerFailures
from ..run import RunModule

register(
    KeySpec("history.rerun", "r", "rerun", "Re-run", main=True, doc="re-run the input"),
    KeySpec("history.mark", "space", "mark", "Mark", main=True, doc="mark a run to compare"),
    KeySpec("history.compare", "d", "compare", "Diff marked", main=True, doc="diff with the marked run"),
    KeySpec("history.copy", "ctrl+y", "copy", "Copy envelope", doc="copy the envelope"),
    KeySpec("history.close", "escape", "close", "Back", main=True),
)


HEADERS = (" ", "#", "when", "outcome", "conf", "time", "provider/model")


def outcome_label(run: RunRecord) -> tuple[str, str]:
    """The outcome cell's text and its theme colour."""
    if run.outcome == "ok":
        return "✓ ok", "success"
    if run.outcome == "interrupted":
        return "interrupted", "warning"
    return f"✗ {run.error_code or 'error'}", "error"


def outcome_text(app: App[object], run: RunRecord, room: int | None = None) -> Text:
    """The outcome in its theme colour, cut to `room` cells (with an ellipsis) when the table is narrow."""
    text, colour = outcome_label(run)
    return themed(app, text if room is None else cut(text, room), colour, bold=colour == "error")


def plain_cells(run: RunRecord, marked: int | None, date: bool = True) -> tuple[str, ...]:
    """A row's cells before the provider/model, as text (the outcome is drawn in its theme colour)."""
    conf = object_at(run.envelope, "meta").get("confidence")
    return (
        "●" if run.id == marked else "",
        str(run.id),
        when_cell(run.started_at, date),
        outcome_label(run)[0],
        f"{conf:.2f}" if isinstance(conf, (int, float)) else "-",
        time_cell(run.total_ms),
    )


class HistoryScreen(ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("history.tcss")
    BINDINGS = bindings("history.rerun", "history.mark", "history.compare", "history.copy", "history.close")
    HELP = "Past runs of this module. Space marks one run; d diffs it with the highlighted run."

    runs_table = getters.query_one("#history-table", DataTable)
    title_line = getters.query_one("#history-title", Static)
    envelope_view = getters.query_one("#history-view", CodeView)  # the highlighted run's envelope, or a diff

    class Loaded(Message):
        def __init__(self, runs: list[RunRecord], error: str | None = None, total: int = 0) -> None:
            super().__init__()
            self.runs = runs
            self.error = error
            self.total = total

    def __init__(self, module_path: Path) -> None:
        super().__init__()
        self.module_path = module_path
        self.module_name = module_path.name
        self.state = RunListState(self.module_name)  # what the title, table mark, view and footer show
        self.fitted_to: int | None = None  # the room the provider/model cells were fitted to
        self.widths: list[int] = []  # the widths the short columns' cells were cut to (TUI-8)

    @property
    def runs(self) -> dict[str, RunRecord]:
        """The listed runs by id (tests read them)."""
        return {str(r.id): r for r in self.state.runs}

    def compose(self) -> ComposeResult:
        with Horizontal(id="history-main"):
            with Vertical(id="history-left"):
                yield Static(id="history-title")
                yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
            yield CodeView(id="history-view")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        self.runs_table.add_columns(*HEADERS)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._draw()

    def on_screen_resume(self) -> None:
        """Read the runs each time the screen is shown: a re-run started here, or a run elsewhere, is listed."""
        self.load()

    def _theme_changed(self, _theme: object) -> None:
        """Outcome cells carry the theme's colours (Rich text): drawn again in the new theme's."""
        table = self.runs_table
        column = table.ordered_columns[3].key
        for run in self.state.runs:
            table.update_cell(str(run.id), column, outcome_text(self.app, run, self._outcome_room()))

    def _outcome_room(self) -> int | None:
        return self.widths[3] if self.widths else None

    @work(name="read the history", thread=True, exclusive=True, group="history-load", exit_on_error=False)
    def load(self) -> None:
        try:
            with History.open_default() as history:
                runs = history.runs(self.module_name, limit=RUNS_LISTED)
                total = history.count(self.module_name) if len(runs) == RUNS_LISTED else len(runs)
        except HistoryError as exc:
            self.post_message(self.Loaded([], str(exc)))
            return
        self.post_message(self.Loaded(runs, total=total))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        if event.error:
            self.state.failed(event.error)
        elif not self.state.loaded(event.runs, event.total):
            return  # the runs already shown
        self._fill()
        self._draw()
        self.call_after_refresh(self._refit)  # filled before the table had its final width: fitted again to it

    def _fill(self) -> None:
        """The table from the state: the short columns as they are, the provider/model fitted to the room left
        (core.history.run_cells, TUI-8); in a narrow terminal `when` gives up its date first."""
        table = self.runs_table
        rows, room, self.widths = self._layout()
        self.fitted_to = room
        table.clear(columns=True)
        header = provider_model_header(room)
        labels = [
            provider_model(visible(run.provider, True), visible(run.model, True) if run.model else None, room)
            for run in self.state.runs
        ]
        # Each column as wide as fitted (its cells are cut to it), not sized by the table when it is next idle:
        # a busy app may not be for seconds, and showed the new cells in the old widths meanwhile.
        model_width = max([width(header), *map(width, labels)])
        for name, fitted in [*zip(HEADERS[:-1], self.widths, strict=True), (header, model_width)]:
            table.add_column(name, width=fitted)
        for run, plain, label in zip(self.state.runs, rows, labels, strict=True):
            cells = [cut(text, w) for text, w in zip(plain, self.widths, strict=True)]
            outcome = outcome_text(self.app, run, self.widths[3])
            table.add_row(*cells[:3], outcome, *cells[4:], cell(label), key=str(run.id))
        if self.state.runs:
            table.move_cursor(row=self.state.cursor, animate=False)
            table.focus()

    def _layout(self) -> tuple[list[tuple[str, ...]], int, list[int]]:
        """The rows' short cells, the cells the provider/model text can take beside them in the table's width now
        (with dates while that leaves the model's name READABLE cells, else without), and the widths the short
        cells are cut to so that the table fits (`fit_columns`: the outcome gives up its end first, TUI-8)."""
        table = self.runs_table
        available = table.content_region.width
        if len(self.state.runs) >= table.content_region.height:  # the header takes a line: the rows scroll
            available -= table.styles.scrollbar_size_vertical
        for date in (True, False):
            rows = [plain_cells(run, self.state.marked, date) for run in self.state.runs]
            widths = [max([width(header), *(width(row[i]) for row in rows)]) for i, header in enumerate(HEADERS[:-1])]
            floors = [width(HEADERS[3]) if i == 3 else w for i, w in enumerate(widths)]  # only the outcome is cut
            widths, room = fit_columns(available, widths, floors)
            if room >= READABLE:
                break
        return rows, room, widths

    @while_open
    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self._refit)

    @while_open
    def _refit(self) -> None:
        """A new terminal width: the table is filled again when the room for the provider/model changed. Nothing
        once the screen is closed (`while_open`: a refit asked for just before escape, or as it was popped while
        mounting, finds no table)."""
        if self.state.runs and self._layout()[1:] != (self.fitted_to, self.widths):
            self._fill()

    def _draw(self) -> None:
        """The title, the view pane (what the phase says, or the highlighted run) and the footer's keys."""
        state = self.state
        self._draw_title()
        view = self.envelope_view
        if state.phase is ListPhase.LOADING:
            view.show_text("[$text-muted]loading…[/]")
        elif state.phase is ListPhase.FAILED:
            view.show_plain(state.error, "$error")
        elif state.phase is ListPhase.EMPTY:
            view.show_plain(NO_RUNS, "$text-muted")
        elif (run := state.current) is not None:
            view.show_json(run.envelope)
        self.refresh_bindings()

    def _draw_title(self) -> None:
        """The module's name in bold, the rest as the state says it (Content: names are never markup)."""
        text, name = self.state.title(), self.module_name
        self.title_line.update(assemble((name, "bold"), text[len(name) :]))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.state.can(action)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.state.highlight(event.cursor_row)
        self._draw()

    def action_mark(self) -> None:
        table = self.runs_table
        before = self.state.find(self.state.marked)
        run = self.state.mark()
        if run is None:
            return
        column = table.ordered_columns[0].key
        if before is not None:
            table.update_cell(str(before.id), column, "")
        table.update_cell(str(run.id), column, "●")
        self._draw_title()
        self.refresh_bindings()
        self.notify(f"Run #{run.id} marked; highlight another and press d to compare.")

    def action_compare(self) -> None:
        pair = self.state.comparison()
        if pair is None:
            return
        base, run = pair
        diff = envelope_diff(base.envelope, run.envelope).replace("--- expected", f"--- run #{base.id}", 1)
        diff = diff.replace("+++ actual", f"+++ run #{run.id}", 1)
        self.envelope_view.show_diff(diff, empty=f"runs #{base.id} and #{run.id} have the same envelope")

    def action_rerun(self) -> None:
        run = self.state.current
        if run is None:
            return
        self.app.post_message(Navigate(RunModule(self.module_path, input_value=run.input, autorun=True)))

    def action_copy(self) -> None:
        run = self.state.current
        if run is not None:
            self.app.copy_to_clipboard(json.dumps(run.envelope, indent=2, ensure_ascii=False))
            self.notify("Envelope copied (OSC 52)")

    def action_close(self) -> None:
        self.dismiss(None)
