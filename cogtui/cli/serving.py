"""What `cogn serve` and `cogn mcp` share: the flags that choose the target and bound the runs, and the start.

The provider and model come from the flags, else `COGNITIVE_PROVIDER`/`COGNITIVE_MODEL`, else config.yaml,
as for `cogn run`; a call names another only when the server is started with --allow-target-override (SERVE-4).
Both need the `serve` extra (the MCP SDK, starlette, uvicorn; SERVE-1): without it they say so and exit 2.
"""

from __future__ import annotations

import argparse
import os
from importlib import import_module
from typing import TYPE_CHECKING, Any

from cogtui.core.run.providers import PROVIDERS

from .listening import is_loopback
from .output import err

if TYPE_CHECKING:
    import socket

    from cogtui.core.serving.runs import RunService
    from cogtui.serve.live import LiveCatalogue, Log

EXTRA_PACKAGES = ("mcp", "starlette", "uvicorn")
# What each command serves with (cogtui/serve imports the extra's packages): checked before anything starts.
NEEDS = {
    "cogn serve": ("starlette", "uvicorn", "cogtui.serve.http_api", "cogtui.serve.running"),
    "cogn mcp": ("mcp", "starlette", "uvicorn", "cogtui.serve.mcp_server", "cogtui.serve.running"),
}


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: give a number above 0")
    return value


def serving_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", choices=PROVIDERS, help="default: $COGNITIVE_PROVIDER, config, else replay")
    p.add_argument("--model", metavar="M", help="model name for the provider")
    p.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=4,
        metavar="N",
        help="model calls in flight at once, as for eval (default 4); more runs wait their turn",
    )
    p.add_argument("--no-history", action="store_true", help="do not record the runs")
    p.add_argument(
        "--allow-target-override",
        action="store_true",
        help="let a call choose the provider and model (default: the server's, always)",
    )


def missing_extra(prog: str) -> int | None:
    """Exit code 2 (said) when the serve extra is not installed, or not whole; None when it is. The modules the
    command serves with are imported here, as they would be a moment later: a package that is missing, or that
    fails to import (a broken or partial install), is named instead of a traceback."""
    for name in NEEDS.get(prog, ()):
        try:
            import_module(name)
        except ImportError as exc:
            missing = exc.name if exc.name and not exc.name.startswith("cogtui") else name
            err(f"{prog} needs the serve extra ({', '.join(EXTRA_PACKAGES)}): {missing} cannot be imported ({exc})")
            err("install it: pip install 'cogtui[serve]' (pipx: pipx install --force 'cogtui[serve]')")
            return 2
    return None


def exposure_warning(prog: str, host: str, token: str | None) -> None:
    """Said before a server listens anywhere but on this machine."""
    if is_loopback(host):
        return
    guard = "a request must carry $COGTUI_SERVE_TOKEN" if token else "no token is asked for (set COGTUI_SERVE_TOKEN)"
    err(f"warning: {prog} listens on {host}: whoever reaches it runs modules with your API keys; {guard}")


def start_service(args: argparse.Namespace, log: Log) -> tuple[LiveCatalogue, RunService] | int:
    """The live catalogue (looked at once) and the run service on the chosen provider; an exit code when the
    flags or config cannot give one."""
    from cogtui.core.run.output_fixes import parse_fixes
    from cogtui.core.run.providers import UnknownProvider, make_provider
    from cogtui.core.serving.catalogue import Catalogue
    from cogtui.core.serving.runs import RunService
    from cogtui.core.settings.config import load_config
    from cogtui.serve.live import LiveCatalogue

    from .output import config_warnings

    cfg = load_config()
    config_warnings(cfg)
    for problem in parse_fixes(cfg.output_fixes)[1]:
        err(f"config.yaml: {problem}")
    try:
        provider = make_provider(args.provider, args.model, cfg)
    except UnknownProvider as exc:
        err(str(exc))
        return 2
    live = LiveCatalogue(Catalogue.from_environment(args.paths), log)
    live.first_look()

    def resolver(name: str) -> Any:  # an offered module as offered, else as the search path has it now
        offer = live.catalogue.offers.get(name)
        return offer.module if offer is not None else live.catalogue.workspace.find(name)

    service = RunService(
        provider,
        cfg,
        jobs=args.jobs,
        resolver=resolver,
        record=not args.no_history,
        allow_target_override=args.allow_target_override,
        on_note=log,
    )
    return live, service


class Started:
    """A server ready to serve: its log, its socket (None over stdio), its catalogue and run service."""

    def __init__(self, log: Log, sock: socket.socket | None, live: LiveCatalogue, service: RunService) -> None:
        self.log, self.sock, self.live, self.service = log, sock, live, service


def start(args: argparse.Namespace, prog: str, listen: bool) -> Started | int:
    """The extra checked, the address bound (when `listen`), the catalogue looked at and the run service made; an
    exit code (said) when one of them cannot be."""
    if (code := missing_extra(prog)) is not None:
        return code
    from cogtui.serve.live import Log
    from cogtui.serve.running import bind

    log = Log(prog)
    sock = None
    if listen:
        exposure_warning(prog, args.host, token())
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
    return Started(log, sock, *started)


def token() -> str | None:
    return os.environ.get("COGTUI_SERVE_TOKEN") or None


def target_words(service: RunService) -> str:
    model = getattr(service.default, "model", None)
    return service.default.name + (f"/{model}" if model and model != service.default.name else "")
