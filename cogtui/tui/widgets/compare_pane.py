"""Two runs of one input side by side (the run screen's `ctrl+r` with a second target): a head line per target
(its outcome, latency and cost), then every field of the two envelopes in one table, the differing ones marked.

Both runs go in one worker, concurrently; each side's result is posted as it ends (`SideFinished`), and the
run screen's tabs record it in history as any run. Everything drawn comes from the pane's `CompareState`
(core/run/compare_state.py). Model-written values reach the table as literal text (`cell`), never markup.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import getters
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import Worker

from cogtui.core.run.compare_state import CompareState
from cogtui.core.run.runner import RunOptions, RunResult, RunSession

from ..richstyle import themed
from ..shown import block, cell, styled
from ..worker_failures import ReportsWorkerFailures
from .run_pane import RunRequest

DIFFERS = "≠"


class ComparePane(ReportsWorkerFailures, Vertical):
    class SideFinished(Message):
        def __init__(self, pane: ComparePane, index: int, result: RunResult | None) -> None:
            super().__init__()
            self.pane, self.index, self.result = pane, index, result

    # Composed once, there for the pane's life.
    left_head = getters.query_one("#compare-left", Static)
    right_head = getters.query_one("#compare-right", Static)
    summary = getters.query_one(".compare-summary", Static)
    table = getters.query_one(DataTable)

    def __init__(
        self, requests: list[RunRequest], options: list[RunOptions], labels: list[str], prices: dict[str, Any]
    ) -> None:
        super().__init__(classes="compare-pane")
        self.requests, self.options, self.prices = requests, options, prices
        self.state = CompareState.of(labels[0], labels[1])
        self.results: list[RunResult | None] = [None, None]
        self.running = False

    def compose(self) -> ComposeResult:
        with Horizontal(classes="compare-heads"):
            yield Static("", classes="compare-head", id="compare-left")
            yield Static("", classes="compare-head", id="compare-right")
        yield Static("", classes="compare-summary")
        table: DataTable[Any] = DataTable(classes="compare-table", cursor_type="row", zebra_stripes=True)
        yield table

    def on_mount(self) -> None:
        table = self.table
        table.add_column("", key="mark")
        table.add_column("field", key="field")
        for side, key in zip(self.state.sides, ("left", "right"), strict=True):
            table.add_column(cell(side.label), key=key)
        self.render_state()

    def start(self) -> None:
        self.running = True
        _run: Worker[None] = self.run_worker(self._execute, group="compare", name="compare runs", exit_on_error=False)

    async def _execute(self) -> None:
        await asyncio.gather(self._side(0), self._side(1))

    async def _side(self, index: int) -> None:
        session = RunSession(self.requests[index].module, self.requests[index].input, self.options[index])
        try:
            async for _event in session.events():
                pass
        except asyncio.CancelledError:
            self.post_message(self.SideFinished(self, index, session.result))
            raise
        finally:
            await self.options[index].provider.aclose()
        self.post_message(self.SideFinished(self, index, session.result))

    def cancel(self) -> bool:
        if not self.running:
            return False
        self.workers.cancel_group(self, "compare")
        return True

    def side_done(self, index: int, result: RunResult | None) -> None:
        """Called by the run screen's tabs, on `SideFinished`: the side's final state (a late second result changes nothing)."""
        envelope = result.envelope if result is not None else {"ok": False}
        interrupted = result.interrupted if result is not None else True
        cost = None
        if result is not None and result.usage is not None:
            from cogtui.core.settings.prices import price_for

            price = price_for(result.model or result.provider, self.prices)
            cost = None if price is None else round(price.cost(result.usage), 8)
        if self.state.finished(index, envelope, interrupted, result.total_ms if result else None, cost):
            self.results[index] = result
        self.running = self.state.running
        self.render_state()

    def render_state(self) -> None:
        """Heads, summary and the field table, from the state."""
        for side, head in zip(self.state.sides, (self.left_head, self.right_head), strict=True):
            head.update(block(side.line()))
        self.summary.update(styled(self.state.summary(), "$text-muted"))
        table = self.table
        table.clear()
        if self.state.running:
            return
        for row in self.state.rows():
            mark = themed(self.app, DIFFERS, "warning", bold=True) if row.differs else cell("")
            table.add_row(mark, cell(row.path), cell(row.left), cell(row.right))
