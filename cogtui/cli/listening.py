"""The address a server listens on (`cogtui web`, `cogn serve`, `cogn mcp --http`): flags, checks, warnings.

Each listens on localhost by default. Any other address is said as such before the server starts, and the
address is tried first: taken, unresolvable or out of range is a usage error (exit 2), not an internal one.
"""

from __future__ import annotations

import argparse
import socket

LOOPBACK = ("localhost", "127.0.0.1", "::1")


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (1-65535)")
    return port


def port_or_any(text: str) -> int:
    """A port, or 0 for any free one (the server says which)."""
    return 0 if text.strip() == "0" else port_number(text)


def address_options(p: argparse.ArgumentParser, port: int, any_port: bool = False) -> None:
    p.add_argument("--host", default="localhost", help="address to listen on (default localhost)")
    if any_port:
        p.add_argument("--port", type=port_or_any, default=port, help=f"port (default {port}; 0: any free port)")
    else:
        p.add_argument("--port", type=port_number, default=port, help=f"port (default {port})")


def address_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port, or None (the address is free and this machine's)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot listen on {host}: {exc.strerror or exc}"
    family, kind, proto, _name, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError as exc:
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def is_loopback(host: str) -> bool:
    return host in LOOPBACK or host.startswith("127.")
