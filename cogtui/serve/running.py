"""Serving an ASGI app with uvicorn on a socket bound beforehand (so the address is known, port 0 included)."""

from __future__ import annotations

import logging
import socket
from typing import Any

MAX_CONNECTIONS = 1000  # open connections beyond which uvicorn answers 503 (--max-connections)
GRACE = 5  # seconds given to open responses at shutdown before they are cancelled (their runs recorded)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (0: any free port); OSError says why not."""
    family, kind, proto, _name, where = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(where)
        sock.listen(1024)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


class _Said(logging.Filter):
    """uvicorn's "returned without completing response" is how a response cut off at the write timeout ends (ASGI
    has no other way to drop a client that stopped reading); the server's log has said so in its own words."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "ASGI callable returned without completing response."


async def serve_asgi(app: Any, sock: socket.socket, max_connections: int = MAX_CONNECTIONS) -> None:
    """Serve until a signal (Ctrl-C, SIGTERM) ends it; uvicorn's own log says only warnings and errors."""
    import uvicorn

    logging.getLogger("uvicorn.error").addFilter(_Said())
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        limit_concurrency=max_connections,
        timeout_graceful_shutdown=GRACE,
        server_header=False,
    )
    await uvicorn.Server(config).serve(sockets=[sock])
