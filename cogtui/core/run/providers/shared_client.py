"""One HTTP client per provider and event loop, reused by every call until the provider is closed.

Building an HTTP client costs a TLS context (loading the system's CA bundle)
and a fresh connection per call; an eval paid that once per case, serially,
which is what bounded its -j speed-up. A client is bound to the event loop it first ran on (its pooled
connections are), so each loop gets its own; `key` (the API key, given to the
factory) makes a new client when it changes. `aclose()` closes the current loop's client; the
clients of loops that have ended are dropped with them (weak references).

The TLS context itself is shared by every client of the process (`tls_context`):
a context only holds the trusted CA certificates and the TLS settings, is safe to
share between clients, threads and loops, and is the costly part of a client
(each new loop, e.g. each run of the TUI or of a test, would pay it again).
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    import ssl

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


_contexts: dict[tuple[bool, str, str], ssl.SSLContext] = {}
_contexts_lock = threading.Lock()


def tls_context(trust_env: bool = True) -> ssl.SSLContext:
    """The process's TLS context for verified HTTPS, as httpx builds it by default (`verify=True`): the CA
    bundle of SSL_CERT_FILE or SSL_CERT_DIR when `trust_env` and set, else certifi's. Made once per distinct
    setting and shared: a changed SSL_CERT_FILE or SSL_CERT_DIR gets a context of its own."""
    env = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", "")) if trust_env else ("", "")
    key = (trust_env, *env)
    with _contexts_lock:
        context = _contexts.get(key)
        if context is None:
            import httpx

            context = _contexts[key] = httpx.create_ssl_context(trust_env=trust_env)
        return context


__all__ = ["LoopClients", "tls_context"]
