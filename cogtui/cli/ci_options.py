"""The options `cogn validate` and `cogn test` share for CI and pre-commit: `--format` (docs/ci.md; the writers
are in ci_formats.py, imported only when a CI format is asked for) and `--files` (the changed files pre-commit
passes, turned into their module folders)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

FORMATS = ("text", "json", "github", "sarif", "junit")


def format_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="text (default), json (the --json document), github (workflow commands), sarif (SARIF 2.1.0), junit",
    )
    p.add_argument("--json", action="store_true", help="print JSON (the same as --format json)")


def chosen(args: argparse.Namespace) -> str | None:
    """The format asked for; None (said, exit 2) when --json and another --format disagree."""
    if args.json and args.format not in (None, "json"):
        print(f"--json and --format {args.format} ask for two formats: give one", file=sys.stderr)
        return None
    return "json" if args.json else args.format or "text"


# ---------------------------------------------------------------- pre-commit


def files_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--files",
        action="store_true",
        help=f"the arguments are files (what pre-commit passes): {what} the modules that hold them, each once",
    )


def one_target(command: str, args: argparse.Namespace) -> bool:
    """`args.target` (a list: several only with --files) made the one NAME|PATH the command takes, or None; False
    (said) when several are given without --files."""
    targets = list(args.target or [])
    if args.files:
        args.target = None
        return True
    if len(targets) > 1:
        print(f"{command} takes one NAME|PATH (or --files FILE... for the modules holding them)", file=sys.stderr)
        return False
    args.target = targets[0] if targets else None
    return True


def modules_of(files: Iterable[str]) -> list[Path]:
    """The module folders holding `files` (each once, in order); files of no module are left out."""
    from cogtui.core.assist.checked import module_root

    roots: dict[Path, None] = {}
    for name in files:
        root = module_root(Path(name).absolute())
        if root is not None:
            roots.setdefault(root, None)
    return list(roots)
