"""One HTTP client per provider and event loop, reused by every call until the provider is closed.

Building an HTTP client costs a TLS context (loading the system's CA bundle:
about 40 ms of CPU) and a fresh connection per call; an eval of 50 cases paid
that 50 times, serially, which is what bounded its -j speed-up (BENCHMARKS.md,
Evals). A client is bound to the event loop it first ran on (its pooled
connections are), so each loop gets its own; `key` (the API key, given to the
factory) makes a new client when it changes. `aclose()` closes the current loop's client; the
clients of loops that have ended are dropped with them (weak references).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

ClientT = TypeVar("ClientT")


class LoopClients(Generic[ClientT]):
    def __init__(self, factory: Callable[[Any], ClientT]) -> None:
        self.factory = factory
        self.by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[Hashable, ClientT]] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, key: Hashable = None) -> ClientT:
        """The running loop's client for `key`; one made for another key is left to calls still using it."""
        loop = asyncio.get_running_loop()
        held = self.by_loop.get(loop)
        if held is not None and held[0] == key:
            return held[1]
        client = self.factory(key)
        self.by_loop[loop] = (key, client)
        return client

    async def aclose(self) -> None:
        """Close the running loop's client (pooled connections included); the next call makes a new one."""
        held = self.by_loop.pop(asyncio.get_running_loop(), None)
        if held is not None:
            await _close(held[1])


async def _close(client: Any) -> None:
    close = getattr(client, "aclose", None) or getattr(client, "close", None)
    if close is not None:
        await close()


__all__ = ["LoopClients"]
