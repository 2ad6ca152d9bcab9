"""The run's public shapes: what a caller passes in (RunOptions), sees go by (RunEvent) and gets back (RunResult)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogtui.core.records import field, record
from cogtui.core.run.provider_call import Deadline, RetryPolicy
from cogtui.core.run.providers.base import Provider
from cogtui.core.run.subagents import Resolver


@record(frozen=False)
class RunOptions:
    """How a run is made: the provider and the run's settings."""

    provider: Provider
    args: str | None = None
    validate: bool = True
    stream_requested: bool = False  # the client asked for chunks (--stream, the TUI)
    stream_timeout: float = 60.0
    media_roots: tuple[Path, ...] = ()  # folders besides the module's that media `type: file` may read
    deadline: float | None = 600.0  # seconds for the whole run (config.yaml run_deadline, --deadline)
    heartbeat: float = 15.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    resolver: Resolver | None = None
    max_tokens: int = 4096
    depth: int = 0
    call_stack: tuple[str, ...] = ()
    fixes: frozenset[str] = frozenset()  # opt-in output fixes beyond the repair pass (output_fixes.py)
    strict: bool = False  # --strict: no output fix at all
    caller: str = "user"  # "user", "test" (golden tests) or "agent" (@call): invocation.* (manifest_policy.py)
    # The parent run's deadline, for an @call child: the whole tree shares one budget (RUN-12).
    shared_deadline: Deadline | None = None


@dataclass(frozen=True)
class RunEvent:
    """A chunk a streaming run emits, and which subagent call it came from."""

    chunk: dict[str, Any]
    path: tuple[str, ...] = ()  # the subagent call path; () for the run itself


@record(frozen=False)
class RunResult:
    """A finished run: its envelope, timings and token usage."""

    envelope: dict[str, Any]
    session_id: str
    provider: str
    model: str | None
    ttfc_ms: float | None = None
    total_ms: float | None = None
    usage: dict[str, int] | None = None
    warnings: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    attempts: int = 0
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return self.envelope.get("ok") is True

    @property
    def outcome(self) -> str:
        return "interrupted" if self.interrupted else ("ok" if self.ok else "error")


class RunFailed(Exception):
    """Ends the pipeline with a failure envelope (never escapes RunSession.events)."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(envelope["error"]["message"])
        self.envelope = envelope
