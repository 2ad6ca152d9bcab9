"""Calling a provider: silence timeouts, heartbeats, and retries with backoff and jitter.

The provider's stream is pumped by a task into a queue, so waiting for the next
piece can time out (for a heartbeat, or a stream timeout) without cancelling
the provider's generator midway. Cancelling the consumer cancels the pump,
which closes the provider's HTTP request.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator
from typing import Any

from cogtui.core.records import field, record
from cogtui.core.run.providers.base import Provider, ProviderError

HEARTBEAT: Any = object()
_DONE: Any = object()


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


@record
class RetryPolicy:
    """How often a failed call is tried again, and how long to wait in between."""

    attempts: int = 3
    base: float = 0.5
    cap: float = 8.0
    max_retry_after: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Exponential backoff with full jitter; a server's retry-after wins (capped)."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.cap, self.base * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


async def _pump(source: AsyncIterator[Any], queue: asyncio.Queue[Any]) -> None:
    try:
        async for item in source:
            await queue.put(item)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # noqa: BLE001 - handed to the consumer
        await queue.put(_Raised(exc))
    else:
        await queue.put(_DONE)
    finally:
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(BaseException):
                await aclose()


@record
class Deadline:
    """The whole run's time budget: `seconds` from `start` (time.monotonic()); None means no deadline."""

    seconds: float | None
    start: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        return float("inf") if self.seconds is None else self.seconds - (time.monotonic() - self.start)

    def error(self, received: bool) -> ProviderError:
        return ProviderError(
            "E2002",
            f"the run took longer than its deadline of {self.seconds:g} s (run_deadline in config.yaml, --deadline)",
            received_text=received,
        )


async def timed(
    source: AsyncIterator[Any],
    heartbeat: float,
    silence_limit: float,
    received: list[bool],
    deadline: Deadline | None = None,
) -> AsyncIterator[Any]:
    """Items from `source`, HEARTBEAT after `heartbeat` s without output, ProviderError E2011 after `silence_limit` s without data.

    `received[0]` tells whether any text has arrived (for the error's `received_text`). Past the
    `deadline` of the whole run, however steadily data drips in, ProviderError E2002 (TIMEOUT, RUN-12).
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    task = asyncio.create_task(_pump(source, queue))
    last_data = last_emit = loop.time()
    try:
        while True:
            now = loop.time()
            left = deadline.remaining() if deadline is not None else float("inf")
            if left <= 0:
                raise deadline.error(received[0])  # type: ignore[union-attr]
            wait = min(heartbeat - (now - last_emit), silence_limit - (now - last_data), left)
            try:
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for returns the item and swallows a
                # cancellation that lands while the item is being handed over, so a cancelled run went on.
                async with asyncio.timeout(max(wait, 0.0)):
                    item = await queue.get()
            except TimeoutError:
                now = loop.time()
                if deadline is not None and deadline.remaining() <= 0:
                    raise deadline.error(received[0]) from None
                if now - last_data >= silence_limit:
                    raise ProviderError(
                        "E2011", f"no data from the provider for {silence_limit:g} s", received_text=received[0]
                    ) from None
                last_emit = now
                yield HEARTBEAT
                continue
            if item is _DONE:
                return
            if isinstance(item, _Raised):
                raise item.exc
            last_data = last_emit = loop.time()
            yield item
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


async def prepare(provider: Provider) -> dict[str, Any] | None:
    """Await the provider's `prepare()` (RUN-13); a ProviderError there (e.g. no API key, said before the SDK is
    loaded) comes back as the run's failure envelope, no model call made."""
    from cogtui.core.run.envelope_builder import failure

    try:
        await provider.prepare()
    except ProviderError as exc:
        details = {"provider": provider.name, "status": exc.status, "attempts": 0}
        return failure(exc.code, exc.message, suggestion=exc.suggestion, details=details)
    return None


def token_limit_failure(reason: str, provider_name: str, max_tokens: int, partial: Any) -> dict[str, Any]:
    """Output cut by the token limit: E2003 with what was parsed (`partial`), never a parse retry (CODE-5)."""
    from cogtui.core.run.envelope_builder import failure

    return failure(
        "E2003",
        f"the model's answer was cut off by the token limit (stop reason {reason!r}, max_tokens {max_tokens})",
        partial_data=partial,
        details={"provider": provider_name, "stop_reason": reason, "max_tokens": max_tokens},
    )
