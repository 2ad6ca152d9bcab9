"""A module's past runs, from the history database: open an envelope, re-run its input, compare two runs.

Module names, provider/model names and error texts come from files and the
history, so they reach widgets as `Text`/`Content` (never parsed as markup).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from cogtui.core.files.json_pointer import object_at
from cogtui.core.files.terminal_text import visible
from cogtui.core.history.store import History, HistoryError, RunRecord
from cogtui.core.run.golden_runner import envelope_diff

from ..keys import KeySpec, bindings, register
from ..messages import Navigate, RunModule
from ..richstyle import themed
from ..shown import cell, markup
from ..widgets.text_views import CodeView
from ..worker_failures import ReportsWorkerFailures

register(
    KeySpec("history.rerun", "r", "rerun", "Re-run", main=True),
    KeySpec("history.mark", "space", "mark", "Mark", main=True),
    KeySpec("history.compare", "d", "compare", "Diff marked", main=True),
    KeySpec("history.copy", "ctrl+y", "copy", "Copy envelope"),
    KeySpec("history.close", "escape", "close", "Back", main=True),
)


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%m-%d %H:%M:%S")


def outcome_text(app: App[object], run: RunRecord) -> Text:
    if run.outcome == "ok":
        return themed(app, "✓ ok", "success")
    if run.outcome == "interrupted":
        return themed(app, "interrupted", "warning")
    return themed(app, f"✗ {run.error_code or 'error'}", "error", bold=True)


class HistoryScreen(ReportsWorkerFailures, Screen[None]):
    CSS_PATH = Path(__file__).parent.parent / "styles" / "history.tcss"
    BINDINGS = bindings("history.rerun", "history.mark", "history.compare", "history.copy", "history.close")
    HELP = "Past runs of this module. Space marks one run; d diffs it with the highlighted run."

    class Loaded(Message):
        def __init__(self, runs: list[RunRecord], error: str | None = None) -> None:
            super().__init__()
            self.runs = runs
            self.error = error

    def __init__(self, module_path: Path) -> None:
        super().__init__()
        self.module_path = module_path
        self.module_name = module_path.name
        self.runs: dict[str, RunRecord] = {}
        self.marked: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="history-main"):
            with Vertical(id="history-left"):
                yield Static(markup("[b]$name[/] — runs", name=self.module_name), id="history-title")
                yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
            yield CodeView(id="history-view")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # provider/model last: at 80 columns it is the one scrolled off (the envelope's meta.model shows it too).
        table.add_columns(" ", "#", "when", "outcome", "conf", "time", "provider/model")
        self.query_one(CodeView).show_text("[$text-muted]loading…[/]")
        self.load()

    @work(thread=True, exclusive=True, group="history-load", exit_on_error=False)
    def load(self) -> None:
        try:
            with History.open_default() as history:
                runs = history.runs(self.module_name, limit=500)
        except HistoryError as exc:
            self.post_message(self.Loaded([], str(exc)))
            return
        self.post_message(self.Loaded(runs))

    @on(Loaded)
    def _loaded(self, event: Loaded) -> None:
        table = self.query_one(DataTable)
        table.clear()
        self.runs.clear()
        if event.error:
            self.query_one(CodeView).show_plain(event.error, "$error")
            return
        if not event.runs:
            self.query_one(CodeView).show_text(
                "[$text-muted]No runs of this module yet. Press r on it in the browser to run it.[/]"
            )
            return
        for run in event.runs:
            key = str(run.id)
            self.runs[key] = run
            meta = object_at(run.envelope, "meta")
            conf = meta.get("confidence")
            table.add_row(
                "",
                key,
                _when(run.started_at),
                outcome_text(self.app, run),
                f"{conf:.2f}" if isinstance(conf, (int, float)) else "-",
                f"{run.total_ms:.0f} ms" if run.total_ms is not None else "-",
                cell(visible(f"{run.provider}/{run.model or '-'}", True)),
                key=key,
            )
        table.focus()

    def _current(self) -> RunRecord | None:
        table = self.query_one(DataTable)
        if not self.runs or table.cursor_row < 0:
            return None
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        return self.runs.get(str(key))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        run = self.runs.get(str(event.row_key.value))
        if run is not None:
            self.query_one(CodeView).show_json(run.envelope)

    def action_mark(self) -> None:
        run = self._current()
        if run is None:
            return
        table = self.query_one(DataTable)
        if self.marked is not None and self.marked in self.runs:
            table.update_cell(self.marked, table.ordered_columns[0].key, "")
        self.marked = str(run.id)
        table.update_cell(self.marked, table.ordered_columns[0].key, "●")
        self.notify(f"Run #{run.id} marked; highlight another and press d to compare.")

    def action_compare(self) -> None:
        run = self._current()
        if run is None or self.marked is None or self.marked not in self.runs:
            self.notify("Mark a run with space first.", severity="warning")
            return
        base = self.runs[self.marked]
        diff = envelope_diff(base.envelope, run.envelope).replace("--- expected", f"--- run #{base.id}", 1)
        diff = diff.replace("+++ actual", f"+++ run #{run.id}", 1)
        self.query_one(CodeView).show_diff(diff, empty=f"runs #{base.id} and #{run.id} have the same envelope")

    def action_rerun(self) -> None:
        run = self._current()
        if run is None:
            return
        self.app.post_message(Navigate(RunModule(self.module_path, input_value=run.input, autorun=True)))

    def action_copy(self) -> None:
        run = self._current()
        if run is not None:
            self.app.copy_to_clipboard(json.dumps(run.envelope, indent=2, ensure_ascii=False))
            self.notify("Envelope copied (OSC 52)")

    def action_close(self) -> None:
        self.dismiss(None)
