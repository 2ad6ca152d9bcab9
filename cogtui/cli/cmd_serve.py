"""`cogn serve [--host H] [--port P] [--provider P] [--model M] [-j N] ...`: the modules over HTTP (issue 35).

The routes, the stream transports and the OpenAPI document: cogtui/serve/http_api.py; who may call it:
cogtui/serve/guard.py; docs/agents.md says how to use it. The TUI in a browser, which `cogn serve` was,
is `cogtui web` now; `cogn serve --tui` says so.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from .listening import address_options
from .output import err
from .serving import exposure_warning, missing_extra, positive_int, serving_options, start_service, target_words, token

if TYPE_CHECKING:
    import socket

    from cogtui.core.serving.runs import RunService
    from cogtui.serve.live import LiveCatalogue, Log

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
    if (code := missing_extra(PROG)) is not None:
        return code
    from cogtui.serve.live import Log
    from cogtui.serve.running import bind

    log = Log(PROG)
    exposure_warning(PROG, args.host, token())
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        err(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        return 2
    started = start_service(args, log)
    if isinstance(started, int):
        sock.close()
        return started
    live, service = started
    return asyncio.run(_serve(args, sock, live, service, log))


async def _serve(
    args: argparse.Namespace, sock: socket.socket, live: LiveCatalogue, service: RunService, log: Log
) -> int:
    from cogtui.serve.guard import Guard
    from cogtui.serve.http_api import ModuleApi
    from cogtui.serve.running import serve_asgi, url_of

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
