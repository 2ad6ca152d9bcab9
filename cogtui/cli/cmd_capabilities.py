"""`cogn capabilities [--provider P]`: the SPEC-v2.5 §8.1 capability declaration, per provider."""

from __future__ import annotations

import argparse

from cogtui.core.run.providers import PROVIDERS, declared
from cogtui.core.settings.config import load_config


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", choices=PROVIDERS, help="only this provider")


def run(args: argparse.Namespace) -> int:
    from .output import Printer

    config = load_config()
    names = [args.provider] if args.provider else list(PROVIDERS)
    docs = [declared(name, config)[1] for name in names]  # from each spec: no provider is built
    Printer().json(docs[0] if args.provider else {"providers": docs})
    return 0
