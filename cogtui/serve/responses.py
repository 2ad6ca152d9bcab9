"""A run as an HTTP response: the envelope as JSON, or the chunks as SSE or NDJSON, as they come (SERVE-5).

Each response watches its client while it answers: a client that goes away cancels its run (recorded as
interrupted, E2010, with "the client went away"), and a write the client does not take within
`write_timeout` seconds (it stopped reading) cancels the run too and ends the response. The run itself
never waits for the client (core/serving/runs.py): a slow reader costs the server its buffered chunks,
never a provider stream held open. While a run waits for its turn, or its model is silent, a heartbeat
(SSE `: heartbeat`, NDJSON `{}`) goes out every `heartbeat` seconds (SPEC-v2.5 §3.2.3), so proxies and
clients do not take the wait for a dead connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from cogtui.core.rules.stream_text import ndjson_line, sse_frame
from cogtui.core.serving.runs import CLIENT_GONE, RunHandle

from .guard import Receive, Scope, Send, send_envelope

WRITE_TIMEOUT = 30.0
HEARTBEAT = 15.0
STALLED = "the client did not take a write for {s:g} s"

TRANSPORTS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "sse": ("text/event-stream", sse_frame),
    "ndjson": ("application/x-ndjson", ndjson_line),
}


def transport_for(accept: str) -> str | None:
    """`sse` or `ndjson` when the Accept header asks for a stream (the first such type listed wins), else None
    (the envelope as JSON)."""
    for part in accept.split(","):
        media = part.split(";", 1)[0].strip().lower()
        for name, (media_type, _encode) in TRANSPORTS.items():
            if media == media_type:
                return name
    return None


async def _until_gone(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _watching(handle: RunHandle, receive: Receive, answer: Callable[[], Any]) -> None:
    """`answer()` while watching for the client to go away (which cancels the run and stops the answer)."""
    gone = asyncio.ensure_future(_until_gone(receive))
    writing = asyncio.ensure_future(answer())
    try:
        done, _ = await asyncio.wait({gone, writing}, return_when=asyncio.FIRST_COMPLETED)
        if gone in done:
            handle.cancel(CLIENT_GONE)
            writing.cancel()
        await asyncio.wait({writing})
        if not writing.cancelled() and writing.exception() is not None:
            raise writing.exception()
    finally:
        gone.cancel()
        writing.cancel()
        await handle.outcome()  # recorded before the request is over


class StreamedRun:
    """The run's chunks as SSE or NDJSON (ASGI)."""

    def __init__(
        self,
        handle: RunHandle,
        transport: str,
        write_timeout: float = WRITE_TIMEOUT,
        heartbeat: float = HEARTBEAT,
        on_stall: Callable[[str], None] | None = None,
    ) -> None:
        self.handle = handle
        self.media_type, self.encode = TRANSPORTS[transport]
        self.write_timeout = write_timeout
        self.heartbeat = heartbeat
        self.on_stall = on_stall  # the server's log: a response cut off is said there, once

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _watching(self.handle, receive, lambda: self.write(send))

    async def write(self, send: Send) -> None:
        headers = [
            (b"content-type", f"{self.media_type}; charset=utf-8".encode()),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),  # a proxy in front (nginx) passes chunks on as they come
        ]
        try:
            async with asyncio.timeout(self.write_timeout):
                await send({"type": "http.response.start", "status": 200, "headers": headers})
            async for chunk in self.handle.chunks(idle=self.heartbeat):
                async with asyncio.timeout(self.write_timeout):
                    await send({"type": "http.response.body", "body": self.encode(chunk).encode(), "more_body": True})
            async with asyncio.timeout(self.write_timeout):
                await send({"type": "http.response.body", "body": b""})
        except TimeoutError:
            self.handle.cancel(STALLED.format(s=self.write_timeout))
            if self.on_stall is not None:
                self.on_stall(
                    f"{STALLED.format(s=self.write_timeout)}: its response was ended, its run cancelled if it was "
                    "still going (recorded as interrupted)"
                )
        except OSError:  # the connection is gone (a server that says so on write)
            self.handle.cancel(CLIENT_GONE)


class EnvelopeRun:
    """The run's final envelope as JSON (ASGI); 200 whether the module answered ok or with an error (SERVE-7)."""

    def __init__(self, handle: RunHandle) -> None:
        self.handle = handle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _watching(self.handle, receive, lambda: self.write(send))

    async def write(self, send: Send) -> None:
        result = await self.handle.outcome()
        if result is None:  # cancelled before it started: the client is gone, nobody reads this
            return
        await send_envelope(send, 200, result.envelope)
