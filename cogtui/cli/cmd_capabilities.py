"""`cogn capabilities [--provider P]`: the SPEC-v2.5 §8.1 capability declaration, per provider."""

from __future__ import annotations

import argparse


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", choices=("anthropic", "openai", "replay"), help="only this provider")


def run(args: argparse.Namespace) -> int:
    from cogtui.core.run.providers import PROVIDERS, make_provider

    from .output import Printer

    names = [args.provider] if args.provider else list(PROVIDERS)
    docs = [make_provider(name).capabilities() for name in names]
    Printer().json(docs[0] if args.provider else {"providers": docs})
    return 0
