"""`cogn remove NAME... [--user] [--force] [--json]`: installed modules and their lock entries gone."""

from __future__ import annotations

import argparse

from .install_view import common_options, exit_code, installer, print_json, print_outcome, print_summary
from .output import Printer


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="+", metavar="NAME", help="a module cogn add installed")
    common_options(p, "remove a module whose files have local changes")


def run(args: argparse.Namespace) -> int:
    with installer(args) as inst:
        if inst is None:
            return 2
        outcomes = [inst.remove(name) for name in dict.fromkeys(args.names)]
    if args.json:
        print_json("remove", outcomes)
        return exit_code(outcomes)
    p = Printer()
    for outcome in outcomes:
        print_outcome(p, outcome)
    print_summary(p, outcomes)
    return exit_code(outcomes)
