"""One path for a worker's unexpected failure: `WorkerFailed`, posted to the app, shown by its one handler.

Workers catch the failures they expect (a missing provider key, a bad plan
file) and post them as their own messages. Anything else fails the worker:
every worker runs with `exit_on_error=False` (tested), so the app never exits
on it, and every class that runs workers mixes in `ReportsWorkerFailures`,
which turns the worker's ERROR state into a `WorkerFailed` for the app
(Textual's `Worker.StateChanged` does not bubble). The app's handler notifies
once, with the text made safe for the terminal and no traceback.
"""

from __future__ import annotations

from textual.message import Message
from textual.worker import Worker, WorkerState

from cogtui.core.files.terminal_text import visible

DETAIL_LIMIT = 300  # characters of the error shown: a message, not a dump


class WorkerFailed(Message):
    """A worker raised what it did not expect: `what` it was doing and the error, both safe to show."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__()
        self.what, self.detail = what, detail

    @classmethod
    def of(cls, worker: Worker[object]) -> WorkerFailed:
        error = worker.error
        text = f"{type(error).__name__}: {error}" if error is not None else "unknown error"
        detail = visible(text, single_line=True)
        if len(detail) > DETAIL_LIMIT:
            detail = detail[: DETAIL_LIMIT - 1] + "…"
        return cls(visible(worker.name or worker.group, single_line=True), detail)


class ReportsWorkerFailures:
    """Mixed into the app and every screen or widget that runs workers: a failed worker becomes `WorkerFailed`.

    Textual calls this handler as well as any `on_worker_state_changed` of a subclass.
    """

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            event.worker.node.app.post_message(WorkerFailed.of(event.worker))
