"""Runs for a server: bounded like an eval's, recorded like `cogn run`'s, and never waiting on a client.

Every run a server starts goes through one `RunService`:

- **Bounded as eval is** (core/run/concurrency.py): at most `jobs` model calls in flight (`CallSlots`),
  a gate per provider that a 429 closes for every run (`GateSet`), and at most `CallSlots.runs` runs
  admitted at once; the others wait their turn before they start, so their deadline and stream
  timeouts do not tick while they wait.
- **Recorded in the history** like any other run, the interrupted ones included, by one writer thread
  (a run never waits on the database on the event loop).
- **Never waiting on a client** (SERVE-5): a run pushes its chunks into its `RunHandle` without awaiting
  anything, and the client side reads them at its own pace. A client that falls `backlog` chunks behind
  (it stopped reading, or reads too slowly) has its run cancelled; a client that goes away cancels it
  too. A cancelled run ends as the runner ends one (E2010, the partial data kept), with the reason
  given, and is recorded as interrupted. So no client can hold a provider stream open: a run lasts at
  most its deadline (config.yaml `run_deadline`), whoever reads it.
- **The target is the server's** (SERVE-4): the provider and model come from the server's flags, the
  environment or config.yaml; a run asks for another only when the server allows it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from cogtui.core.module.model import Module
from cogtui.core.run.arguments import fill_arguments
from cogtui.core.run.concurrency import DEFAULT_JOBS, CallSlots, GateSet
from cogtui.core.run.output_fixes import parse_fixes
from cogtui.core.run.providers.base import Provider
from cogtui.core.run.run_types import RunOptions, RunResult
from cogtui.core.run.runner import RunSession
from cogtui.core.run.subagents import Resolver

if TYPE_CHECKING:
    from cogtui.core.history.store import History
    from cogtui.core.settings.config import Config

BACKLOG = 256  # chunks a client may fall behind before its run is cancelled
CLIENT_GONE = "the client went away"
CLIENT_STALLED = "the client stopped reading ({n} chunks waiting)"


class TargetRefused(Exception):
    """A run asked for a provider or model of its own, which this server does not allow."""


class RunHandle:
    """One run as its client sees it: its chunks as they come, then its result (None if it never started)."""

    def __init__(self, backlog: int | None = BACKLOG) -> None:
        self.backlog = backlog  # None: nobody reads the chunks, none is kept
        self.waiting: deque[dict[str, Any]] = deque()
        self.more = asyncio.Event()
        self.finished = False
        self.task: asyncio.Task[RunResult | None] | None = None

    def push(self, chunk: dict[str, Any]) -> None:
        """A chunk for the client; never waits. A client too far behind has its run cancelled."""
        if self.backlog is None:
            return
        self.waiting.append(chunk)
        self.more.set()
        if len(self.waiting) > self.backlog:
            self.cancel(CLIENT_STALLED.format(n=len(self.waiting)))

    def close(self) -> None:
        self.finished = True
        self.more.set()

    async def chunks(self, idle: float | None = None) -> AsyncIterator[dict[str, Any]]:
        """The run's chunks (spec chunks: meta, deltas, progress, heartbeats, final or error) as they come; after
        `idle` seconds without one (a run waiting for its turn, a silent model), a heartbeat (`{}`)."""
        while True:
            while self.waiting:
                yield self.waiting.popleft()
            if self.finished:
                return
            self.more.clear()
            try:
                async with asyncio.timeout(idle):
                    await self.more.wait()
            except TimeoutError:
                yield {}

    def cancel(self, why: str) -> None:
        """End the run (recorded as interrupted, with `why`); nothing when it has ended already."""
        if self.task is not None and not self.task.done():
            self.task.cancel(why)

    async def outcome(self) -> RunResult | None:
        """The run's result once it has ended (an interrupted one included); None when it never started."""
        assert self.task is not None
        return await asyncio.shield(self.task)

    async def outcome_or_cancel(self, why: str) -> RunResult | None:
        """`outcome()`; should the caller be cancelled while it waits, the run is cancelled with `why` (and
        recorded) before the cancellation goes on."""
        try:
            return await self.outcome()
        except asyncio.CancelledError:
            self.cancel(why)
            assert self.task is not None
            await asyncio.wait([self.task])
            raise


class HistoryWriter:
    """Writes run records from one thread (SQLite wants its connection used where it was opened)."""

    def __init__(self, on_note: Callable[[str], None]) -> None:
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="cogtui-history")
        self.history: History | None = None
        self.on_note = on_note

    def _write(self, module: Module, input_value: Any, args: str | None, result: RunResult) -> None:
        """Into the history, else its outbox (as `cogn run`: run_record.keep_run); said when not stored."""
        from cogtui.core.history.location import default_location
        from cogtui.core.history.run_record import keep_run, to_record
        from cogtui.core.history.store import History, HistoryConfigError, HistoryError

        record = to_record(module, input_value, args, result)
        try:
            if self.history is None:
                self.history = History.open_default()
            self.history.record(record)
            return
        except HistoryConfigError as exc:  # a location cogtui cannot use: nothing can be kept for it
            self.on_note(f"warning: the run of {module.name} was not recorded: {exc}")
            return
        except HistoryError as exc:
            why = str(exc)
        try:
            kept = keep_run(record, self.history.location if self.history else default_location(), why)
        except HistoryError as exc:
            self.on_note(f"warning: the run of {module.name} was not recorded: {exc}")
            return
        self.on_note(f"warning: the run of {module.name} {(kept.warning() or '').removeprefix('the run ')}")

    async def write(self, module: Module, input_value: Any, args: str | None, result: RunResult) -> None:
        await asyncio.wrap_future(self.pool.submit(self._write, module, input_value, args, result))

    def close(self) -> None:
        def close() -> None:
            if self.history is not None:
                self.history.close()

        self.pool.submit(close)
        self.pool.shutdown(wait=True)


class RunService:
    """Starts runs on the server's provider, bounded, recorded, cancellable (see the module's docstring)."""

    def __init__(
        self,
        provider: Provider,
        config: Config,
        *,
        jobs: int = DEFAULT_JOBS,
        resolver: Resolver | None = None,
        record: bool = True,
        allow_target_override: bool = False,
        backlog: int = BACKLOG,
        on_note: Callable[[str], None] = lambda _text: None,
    ) -> None:
        self.config = config
        self.fixes = parse_fixes(config.output_fixes)[0]  # unknown names are said once, by the command
        self.gates = GateSet(RunOptions(provider).retry)
        self.slots = CallSlots(jobs)
        self.admission = asyncio.Semaphore(self.slots.runs)
        self.default = provider
        self.overrides: dict[tuple[str, str | None], Provider] = {}
        self.resolver = resolver
        self.history = HistoryWriter(on_note) if record else None
        self.allow_target_override = allow_target_override
        self.backlog = backlog
        self.running: set[RunHandle] = set()
        self.started = 0  # runs started, and runs that ended (any outcome): what /health reports
        self.ended = 0

    def provider_for(self, name: str | None, model: str | None) -> Provider:
        """The provider a run uses: the server's, unless the run names another and the server allows it."""
        if name is None and model is None:
            return self.default
        if not self.allow_target_override:
            raise TargetRefused(
                "this server runs modules on its own provider and model; start it with --allow-target-override "
                "to let a call choose"
            )
        key = (name or self.default.name, model)
        if key not in self.overrides:
            from cogtui.core.run.providers import make_provider

            self.overrides[key] = make_provider(key[0], model, self.config)  # UnknownProvider: the caller says so
        return self.overrides[key]

    def start(
        self,
        module: Module,
        input_value: Any,
        *,
        args: str | None = None,
        stream: bool = False,
        provider: str | None = None,
        model: str | None = None,
        keep_chunks: bool = True,
    ) -> RunHandle:
        """Start a run (it waits for its turn in the task it runs in); TargetRefused or UnknownProvider at once
        when `provider`/`model` name a target the server does not give."""
        chosen = self.provider_for(provider, model)
        handle = RunHandle(self.backlog if keep_chunks else None)
        work = self._produce(handle, module, input_value, args, stream, chosen)
        handle.task = asyncio.get_running_loop().create_task(work)
        self.running.add(handle)
        return handle

    async def run(self, module: Module, input_value: Any, **kwargs: Any) -> RunResult | None:
        """A run to its end (chunks not kept); cancelling the caller cancels the run, which is recorded."""
        handle = self.start(module, input_value, keep_chunks=False, **kwargs)
        return await handle.outcome_or_cancel(CLIENT_GONE)

    def options(self, provider: Provider, args: str | None, stream: bool) -> RunOptions:
        cfg = self.config
        return RunOptions(
            self.slots.wrap(self.gates.wrap(provider)),
            args=args,
            stream_requested=stream,
            resolver=self.resolver,
            fixes=self.fixes,
            deadline=cfg.run_deadline,
            media_roots=cfg.media_roots,
        )

    async def _produce(
        self, handle: RunHandle, module: Module, input_value: Any, args: str | None, stream: bool, provider: Provider
    ) -> RunResult | None:
        try:
            async with self.admission:
                self.started += 1
                input_value = fill_arguments(module, input_value, args)
                session = RunSession(module, input_value, self.options(provider, args, stream))
                try:
                    async for event in session.events():  # the loop's body never awaits: a cancel lands in the run
                        if not event.path:
                            handle.push(event.chunk)
                except asyncio.CancelledError:
                    if session.result is None:  # cancelled before the session began
                        raise
                result = session.result
                assert result is not None
                if self.history is not None:
                    await self.history.write(module, input_value, args, result)
                return result
        except asyncio.CancelledError:  # cancelled while waiting for its turn: it never ran
            return None
        finally:
            self.ended += 1
            self.running.discard(handle)
            handle.close()

    async def aclose(self) -> None:
        """Cancel the runs still going (each is recorded as interrupted), then close the providers and history."""
        handles = list(self.running)
        for handle in handles:
            handle.cancel("the server is shutting down")
        tasks = [h.task for h in handles if h.task is not None]
        if tasks:
            await asyncio.wait(tasks)
        for provider in {self.default, *self.overrides.values()}:
            await provider.aclose()
        if self.history is not None:
            await asyncio.to_thread(self.history.close)
