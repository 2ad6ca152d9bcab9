"""Cancelling a run always stops it, whatever moment the cancellation lands (the quit-while-running bug).

On Python 3.11, `asyncio.wait_for` returns the awaited item and drops a cancellation that arrives while
that item is being handed over; a run cancelled at that moment streamed on to its end (the TUI's quit
waited for it). These tests cancel the consumer exactly then, deterministically.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cogtui.core.run.provider_call import timed


async def test_a_cancellation_landing_while_an_item_is_handed_over_stops_the_consumer() -> None:
    consumer: list[asyncio.Task[list[Any]]] = []
    produced: list[int] = []

    async def source() -> AsyncIterator[int]:
        for i in range(50):
            produced.append(i)
            yield i  # the pump puts it in the queue, waking the consumer's get()...
            if i == 3:
                consumer[0].cancel()  # ...and the consumer is cancelled before it resumes
            await asyncio.sleep(0)

    async def consume() -> list[Any]:
        got = []
        async for item in timed(source(), heartbeat=30, silence_limit=60, received=[False]):
            got.append(item)
        return got

    consumer.append(asyncio.create_task(consume()))
    with pytest.raises(asyncio.CancelledError):
        await consumer[0]
    assert len(produced) < 50  # the source was closed too, not drained


async def test_every_cancellation_moment_stops_a_run() -> None:
    """Cancel after each of the first 40 loop turns: the consumer always ends cancelled."""

    async def source() -> AsyncIterator[int]:
        for i in range(200):
            yield i
            await asyncio.sleep(0)

    async def consume() -> int:
        n = 0
        async for _ in timed(source(), heartbeat=30, silence_limit=60, received=[False]):
            n += 1
        return n

    for turns in range(40):
        task = asyncio.create_task(consume())
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
