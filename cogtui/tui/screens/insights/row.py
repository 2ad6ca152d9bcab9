"""One row of the insights dashboard opened (`enter`): every sample in full and the runs behind it.

The runs are read from the history in a thread worker (`read_row_runs`), which posts one message;
until it answers the screen says it is reading, and a failed read is shown as failed. Everything
shown comes from model output via the history: it reaches the screen as `Content`, never as markup.
"""

from __future__ import annotations

from typing import Any

from textual import getters, on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from cogtui.core.diagnostics import plural
from cogtui.core.files.terminal_text import visible
from cogtui.core.history.dashboard import read_row_runs
from cogtui.core.history.dashboard_state import ENUMS
from cogtui.core.history.store import HistoryError

from ...keys import KeySpec, bindings, register
from ...mounting import while_open
from ...shown import block, markup
from ...stylesheets import stylesheet
from ...widgets.insight_tables import NO_MAPPING
from ...widgets.key_footer import KeyFooter
from ...worker_failures import ReportsWorkerFailures

register(KeySpec("insight_row.close", "escape", "close", "Back", main=True, doc="insights row: back"))


def _text(value: Any) -> str:
    return visible(str(value), True) if value is not None else ""


def row_title(tab: str, document: dict[str, Any]) -> Content:
    if tab == ENUMS:
        return markup(
            "[b]$value[/b]  ·  $field in $module",
            value=_text(document["value"]),
            field=_text(document["field"]),
            module=_text(document["module"]),
        )
    mapping = document["suggested_mapping"]
    return markup("[b]$name[/b]", name=_text(mapping) if mapping is not None else NO_MAPPING)


def runs_content(tab: str, found: dict[str, Any]) -> Content:
    """Each item (newest first): its full text (an enum use: its reason), evidence, and the run it came from."""
    items = found["items"]
    parts = [
        markup("$runs behind this row; the newest $n shown", runs=plural(found["runs"], "run"), n=str(len(items))),
        Content(""),
    ]
    for item in items:
        parts.append(
            markup(
                "[$accent]run $id[/]  [$text-muted]$module · $ts · $provider $model[/]",
                id=str(item["run_id"]),
                module=_text(item["module"]),
                ts=item["ts"],
                provider=_text(item["provider"]),
                model=_text(item["model"]),
            )
        )
        if tab == ENUMS:
            parts.append(markup("  reason: $reason", reason=_text(item["detail"]) or "(none given)"))
        else:
            parts.append(markup("  $text", text=_text(item["text"])))
            if item["detail"]:
                parts.append(markup("  [$text-muted]evidence:[/] $evidence", evidence=_text(item["detail"])))
        parts.append(Content(""))
    return Content("\n").join(parts)


class InsightRowScreen(ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("insights.tcss")
    BINDINGS = bindings("insight_row.close")
    HELP = "One row of the insights dashboard: every sample in full, and the runs it came from."

    body = getters.query_one("#insight-row-body", VerticalScroll)
    runs_text = getters.query_one("#insight-row-runs", Static)  # "reading...", then the runs

    class RunsRead(Message):
        def __init__(self, found: dict[str, Any] | None, error: str = "") -> None:
            super().__init__()
            self.found, self.error = found, error

    def __init__(self, tab: str, document: dict[str, Any], module: str | None) -> None:
        super().__init__()
        self.tab, self.document, self.module = tab, document, module
        self.phase = "reading"  # then "ready" or "failed": final

    def compose(self) -> ComposeResult:
        yield Static(row_title(self.tab, self.document), id="insight-row-title")
        with VerticalScroll(id="insight-row-body"):
            yield Static("Reading the runs behind this row…", id="insight-row-runs")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        self.body.focus()
        self._read()

    @work(name="read the insight's runs", thread=True, exclusive=True, group="insight-row", exit_on_error=False)
    def _read(self) -> None:
        d = self.document
        try:
            if self.tab == ENUMS:
                found = read_row_runs(module=str(d["module"]), field=str(d["field"]), value=str(d["value"]))
            else:
                found = read_row_runs(mapping=d["suggested_mapping"], module=self.module)
        except HistoryError as exc:
            self.post_message(self.RunsRead(None, str(exc)))
            return
        self.post_message(self.RunsRead(found))

    @on(RunsRead)
    def _runs_read(self, message: RunsRead) -> None:
        body = self.runs_text
        if message.found is None:
            self.phase = "failed"
            body.update(block(f"The run history could not be read: {message.error}"))
            return
        self.phase = "ready"
        body.update(runs_content(self.tab, message.found))

    def action_close(self) -> None:
        self.dismiss()
