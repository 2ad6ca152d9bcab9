"""The OpenAI-compatible provider's httpx client: what it costs to make one, and getting its connection back.

Three costs an eval paid that a call does not need:
- `import httpx` also imports httpx's own command line (click, rich's console and
  progress, pygments) whenever click is installed: cogtui never runs it, and an
  installed cogtui (which does not depend on click) already goes without it.
- A client's TLS context loads the CA bundle: https clients
  share the process's one context (`shared_client.tls_context`). A client for a
  plain `http://` base URL never negotiates TLS: every request goes to that base
  URL and redirects are not followed. It gets a TLS context that trusts no
  certificate (RUN-16): were TLS ever attempted, it would fail, never go unverified.
- A streamed answer left unread after `[DONE]` (the end of the chunked body) makes
  the pool close the connection: the next call connects again (over TLS, a new
  handshake). `drain_after_done` reads that end, so the connection is reused; it
  waits at most DRAIN_SECONDS for it (a server that sends its body's end late,
  e.g. held back by Nagle's algorithm, costs that much once and loses its
  connection, as before) and reads at most DRAIN_LIMIT_BYTES.
"""

from __future__ import annotations

import asyncio
import ssl
import sys
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

from cogtui.core.run.providers.shared_client import tls_context

# What may follow `[DONE]` before the connection is given up instead of reused.
DRAIN_LIMIT_BYTES = 64 * 1024
DRAIN_SECONDS = 0.02


def import_httpx() -> ModuleType:
    """httpx, imported (the first time) without its command-line entry point, which falls back to its stub."""
    blocked = "httpx" not in sys.modules and "httpx._main" not in sys.modules
    if blocked:
        sys.modules["httpx._main"] = None  # type: ignore[assignment]  # None there makes the import an ImportError
    try:
        import httpx
    finally:
        if blocked and sys.modules.get("httpx._main", 0) is None:
            del sys.modules["httpx._main"]
    return httpx


def tls_context_for(base_url: str) -> ssl.SSLContext:
    """The process's shared, verifying TLS context (`tls_context`) for https; for plain http a context that
    trusts no certificate."""
    if base_url.lower().startswith("http://"):
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # check_hostname and CERT_REQUIRED, no trusted roots
    return tls_context()


def import_http_stack() -> None:
    """What a process's first call imports: httpx, then what httpx imports only when a client is made
    (httpcore, h11) or a first request goes out (httpcore's anyio backend: anyio and its asyncio support)."""
    import_httpx()
    import httpcore

    try:  # their internal modules: should a version move them, the first request imports what it needs
        import anyio._backends._asyncio  # noqa: F401
        import httpcore._backends.anyio  # noqa: F401
    except ImportError:
        pass


def new_client(base_url: str) -> Any:
    """An `httpx.AsyncClient` for calls to `base_url` (see the module's notes for what it leaves out)."""
    httpx = import_httpx()
    return httpx.AsyncClient(verify=tls_context_for(base_url))


async def drain_after_done(lines: AsyncIterator[str]) -> bool:
    """Read what follows `[DONE]`, ignored, so the connection returns to the pool; True when the body ended.

    A server that sends more than DRAIN_LIMIT_BYTES after it, keeps the body open
    longer than DRAIN_SECONDS or breaks it off only loses its connection (as if the
    rest had not been read): the answer was complete at `[DONE]`.
    """
    httpx = import_httpx()
    seen = 0
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for line in lines:
                seen += len(line) + 1
                if seen > DRAIN_LIMIT_BYTES:
                    return False
    except (TimeoutError, httpx.HTTPError):
        return False
    return True


__all__ = ["DRAIN_LIMIT_BYTES", "DRAIN_SECONDS", "drain_after_done", "import_httpx", "new_client", "tls_context_for"]
