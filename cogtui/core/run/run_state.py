"""One run as a screen shows it: a single state object the run's chunks and its result update.

Every part of the run pane (meta card, progress line and bar, timings, outcome) is drawn from this
object, so they cannot disagree. Done, failed and cancelled are final: nothing that arrives after
(a late chunk, a stale progress event) changes a finished run. The first-chunk time is the runner's
own measure, set once and never revised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Phase(StrEnum):
    STARTING = "starting"  # no chunk with content yet
    STREAMING = "streaming"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINAL = frozenset({Phase.DONE, Phase.FAILED, Phase.CANCELLED})


@dataclass
class RunState:
    module: str
    phase: Phase = Phase.STARTING
    chunks: int = 0
    percent: float | None = None
    stage: str = ""
    message: str = ""
    heartbeat: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    first_chunk_ms: float | None = None
    total_ms: float | None = None
    error_code: str | None = None
    error_message: str = ""

    @property
    def final(self) -> bool:
        return self.phase in FINAL

    def saw_content(self, first_chunk_ms: float | None) -> None:
        """A chunk that carries part of the answer; `first_chunk_ms` is the runner's measure (or None)."""
        if self.final:
            return
        self.chunks += 1
        self.heartbeat = False
        self.phase = Phase.STREAMING
        if self.first_chunk_ms is None and first_chunk_ms is not None:
            self.first_chunk_ms = first_chunk_ms

    def saw_meta(self, meta: dict[str, Any]) -> None:
        if not self.final:
            self.meta = dict(meta)

    def saw_progress(self, percent: Any, stage: Any, message: Any) -> None:
        if self.final:
            return
        if isinstance(percent, (int, float)) and not isinstance(percent, bool):
            self.percent = max(0.0, min(100.0, float(percent)))
        self.stage, self.message = str(stage or ""), str(message or "")

    def saw_heartbeat(self) -> None:
        if not self.final:
            self.heartbeat = True

    def ended(
        self, envelope: dict[str, Any], interrupted: bool, first_chunk_ms: float | None, total_ms: float | None
    ) -> None:
        """The run's result: the final state, once."""
        if self.final:
            return
        ok = envelope.get("ok") is True
        self.phase = Phase.CANCELLED if interrupted else Phase.DONE if ok else Phase.FAILED
        meta = envelope.get("meta")
        if isinstance(meta, dict):
            self.meta = dict(meta)
        err = envelope.get("error")
        if isinstance(err, dict):
            self.error_code, self.error_message = str(err.get("code")), str(err.get("message", ""))
        if self.first_chunk_ms is None:
            self.first_chunk_ms = first_chunk_ms
        self.total_ms = total_ms
        if self.phase is Phase.DONE:
            self.percent = 100.0

    def progress_line(self) -> str:
        """What the progress line says, in words."""
        if self.phase is Phase.STARTING:
            return "waiting for the model (heartbeat)…" if self.heartbeat else "waiting for the first chunk…"
        if self.phase is Phase.STREAMING:
            if self.stage:
                return f"{self.stage} {self.message}".strip()
            return f"streaming · {self.chunks} chunk{'s' * (self.chunks != 1)}"
        if self.phase is Phase.DONE:
            return "done"
        if self.phase is Phase.CANCELLED:
            return "cancelled (recorded as interrupted)"
        return "failed"

    def timings(self, elapsed_ms: float) -> str:
        """First-chunk and total (or running) time; `elapsed_ms` is used while the run is not final."""
        first = f"first chunk {self.first_chunk_ms:.0f} ms · " if self.first_chunk_ms is not None else ""
        if self.final:
            return f"{first}total {self.total_ms or 0:.0f} ms"
        return f"{first}running {elapsed_ms / 1000:.1f} s"
