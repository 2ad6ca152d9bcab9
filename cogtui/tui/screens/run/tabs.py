"""The run screen's tabs: each run opens one, and every run ends here (cancelled, or recorded in the history).

A run (`RunPane`) or one input run on two targets side by side (`ComparePane`, decision TUI-19) opens a new tab
and starts at once; past MAX_TABS the oldest finished tabs go. When a run ends, its `Finished` (a compare's
`SideFinished`, per side) bubbles up to this widget: the pane draws its final state, what the run came to is said
(cancelled, the runner's warnings), and its result is written to the history in a thread worker. The screen's
`settled` callback is called after each of these, so closing the screen or quitting the app can wait until no run
is running and every record is written (`busy`). It is its own widget because it is the one place that knows
which runs are running and which records are still being written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.dom import DOMNode
from textual.widgets import TabbedContent, TabPane
from textual.worker import Worker

from cogtui.core.run.run_state import Phase
from cogtui.core.run.runner import RunOptions

from ...messages import HistoryWaiting
from ...shown import line
from ...widgets.compare_pane import ComparePane
from ...widgets.run_pane import RunPane, RunRequest
from ...worker_failures import ReportsWorkerFailures

MAX_TABS = 8


def running_in(node: DOMNode) -> list[RunPane | ComparePane]:
    """The runs still running under `node` (a screen not yet composed has none)."""
    return [p for p in [*node.query(RunPane), *node.query(ComparePane)] if p.running]


class RunTabs(ReportsWorkerFailures, TabbedContent):
    def __init__(self, settled: Callable[[], object], *, id: str) -> None:
        super().__init__(id=id)
        self.settled = settled  # called whenever a run or a record ends: the screen checks `busy` and goes on
        self.opened = 0  # runs opened so far: a tab's number
        self._records: set[Worker[None]] = set()  # history records still being written

    # ------------------------------------------------------------ opening

    async def open_run(self, request: RunRequest, options: RunOptions, label: str) -> None:
        """A new tab for the run, started at once."""
        pane = RunPane(request, options)
        await self._add(pane, label)
        pane.start()

    async def open_compare(
        self, requests: list[RunRequest], options: list[RunOptions], labels: list[str], prices: dict[str, Any]
    ) -> None:
        """A new tab running the input on both targets at once, side by side."""
        pane = ComparePane(requests, options, labels, prices)
        await self._add(pane, " vs ".join(labels))
        pane.start()

    async def _add(self, pane: RunPane | ComparePane, label: str) -> None:
        self.opened += 1
        if self.query("#run-empty"):
            await self.remove_pane("run-empty")
        panes = [p for p in self.query(TabPane) if p.id and p.id.startswith("run-tab-")]
        for old in panes[: max(0, len(panes) - MAX_TABS + 1)]:  # keep the newest tabs
            if not running_in(old):
                await self.remove_pane(old.id or "")
        pane_id = f"run-tab-{self.opened}"
        # The model name is typed: literal.
        await self.add_pane(TabPane(line(f"{self.opened} · {label}"), pane, id=pane_id))
        self.active = pane_id

    # ------------------------------------------------------------ which runs

    def active_run(self) -> RunPane | None:
        """The single run in the tab shown (None for a compare tab or no run)."""
        active = self.active_pane
        return active.query_one(RunPane) if active is not None and active.query(RunPane) else None

    def cancel_active(self) -> bool:
        """Cancel the run(s) in the tab shown; False when none of them was running."""
        active = self.active_pane
        jobs = [*active.query(RunPane), *active.query(ComparePane)] if active is not None else []
        return any(job.cancel() for job in jobs)

    def busy(self) -> bool:
        """A run is still running or a record is still being written."""
        return bool(running_in(self) or self._records)

    # ------------------------------------------------------------ a run's end

    @on(RunPane.Finished)
    def _finished(self, event: RunPane.Finished) -> None:
        event.pane.finish(event.result)
        if event.pane.state.phase is Phase.CANCELLED:  # what "Cancelling the run…" came to
            self.notify(
                "The run was cancelled: its provider request is closed, and the history records it as interrupted.",
                title="Run cancelled",
            )
        if event.result is not None:
            self._records.add(self.record(event.request, event.result))
            if event.result.warnings:
                self.notify("\n".join(event.result.warnings), title="Run warnings", severity="warning", markup=False)
        self.settled()

    @on(ComparePane.SideFinished)
    def _side_finished(self, event: ComparePane.SideFinished) -> None:
        event.pane.side_done(event.index, event.result)
        if event.result is not None:
            self._records.add(self.record(event.pane.requests[event.index], event.result))
        self.settled()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker in self._records and event.worker.is_finished:
            self._records.discard(event.worker)
            self.settled()

    @work(name="record a run", thread=True, group="record", exit_on_error=False)
    def record(self, request: RunRequest, result: Any) -> None:
        """Into the history, else its outbox (run_record.record_run); the browser's status counts what waits."""
        from cogtui.core.history.run_record import record_run, to_record
        from cogtui.core.history.store import HistoryError

        try:
            recorded = record_run(to_record(request.module, request.input, request.args, result))
        except HistoryError as exc:
            self.app.call_from_thread(self.notify, f"The run was not recorded: {exc}", severity="warning", markup=False)
            return
        self.app.post_message(HistoryWaiting(recorded.waiting))
        if (warning := recorded.warning()) is not None:
            self.app.call_from_thread(self.notify, warning[0].upper() + warning[1:], severity="warning", markup=False)
