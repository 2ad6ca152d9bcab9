"""`cogn prompt NAME|PATH [--input FILE|-|JSON] [-a TEXT] [--provider P] [--model M] [--json]`: the prompt as sent.

The messages exactly as the provider would receive them (core/run/prompt_preview.py): system, user (with the
input and `@call:` placeholders), the structured-output schema and the attachments by reference, then the input
tokens (Anthropic's count when its key is set, otherwise an estimate, said to be one) and the cost from the price
table. Nothing is sent to a model. Exit 0, or 1 when a run would be refused before any call (said with its
E-code), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from cogtui.core.run.providers import PROVIDERS

from .output import Printer, config_warnings, deprecation_notice, err, open_workspace


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="NAME|PATH", help="a module name on the search path, or a module folder")
    p.add_argument("--input", metavar="FILE|-|JSON", help="the input: a JSON file, - for stdin, or inline JSON")
    p.add_argument("-a", "--args", metavar="TEXT", help="text for $ARGUMENTS in the prompt (and a $ARGUMENTS input)")
    p.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="whose request to show (default: $COGNITIVE_PROVIDER, config, else replay)",
    )
    p.add_argument("--model", metavar="M", help="the provider's model (its price, and the body's model)")
    p.add_argument("--json", action="store_true", help="print the request as JSON (docs/cli.md)")
    p.epilog = "Nothing is sent to a model; Anthropic's token count is asked when ANTHROPIC_API_KEY is set."


def run(args: argparse.Namespace) -> int:
    from cogtui.core.module.loader import NotAModule
    from cogtui.core.run.providers import UnknownProvider, make_provider
    from cogtui.core.settings.config import load_config

    from .cmd_run import read_input

    cfg = load_config()
    config_warnings(cfg)
    try:
        input_value = read_input(args.input)
    except ValueError as exc:
        err(str(exc))
        return 2
    ws = open_workspace(args.paths)
    try:
        module = ws.load(args.target)
        provider = make_provider(args.provider, args.model, cfg)
    except (NotAModule, UnknownProvider) as exc:
        err(str(exc))
        return 2
    deprecation_notice(module)
    return asyncio.run(_preview(module, input_value, provider, ws, cfg, args))


async def _preview(module: Any, input_value: Any, provider: Any, ws: Any, cfg: Any, args: argparse.Namespace) -> int:
    from cogtui.core.run.arguments import fill_arguments
    from cogtui.core.run.prompt_preview import prompt_as_sent
    from cogtui.core.run.runner import RunOptions

    options = RunOptions(provider, args=args.args, resolver=ws.find, media_roots=cfg.media_roots)
    try:
        preview = await prompt_as_sent(module, fill_arguments(module, input_value, args.args), options, cfg.prices)
    finally:
        await provider.aclose()
    p = Printer()
    if args.json:
        summary = {
            "provider": preview.provider,
            "model": preview.model,
            "input_tokens": preview.tokens,
            "tokens_counted": preview.counted,
            "cost_usd": preview.cost_usd,
            "refused": preview.problem is not None,
        }
        p.document("prompt", "modules", [{**preview.to_json(), "path": str(module.path)}], summary)
        return 1 if preview.problem is not None else 0
    print_preview(p, preview)
    return 1 if preview.problem is not None else 0


def print_preview(p: Printer, preview: Any) -> None:
    head = f"{preview.module} on {preview.provider}" + (
        f" {preview.model}" if preview.model != preview.provider else ""
    )
    p.parts((head, "bold"), (" · the prompt as sent; nothing is sent to a model", "dim"))
    if preview.problem is not None:
        problem = preview.problem
        p.parts(("✗ the run would be refused: ", "error"), (f"{problem.get('code')} {problem.get('message')}", None))
        if problem.get("suggestion"):
            p.line(f"  suggestion: {problem['suggestion']}", "warning")
        return
    from cogtui.core.run.prompt_preview import sections, token_line

    for head, text in sections(preview):
        p.line()
        p.line(f"── {head} ──", "hunk")
        for line in text.splitlines():
            p.line(line)
    for warning in preview.warnings:
        p.line(f"note: {warning}", "warning")
    p.line()
    p.line(token_line(preview), "bold")
