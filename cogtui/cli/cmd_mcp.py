"""`cogn mcp [--http [--host H] [--port P]] [--provider P] [--model M] [-j N] ...`: modules as MCP tools.

Over stdio by default (what an agent starts: Claude Code, Cursor; docs/agents.md has their config), or over
streamable HTTP at `/mcp` with --http. The server itself: cogtui/serve/mcp_server.py. stdout carries the
protocol only; everything the server says (modules not offered and why, changes) goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio

from .listening import address_options
from .serving import Started, serving_options, start, target_words, token

PROG = "cogn mcp"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    address_options(p, 8001, any_port=True)
    serving_options(p)


def run(args: argparse.Namespace) -> int:
    started = start(args, PROG, listen=args.http)
    if isinstance(started, int):
        return started
    return asyncio.run(_serve(args, started))


async def _serve(args: argparse.Namespace, started: Started) -> int:
    from cogtui.serve.mcp_server import ModuleTools

    sock, live, service, log = started.sock, started.live, started.service, started.log
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
            from cogtui.serve.guard import Guard
            from cogtui.serve.running import serve_asgi, url_of

            app = server.streamable_http_app(host=args.host)
            log(f"{offered} on {url_of(sock, args.host)}/mcp")
            await serve_asgi(Guard(app, args.host, sock.getsockname()[1], token(), log), sock)
    finally:
        watching.cancel()
        await service.aclose()
    return 0
