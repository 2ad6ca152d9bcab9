"""Running many model calls at once without hammering a provider: a bounded pool, call slots, and a gate per
provider.

`bounded` runs coroutines with at most `jobs` in flight and hands results back in
their original order. `CallSlots` bounds the model calls themselves (`-j N`: at
most N requests in flight): a run prepares its request and checks its answer
outside a slot, so `bounded` may run more runs than there are slots
(`CallSlots.runs`) and the next request is ready to go out the moment a call
ends, rather than after the answer before it has been checked (bench/bench_eval.py).
`ProviderGate` is shared by every concurrent run against one
provider: when any of them is told 429 (rate limited), the gate closes for the
server's retry-after (or the retry policy's backoff), and no run sends a request
to that provider until it opens again. `GatedProvider` puts a provider behind a
gate; the runner's own retry (provider_call.RetryPolicy) still decides whether and
when the failed call is tried again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from cogtui.core.run.provider_call import RetryPolicy
from cogtui.core.run.providers.base import ModelRequest, Provider, ProviderError, ProviderEvent, ProviderWrapper

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_JOBS = 4
RUNS_PER_SLOT = 2  # a run with its request ready waits behind each call in flight


async def bounded(
    items: Sequence[T], jobs: int, work: Callable[[T], Awaitable[R]], on_done: Callable[[int, R], None] | None = None
) -> list[R]:
    """`work(item)` for every item, at most `jobs` at once; results in the items' order.

    `on_done(index, result)` is called as each finishes (in completion order). A
    failure of one item cancels the rest and is raised (work is expected to turn
    its own failures into results, as the runner does with envelopes)."""
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    slots = asyncio.Semaphore(jobs)
    results: list[Any] = [None] * len(items)

    async def one(index: int, item: T) -> None:
        async with slots:
            result = await work(item)
        results[index] = result
        if on_done is not None:
            on_done(index, result)

    async with asyncio.TaskGroup() as group:
        for index, item in enumerate(items):
            group.create_task(one(index, item))
    return results


class CallSlots:
    """At most `jobs` model calls in flight among the providers it wraps (every run of one eval or test run)."""

    def __init__(self, jobs: int) -> None:
        if jobs < 1:
            raise ValueError("jobs must be at least 1")
        self.jobs = jobs
        self.runs = jobs * RUNS_PER_SLOT  # how many runs `bounded` should keep going
        self.free = asyncio.Semaphore(jobs)

    def wrap(self, provider: Provider, on_call: Callable[[], None] | None = None) -> SlottedProvider:
        """`provider` behind these slots; `on_call()` is called as its first call takes a slot."""
        return SlottedProvider(provider, self, on_call)


class SlottedProvider(ProviderWrapper):
    """A provider whose every call (a stream, read to its end or closed) holds one of its `CallSlots`."""

    def __init__(self, inner: Provider, slots: CallSlots, on_call: Callable[[], None] | None = None) -> None:
        super().__init__(inner)
        self.slots = slots
        self.on_call = on_call

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        async with self.slots.free:
            if self.on_call is not None:
                on_call, self.on_call = self.on_call, None
                on_call()
            async for event in self.inner.stream(request):
                yield event
        # The run that waited for this slot sends its request before this answer is checked.
        await asyncio.sleep(0)


class ProviderGate:
    """Closed while a provider's rate limit lasts; every run against that provider waits at it."""

    def __init__(self, retry: RetryPolicy | None = None) -> None:
        self.retry = retry or RetryPolicy()
        self.open_at = 0.0  # time.monotonic() from which requests may go out
        self.rate_limited = 0  # 429 answers seen

    def closed_for(self) -> float:
        return max(0.0, self.open_at - time.monotonic())

    async def wait(self) -> None:
        while (left := self.closed_for()) > 0:
            await asyncio.sleep(left)

    def rate_limit(self, retry_after: float | None) -> None:
        """A 429: close for the server's retry-after, else the policy's first backoff step."""
        self.rate_limited += 1
        delay = self.retry.delay(1, retry_after)
        self.open_at = max(self.open_at, time.monotonic() + delay)


class GateSet:
    """One gate per provider name, shared by every target and case of one eval or test run."""

    def __init__(self, retry: RetryPolicy | None = None) -> None:
        self.retry = retry
        self.gates: dict[str, ProviderGate] = {}

    def gate(self, provider_name: str) -> ProviderGate:
        return self.gates.setdefault(provider_name, ProviderGate(self.retry))

    def wrap(self, provider: Provider) -> GatedProvider:
        return GatedProvider(provider, self.gate(provider.name))


def is_rate_limit(exc: ProviderError) -> bool:
    return exc.status == 429 or exc.code == "E4002"


class GatedProvider(ProviderWrapper):
    """A provider that waits at its gate before each call and closes it on a 429.
    Everything else (name, model, capabilities, and whatever a provider adds) is the inner provider's."""

    def __init__(self, inner: Provider, gate: ProviderGate) -> None:
        super().__init__(inner)
        self.gate = gate

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        await self.gate.wait()
        try:
            async for event in self.inner.stream(request):
                yield event
        except ProviderError as exc:
            if is_rate_limit(exc):
                self.gate.rate_limit(exc.retry_after)
            raise
