"""`cogtui review PLAN.json`: page through a saved migration plan (for example a CI artifact), read-only."""

from __future__ import annotations

import argparse
from pathlib import Path

from .output import err


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "plan", metavar="PLAN.json", help="the output of `cogn migrate --dry-run --json` (one module or --all)"
    )


def run(args: argparse.Namespace) -> int:
    from cogtui.core.authoring.migration.review import PlanFileError, load_plan_file

    path = Path(args.plan)
    try:
        load_plan_file(path)  # fail here, with a message, rather than inside the TUI
    except PlanFileError as exc:
        err(str(exc))
        return 2
    from ..tui.app import run_app

    args.review = str(path)
    return run_app(args)
