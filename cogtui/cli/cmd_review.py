"""`cogtui review PLAN.json`: page through a saved migration plan (for example a CI artifact), read-only.

`cogtui review -` reads the plan from stdin (`cogn migrate --all --dry-run --json | cogtui review -`):
the plan is read to its end first, then the TUI takes its keys from the terminal (`/dev/tty`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .output import err

if TYPE_CHECKING:
    from cogtui.core.authoring.migration.review import ReviewPlan

STDIN = "-"
STDIN_NAME = Path("<stdin>")
STDIN_LIMIT = 256 * 1024 * 1024  # a plan of thousands of modules is a few MiB; more is not a plan


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "plan",
        metavar="PLAN.json",
        help="the output of `cogn migrate --dry-run --json` (one module or --all); `-` reads it from stdin",
    )


def run(args: argparse.Namespace) -> int:
    from cogtui.core.authoring.migration.review import PlanFileError, load_plan_file, plans_from_bytes

    plans: list[ReviewPlan] | None = None
    try:
        if args.plan == STDIN:
            plans = plans_from_bytes(read_stdin(), STDIN_NAME)
            problem = use_terminal_for_keys()
            if problem is not None:
                err(problem)
                return 2
            path = STDIN_NAME
        else:
            path = Path(args.plan)
            load_plan_file(path)  # fail here, with a message, rather than inside the TUI
    except PlanFileError as exc:
        err(str(exc))
        return 2
    from cogtui.tui.app import run_app

    args.review = str(path)
    args.review_plans = plans
    return run_app(args)


def read_stdin() -> bytes:
    from cogtui.core.authoring.migration.review import PlanFileError

    raw = sys.stdin.buffer.read(STDIN_LIMIT + 1)
    if len(raw) > STDIN_LIMIT:
        raise PlanFileError(f"{STDIN_NAME}: more than {STDIN_LIMIT // 2**20} MiB: not a plan", STDIN_NAME)
    return raw


def use_terminal_for_keys() -> str | None:
    """stdin held the plan: the TUI reads its keys from the controlling terminal instead. None, or why not."""
    if sys.stdin.isatty():
        return None  # typed by hand and ended with ctrl+d: the terminal is still there
    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError as exc:
        return f"{STDIN_NAME}: the plan was read, but there is no terminal to review it on ({exc.strerror or exc})"
    os.dup2(tty, sys.stdin.fileno())
    os.close(tty)
    return None
