"""textual-serve's `Server`, answering only requests of its own pages (the rules: serve/origin.py, SEC-7).

textual-serve checks neither Host nor Origin and has no hook for it; its public request handlers
(`handle_index`, `handle_websocket`, `handle_download`, the methods its routes call) are overridden here to
refuse first and then hand over to textual-serve's own. Its `/static` files (its page's script and styles)
are public anyway and left as they are. tests/test_serve_origin.py drives a real server: if a textual-serve
release routed requests past these methods, that test fails.
"""

from __future__ import annotations

import sys

from aiohttp import web
from textual_serve.server import Server

from cogtui.core.files.terminal_text import visible
from cogtui.serve.origin import refusal

_SHOWN = 80  # characters of a refused request's Host or Origin in the server's log


class GuardedServer(Server):
    """A textual-serve server that answers a request only when it comes from one of its own pages."""

    def refuse_foreign(self, request: web.Request, websocket: bool = False) -> None:
        """Raise 403 (and say so on stderr) for a request another site's page made."""
        host, origin = request.headers.get("Host"), request.headers.get("Origin")
        why = refusal(host, origin, websocket, self.host, self.port)
        if why is None:
            return
        shown = visible(f"Host {str(host)[:_SHOWN]!r}, Origin {str(origin)[:_SHOWN]!r}")
        print(
            f"cogn serve: refused {request.method} {visible(request.path[:_SHOWN])}: {why} ({shown})", file=sys.stderr
        )
        raise web.HTTPForbidden(text=f"cogn serve refused this request: {why}\n")

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        self.refuse_foreign(request)
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        self.refuse_foreign(request, websocket=True)
        return await super().handle_websocket(request)

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        self.refuse_foreign(request)
        return await super().handle_download(request)
