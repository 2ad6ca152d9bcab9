"""From a finished run to its history record, and the record into the history or, failing that, its outbox."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogtui.core.history.location import HistoryLocation, default_location
from cogtui.core.history.outbox import Outbox
from cogtui.core.history.store import History, HistoryConfigError, HistoryError, RunRecord
from cogtui.core.module.model import Module
from cogtui.core.run.runner import RunResult


def to_record(module: Module, input_value: Any, args: str | None, result: RunResult) -> RunRecord:
    started = time.time() - (result.total_ms or 0) / 1000
    return RunRecord(
        module=module.name,
        module_version=module.version,
        module_format=module.format.value,
        provider=result.provider,
        model=result.model,
        input=input_value,
        args=args,
        envelope=result.envelope,
        started_at=started,
        ttfc_ms=result.ttfc_ms,
        total_ms=result.total_ms,
        usage=result.usage,
        outcome=result.outcome,
        session_id=result.session_id,
    )


@dataclass
class Recorded:
    """Where a run went: stored (`run_id`), or kept in the outbox (`kept`, with the history's error)."""

    run_id: int | None = None
    kept: Path | None = None
    problem: str | None = None  # why it was not stored
    waiting: int = 0  # runs waiting in the history's outbox now (this one included when it was kept)
    notes: list[str] = field(default_factory=list)  # what the open's delivery of earlier kept runs did

    def warning(self) -> str | None:
        """The one sentence to show when the run was not stored; None when it was."""
        if self.kept is None:
            return None
        others = f", {self.waiting:,} runs waiting in all" if self.waiting > 1 else ""
        return (
            f"the run was not recorded: {self.problem}. It is kept in {self.kept}{others}, and will be recorded "
            "the next time cogtui opens that history (any cogn command, or cogtui), or by `cogn history flush`"
        )


def record_run(run: RunRecord, location: HistoryLocation | None = None) -> Recorded:
    """Store the run in its history (the configured one by default); if the history cannot take it, keep it in
    the history's outbox. Raises HistoryConfigError when the location itself is unusable (nothing can be kept
    for it), and HistoryError when the run could neither be stored nor kept (the message says both)."""
    location = location or default_location()
    try:
        with History(location) as history:
            run_id = history.record(run)
            return Recorded(run_id=run_id, waiting=history.waiting, notes=history.delivery.notes(history.outbox))
    except HistoryConfigError:
        raise
    except HistoryError as exc:
        return keep_run(run, location, str(exc))


def keep_run(run: RunRecord, location: HistoryLocation, why: str) -> Recorded:
    """Keep a run its history could not take (`why`) in that history's outbox; HistoryError when it cannot be
    kept either (the message says both)."""
    outbox = Outbox(location)
    try:
        waiting = outbox.keep(run, why)
    except OSError as kept_exc:
        raise HistoryError(
            location.display,
            f"{why}; nor could the run be kept in {outbox.path} ({kept_exc.strerror or kept_exc}): it is lost",
        ) from kept_exc
    return Recorded(kept=outbox.path, problem=why, waiting=waiting)


def deliver_waiting(location: HistoryLocation | None = None) -> int:
    """Deliver the configured history's outbox if it holds anything (cogtui does this as it starts); returns how
    many runs are still waiting. Never raises: a history that cannot be opened leaves them waiting."""
    try:
        location = location or default_location()
    except HistoryError:
        return 0  # a location cogtui cannot use keeps no outbox
    outbox = Outbox(location)
    if not outbox.waiting():
        return 0  # the common case: one stat, no database opened
    try:
        with History(location) as history:
            return history.waiting
    except HistoryError:
        return outbox.waiting()
