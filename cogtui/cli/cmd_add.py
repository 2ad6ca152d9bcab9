"""`cogn add SOURCE[@REF|#COMMIT] [--module DIR] [--user] [--force] [--json]`, and `cogn add` alone: the
lock's modules reinstalled exactly (docs/sharing.md)."""

from __future__ import annotations

import argparse

from .install_view import (
    common_options,
    download_option,
    exit_code,
    installer,
    print_json,
    print_outcome,
    print_summary,
    without_lock,
)
from .output import Printer, err


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE[@REF|#COMMIT]",
        help="a git repository: https://, ssh://, git@host:path, file:// URL, owner/repo (GitHub) or a local path; "
        "@REF a tag or branch, #COMMIT a commit (default: the newest release tag, else the default branch). "
        "Without it, every module of cognitive.lock is installed as recorded",
    )
    p.add_argument(
        "-m",
        "--module",
        metavar="DIR",
        help="the module folder in the repository (its path, or its name), when the repository holds several",
    )
    download_option(p)
    common_options(
        p,
        "install over a folder cogn add did not install, local changes, or a module of the same name elsewhere "
        "on the search path",
    )


def run(args: argparse.Namespace) -> int:
    if args.source is None and args.module is not None:
        err("add: --module needs a SOURCE")
        return 2
    if args.source is None and (missing := without_lock(args)) is not None:
        err(
            f"add: no {missing.lock_path.name} in {missing.lock_path.parent}: nothing to install "
            "(cogn add SOURCE installs a module and writes it)"
        )
        return 2
    with installer(args, create=args.source is not None) as inst:
        if inst is None:
            return 2
        if args.source is None:
            outcomes = inst.reinstall()
        else:
            outcomes = [inst.add(args.source, args.module)]
    if args.json:
        print_json("add", outcomes)
        return exit_code(outcomes)
    p = Printer()
    if not outcomes:
        p.line(f"{inst.place.lock_path.name} lists no modules: nothing to install", "dim")
    for outcome in outcomes:
        print_outcome(p, outcome)
    print_summary(p, outcomes)
    return exit_code(outcomes)
