"""`cogtui web [--host H] [--port P]`: the TUI in a web browser, through textual-serve (the `web` extra).

Anyone who can reach the address drives the TUI, which runs modules with the user's API keys and edits
their files, and no token is asked for. So it listens on localhost by default, and any other address is said
as such before it starts (docs/agents.md). `cogn serve` is the HTTP API.
textual-serve checks neither Host nor Origin: the server here (web_server.py, SEC-7) refuses a request another site's page made (DNS rebinding, a cross-site WebSocket).
The address is tried before textual-serve starts: taken, unresolvable or out of range is a usage error, not
an internal one.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from .listening import LOOPBACK, address_options, address_problem
from .output import err


def configure(p: argparse.ArgumentParser) -> None:
    address_options(p, 8000)


def run(args: argparse.Namespace) -> int:
    problem = address_problem(args.host, args.port)
    if problem is not None:
        err(problem)
        return 2
    try:
        from .web_server import GuardedServer
    except ImportError:
        err("cogtui web needs textual-serve: pip install 'cogtui[web]'")
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
