"""`cogn lsp [--path DIR ...]`: the language server over stdio (docs/editors.md). stdout carries the protocol only.

It needs the lsp extra (pygls, lsprotocol): `pip install 'cogtui[lsp]'`. The server itself: cogtui/lsp/.
"""

from __future__ import annotations

import argparse
import importlib.util

from .output import err


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true", help="talk over stdin and stdout (the default and only transport)")


def run(args: argparse.Namespace) -> int:
    missing = [name for name in ("pygls", "lsprotocol") if importlib.util.find_spec(name) is None]
    if missing:
        err(f"cogn lsp needs the lsp extra ({', '.join(missing)} missing): pip install 'cogtui[lsp]'")
        return 2
    from cogtui.lsp.server import serve

    serve(args.paths)
    return 0
