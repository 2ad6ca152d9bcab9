"""Which requests a cogtui server answers: only those addressed to it, and for the TUI in a browser only those a
page of its own sent (SEC-7).

A web page the user visits elsewhere can reach http://localhost:8000 two ways. Any page may open
ws://localhost:8000/ws (WebSockets ignore the same-origin policy; the browser only says which page asked,
in `Origin`). And through DNS rebinding a page of evil.example is answered, seconds later, by 127.0.0.1:
the browser then calls it same-origin, but still sends `Host: evil.example:8000`. So a request is answered
only when its Host names this server (below), and a WebSocket only when its Origin is such a page too.

A name is this server's when it is `localhost`, the `--host` name itself, or an IP address literal: DNS
rebinding needs a name the attacker's DNS answers, and a browser never sends a name it did not resolve.
The port must be the served port. These rules are pure: `cli/web_server.py` (`cogtui web`) and `serve/guard.py`
(`cogn serve`, `cogn mcp --http`) apply them to requests.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def host_is_served(host_header: str | None, served_host: str, port: int, scheme: str = "http") -> bool:
    """True when a `Host` header (`name[:port]`, `[v6]:port`) names this server at its port."""
    if not host_header:
        return False
    try:
        parts = urlsplit(f"//{host_header}")
        name, given_port = parts.hostname, parts.port
    except ValueError:  # a port that is no number, an unclosed '['
        return False
    if name is None or parts.username is not None or parts.password is not None or parts.path:
        return False
    if (given_port if given_port is not None else DEFAULT_PORTS.get(scheme)) != port:
        return False
    if name in ("localhost", served_host.lower().strip("[]")):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def origin_is_served(origin: str | None, served_host: str, port: int) -> bool:
    """True when an `Origin` header is a page of this server (`null` or none is not: browsers send one)."""
    if not origin:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    if parts.scheme not in DEFAULT_PORTS or parts.path not in ("", "/") or parts.query or parts.fragment:
        return False
    return host_is_served(parts.netloc, served_host, port, parts.scheme)


def refusal(host_header: str | None, origin: str | None, websocket: bool, served_host: str, port: int) -> str | None:
    """Why a request is refused (for the server's log), or None when it is answered."""
    if not host_is_served(host_header, served_host, port):
        return "its Host is not this server's address (a page of another site, through DNS rebinding?)"
    if websocket and not origin_is_served(origin, served_host, port):
        return "its Origin is not a page of this server (another site's page opening the WebSocket?)"
    return None
