"""One run as a screen shows it: a single state object the run's chunks and its result update.

Every part of the run pane (meta card, progress line and bar, timings, outcome) is drawn from this
object, so they cannot disagree. Done, failed and cancelled are final: nothing that arrives after
(a late chunk, a stale progress event) changes a finished run. The first-chunk time is the runner's
own measure, set once and never revised.

The run screen around the panes has its own: `RunScreenState`, its title (module, provider, model) and what
the run key's presses mean (`RunPresses`: a burst is one run, a press while the module is read is kept).
"""

from __future__ import annotations

import time
from collections.abc import Callable
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

    def card(self) -> tuple[dict[str, Any], str]:
        """What the meta card shows: the meta, and a word standing for what it leaves out. A cancelled run has no
        confidence or risk of its own (the runtime's envelope for it carries placeholders): only its explain, and
        "cancelled" in their place."""
        if self.phase is Phase.CANCELLED:
            explain = self.meta.get("explain")
            return ({"explain": explain} if explain else {}), "cancelled"
        return self.meta, ""

    def bar(self) -> float | bool | None:
        """The progress bar: a percent, True for an indeterminate bar (streaming with no percent), or None for no
        bar (a run that did not finish reached no 100 %; before the first chunk nothing is known)."""
        if self.phase is Phase.DONE:
            return 100.0
        if self.phase in (Phase.FAILED, Phase.CANCELLED):
            return None
        if self.percent is not None:
            return self.percent
        return True if self.phase is Phase.STREAMING else 0.0

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


# ------------------------------------------------------------ the run screen: its title and the run key

BURST_WINDOW = 0.5  # seconds: a press less than this after the one before belongs to its burst (D180)


class Press(StrEnum):
    """What one press of the run key does."""

    START = "start"  # a run starts now
    KEPT = "kept"  # the module is not ready (being read): the run starts as soon as it is
    FOLDED = "folded"  # part of a burst whose run is already started or kept: no second run


@dataclass
class RunPresses:
    """The run key's presses on one run screen (D180). A press less than `window` seconds after the previous
    one is part of its burst and starts nothing more: a burst is one run, never one per press, and a run that
    is already streaming is not started again by it. A press while the module is being read (as the screen
    opens, or again for a run) is kept, and its run starts once the module is ready. A press after the window
    starts one more run, in its own tab; the runs already going keep going (D180).

    `clock` gives the time of a press when the caller does not know it (`pressed(at=None)`): the screen passes
    the time the key arrived from the terminal, tests a clock of their own."""

    clock: Callable[[], float] = time.monotonic
    window: float = BURST_WINDOW
    last: float | None = None  # when the latest press came
    kept: bool = False  # a press waits for the module
    burst: int = 0  # how many presses the latest burst counts (its first included)
    runs: int = 0  # how many runs the presses started (kept ones once started)

    def pressed(self, ready: bool, at: float | None = None) -> Press:
        """A press at `at` (else now); `ready`: the module is read and no read for a run is under way."""
        now = self.clock() if at is None else at
        in_burst = self.last is not None and now - self.last < self.window
        self.last = now if self.last is None else max(self.last, now)
        if in_burst:
            self.burst += 1
            return Press.FOLDED
        self.burst = 1
        if ready and not self.kept:
            self.runs += 1
            return Press.START
        self.kept = True
        return Press.KEPT

    def ready(self) -> bool:
        """The module is ready: whether a kept press starts its run now (True once per kept press)."""
        kept, self.kept = self.kept, False
        if kept:
            self.runs += 1
        return kept

    def forget(self) -> None:
        """Closing or quitting: a kept press starts nothing."""
        self.kept = False

    def note(self, key: str = "ctrl+r") -> str:
        """What the screen says about the presses: a kept one, or a burst folded into one run ("" otherwise)."""
        if self.kept:
            return f"{key}: the run starts once the module is read"
        if self.burst > 1:
            return f"{key} ×{self.burst} within {self.window:g} s: one run"
        return ""


@dataclass
class RunScreenState:
    """What the run screen's title line shows: the module, the provider and model a run would use, and what the
    run key's presses did. `module` is the folder's name until the module is read."""

    module: str
    provider: str = ""
    model: str | None = None  # the model the provider would call (None: it calls none, e.g. replay)
    presses: RunPresses = field(default_factory=RunPresses)
    compare: str = ""  # a second target as typed: the run key runs both, side by side (D258)

    def runs_on(self, provider: str, model: str | None) -> None:
        self.provider, self.model = provider, model

    def compare_with(self, target: str) -> None:
        self.compare = target.strip()

    def title(self) -> str:
        """`module · provider model`, e.g. `code-reviewer · openai gpt-4o-mini`; replay says it calls no model; with
        a target to compare with, both: `code-reviewer · openai gpt-4o-mini vs anthropic/claude-sonnet-5-5`."""
        if not self.provider:
            return self.module
        if self.compare:  # two targets: both named, side by side (short enough for 80 columns)
            first = self.provider if self.provider == "replay" else f"{self.provider} {self.model or '(default)'}"
            return f"{self.module} · {first} vs {self.compare}"
        if self.provider == "replay":
            return f"{self.module} · replay (recorded answers, no model called)"
        return f"{self.module} · {self.provider} {self.model or '(its default model)'}"
