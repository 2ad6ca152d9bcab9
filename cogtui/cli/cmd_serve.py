"""`cogn serve [--host H] [--port P] [--provider P] [--model M] [-j N] ...`: the modules over HTTP.

The routes, the stream transports and the OpenAPI document: cogtui/serve/http_api.py; who may call it:
cogtui/serve/guard.py; docs/agents.md says how to use it. The TUI in a browser, which `cogn serve` was,
is `cogtui web` now; `cogn serve --tui` says so.
"""

from __future__ import annotations

import argparse
import asyncio

from .listening import address_options
from .output import err
from .serving import Started, positive_int, serving_options, start, target_words, token

PROG = "cogn serve"


def configure(p: argparse.ArgumentParser) -> None:
    address_options(p, 8000, any_port=True)
    serving_options(p)
    p.add_argument(
        "--max-body", type=positive_int, default=1 << 20, metavar="BYTES", help="largest request body (default 1 MiB)"
    )
    p.add_argument(
        "--write-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds a client may take to accept a write before its run is cancelled (default 30)",
    )
    p.add_argument(
        "--max-connections", type=positive_int, default=1000, metavar="N", help="open connections (default 1000)"
    )
    p.add_argument("--tui", action="store_true", help="(moved) the TUI in a browser is `cogtui web` now")


def run(args: argparse.Namespace) -> int:
    if args.tui:
        err("the TUI in a browser moved to `cogtui web` (same flags: --host, --port); `cogn serve` is the HTTP API now")
        return 2
    started = start(args, PROG, listen=True)
    if isinstance(started, int):
        return started
    return asyncio.run(_serve(args, started))


async def _serve(args: argparse.Namespace, started: Started) -> int:
    from cogtui.serve.guard import Guard
    from cogtui.serve.http_api import ModuleApi
    from cogtui.serve.running import serve_asgi, url_of

    sock, live, service, log = started.sock, started.live, started.service, started.log
    assert sock is not None
    api = ModuleApi(live, service, max_body=args.max_body, write_timeout=args.write_timeout)
    app = Guard(api.app(), args.host, sock.getsockname()[1], token(), log, args.max_body)
    n = len(live.catalogue.offers)
    log(
        f"{n} module{'s' * (n != 1)} on {url_of(sock, args.host)} (provider {target_words(service)}, "
        f"{args.jobs} model calls at once); OpenAPI at /openapi.json"
    )
    watching = asyncio.get_running_loop().create_task(live.follow())
    try:
        await serve_asgi(app, sock, args.max_connections)
    finally:
        watching.cancel()
        await service.aclose()
    return 0
