"""`cogn mcp [--http [--host H] [--port P]] [--provider P] [--model M] [-j N] ...`: modules as MCP tools.

Over stdio by default (what an agent starts: Claude Code, Cursor; docs/agents.md has their config), or over
streamable HTTP at `/mcp` with --http. The server itself: cogtui/serve/mcp_server.py. stdout carries the
protocol only; everything the server says (modules not offered and why, changes) goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from .listening import address_options
from .output import err
from .serving import exposure_warning, missing_extra, serving_options, start_service, target_words, token

if TYPE_CHECKING:
    from cogtui.core.serving.runs import RunService
    from cogtui.serve.live import LiveCatalogue, Log

PROG = "cogn mcp"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    address_options(p, 8001, any_port=True)
    serving_options(p)


def run(args: argparse.Namespace) -> int:
    if (code := missing_extra(PROG)) is not None:
        return code
    from cogtui.serve.live import Log

    log = Log(PROG)
    sock = None
    if args.http:
        from cogtui.serve.running import bind

        exposure_warning(PROG, args.host, token())
        try:
            sock = bind(args.host, args.port)
        except OSError as exc:
            err(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
            return 2
    started = start_service(args, log)
    if isinstance(started, int):
        if sock is not None:
            sock.close()
        return started
    live, service = started
    return asyncio.run(_serve(args, sock, live, service, log))


async def _serve(args: argparse.Namespace, sock: object, live: LiveCatalogue, service: RunService, log: Log) -> int:
    from cogtui.serve.mcp_server import ModuleTools

    tools = ModuleTools(live, service, log)
    server = tools.server()
    n = len(live.catalogue.offers)
    offered = f"{n} module{'s' * (n != 1)} as tools (provider {target_words(service)})"
    watching = asyncio.get_running_loop().create_task(live.follow())
    try:
        if sock is None:
            from mcp.server.stdio import stdio_server

            log(f"{offered} on stdio")
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        else:
            import socket

            from cogtui.serve.guard import Guard
            from cogtui.serve.running import serve_asgi, url_of

            assert isinstance(sock, socket.socket)
            app = server.streamable_http_app(host=args.host)
            log(f"{offered} on {url_of(sock, args.host)}/mcp")
            await serve_asgi(Guard(app, args.host, sock.getsockname()[1], token(), log), sock)
    finally:
        watching.cancel()
        await service.aclose()
    return 0
