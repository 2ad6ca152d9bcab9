"""`cogn update [NAME...] [--yes] [--user] [--force] [--json]`: installed modules moved to their newest
release tag (or their branch's head), each change shown as a diff before anything is written.

On a terminal without --yes, it asks; elsewhere without --yes, it shows the changes and writes nothing
(exit 3), so a CI job can tell "updates available" from "up to date" (exit 0).
"""

from __future__ import annotations

import argparse
import sys

from .install_view import (
    EX_PENDING,
    common_options,
    download_option,
    exit_code,
    installer,
    print_json,
    print_outcome,
    print_summary,
    without_lock,
)
from .output import Printer


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME", help="modules to update (default: every one in the lock)")
    p.add_argument("-y", "--yes", action="store_true", help="write the updates without asking")
    download_option(p)
    common_options(p, "replace a module whose files have local changes, or that another module would shadow")


def run(args: argparse.Namespace) -> int:
    p = Printer()
    if (missing := without_lock(args)) is not None:
        if args.json:
            print_json("update", [])
        else:
            p.line(f"nothing is installed here: there is no {missing.lock_path}", "dim")
        return 2 if args.names else 0
    with installer(args) as inst:
        if inst is None:
            return 2
        names = list(dict.fromkeys(args.names)) or sorted(inst.lock.entries)
        outcomes = [inst.check_update(name) for name in names]
        pending = [o for o in outcomes if o.status == "pending"]
        if not args.json:
            if not names:
                p.line(f"nothing is installed here ({inst.place.lock_path} lists no modules)", "dim")
            for outcome in outcomes:
                print_outcome(p, outcome)
        if pending and (args.yes or (not args.json and _confirmed(p, len(pending)))):
            applied = {o.name: inst.apply(o) for o in pending}
            outcomes = [applied.get(o.name, o) for o in outcomes]
            for outcome in applied.values():
                if outcome.status == "refused" and not args.json:
                    print_outcome(p, outcome)
    if args.json:
        print_json("update", outcomes)
        return exit_code(outcomes)
    updated = sum(o.status == "updated" for o in outcomes)
    if updated:
        p.line(f"updated {updated} of {len(pending)} module{'s' * (len(pending) != 1)}", "ok")
    elif pending:
        p.line("nothing was written: run `cogn update --yes` to write these updates", "warning")
    print_summary(p, outcomes)
    code = exit_code(outcomes)
    return EX_PENDING if code == 0 and pending and not updated else code


def _confirmed(p: Printer, count: int) -> bool:
    """Asked on a terminal (stdin and stdout); never elsewhere."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    try:
        answer = input(f"Write {count} update{'s' * (count != 1)}? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")
