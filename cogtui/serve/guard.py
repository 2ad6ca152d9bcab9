"""Who may use a server (`cogn serve`, `cogn mcp --http`): an ASGI layer in front of the app (SERVE-6).

- **Addressed to this server**: a request whose `Host` is not this server's (`localhost`, the `--host`
  name, or an IP literal, at the served port: serve/origin.py, SEC-7) is refused, so a web page cannot
  reach it through DNS rebinding; one that carries an `Origin` (a browser's page) is answered only when
  that page is this server's, so another site's page cannot make a run with the user's keys.
- **Token**: with `COGTUI_SERVE_TOKEN` set, every request must say `Authorization: Bearer <token>`; the
  comparison takes the same time whatever the guess (both sides hashed, then `hmac.compare_digest`).
- **Size**: a body longer than `max_body` bytes is refused before it is read (`Content-Length`); the
  routes read the rest with the same cap (`read_capped`), for bodies sent in chunks.

Refusals are JSON envelopes with the spec's codes (E4007 permission, E1005 too large) and the matching
HTTP status; the server's log says what was refused, the header values escaped and cut.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from cogtui.core.run.envelope_builder import failure

from .live import Log
from .origin import host_is_served, origin_is_served

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY = 1 << 20  # bytes of a request body (an input document): 1 MiB unless --max-body says otherwise
TOKEN_ENV = "COGTUI_SERVE_TOKEN"
_SHOWN = 80  # characters of a refused header shown in the log


class BodyTooLarge(Exception):
    pass


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


async def send_envelope(
    send: Send, status: int, envelope: dict[str, Any], headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    body = json.dumps(envelope, ensure_ascii=False).encode("utf-8", "surrogatepass")
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """The ASGI app, answered only for requests that pass the checks above."""

    def __init__(self, app: App, host: str, port: int, token: str | None, log: Log, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.token = _digest(token) if token else None
        self.log = log
        self.max_body = max_body

    def refusal(self, headers: dict[str, str]) -> tuple[int, str, str] | None:
        """(HTTP status, E-code, why) for a request to refuse, or None."""
        if not host_is_served(headers.get("host"), self.host, self.port):
            return (
                403,
                "E4007",
                "its Host is not this server's address (a page of another site, through DNS rebinding?)",
            )
        origin = headers.get("origin")
        if origin is not None and not origin_is_served(origin, self.host, self.port):
            return 403, "E4007", "it comes from a page of another site (its Origin is not this server's)"
        if self.token is not None:
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(_digest(given.strip()), self.token):
                return 401, "E4007", f"it does not carry this server's token (Authorization: Bearer ${TOKEN_ENV})"
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body:
            return 413, "E1005", f"its body is {int(length)} bytes, over this server's {self.max_body} (--max-body)"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):  # lifespan
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refused = self.refusal(headers)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, code, why = refused
        shown = f"Host {headers.get('host', '')[:_SHOWN]!r}, Origin {headers.get('origin', '')[:_SHOWN]!r}"
        self.log(f"refused {scope.get('method', 'WEBSOCKET')} {str(scope.get('path', ''))[:_SHOWN]}: {why} ({shown})")
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        extra = ((b"www-authenticate", b"Bearer"),) if status == 401 else ()
        await send_envelope(send, status, failure(code, f"refused: {why}"), extra)


async def read_capped(receive: Receive, limit: int) -> bytes:
    """The request body, refused (BodyTooLarge) as soon as it passes `limit` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the request body is over this server's {limit} bytes (--max-body)")
        parts.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(parts)
