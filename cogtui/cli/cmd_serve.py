"""`cogn serve [--host H] [--port P]`: the TUI in a web browser, through textual-serve (optional extra).

Anyone who can reach the address drives the TUI, which runs modules with the user's API keys and edits
their files, and no token is asked for. So it listens on localhost by default, and any other address is said
as such before it starts (README, "Serving"). textual-serve checks neither Host nor Origin: the server here
(serve_server.py, D154a) refuses a request another site's page made (DNS rebinding, a cross-site WebSocket).
The address is tried before textual-serve starts: taken, unresolvable or out of range is a usage error, not
an internal one.
"""

from __future__ import annotations

import argparse
import shlex
import socket
import sys

from .output import err

LOOPBACK = ("localhost", "127.0.0.1", "::1")


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (1-65535)")
    return port


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="localhost", help="address to listen on (default localhost)")
    p.add_argument("--port", type=port_number, default=8000, help="port (default 8000)")


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


def run(args: argparse.Namespace) -> int:
    problem = address_problem(args.host, args.port)
    if problem is not None:
        err(problem)
        return 2
    try:
        from .serve_server import GuardedServer
    except ImportError:
        err("cogn serve needs textual-serve: pip install 'cogtui[serve]'")
        return 2
    if args.host not in LOOPBACK:
        err(
            f"warning: serving on {args.host}: anyone who can reach it drives cogtui (your API keys, your files); "
            "textual-serve asks for no token"
        )
    GuardedServer(shlex.join(served_command(args)), host=args.host, port=args.port, title="cogtui").serve()
    return 0


def served_command(args: argparse.Namespace) -> list[str]:
    """The cogtui each browser session starts: the search path and the theme given to `cogn serve`."""
    command = [sys.executable, "-m", "cogtui"]
    for path in args.paths:
        command += ["--path", path]
    if getattr(args, "theme", None):
        command += ["--theme", args.theme]
    return command
