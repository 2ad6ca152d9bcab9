"""`cogtui serve [--host H] [--port P]`: the TUI in a web browser, through textual-serve (optional extra)."""

from __future__ import annotations

import argparse
import shlex
import sys

from .output import err


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="localhost", help="address to listen on (default localhost)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")


def run(args: argparse.Namespace) -> int:
    try:
        from textual_serve.server import Server
    except ImportError:
        err("cogtui serve needs textual-serve: pip install 'cogtui[serve]'")
        return 2
    command = [sys.executable, "-m", "cogtui"]
    for path in args.paths:
        command += ["--path", path]
    Server(shlex.join(command), host=args.host, port=args.port, title="cogtui").serve()
    return 0
