"""`cogn history export [--module M] [--since T] > runs.ndjson` and `cogn history import FILE|-`.

Export writes one run per line (see core/history/transfer.py for the line);
import validates every line, stores the good ones, skips runs already stored,
and reports each bad line with its number. Exit codes: 0 done, 1 some lines
were bad (the good ones are imported), 2 the history or the file cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .output import Printer, err


def export(args: argparse.Namespace) -> int:
    from cogtui.core.history.store import History, HistoryError
    from cogtui.core.history.transfer import BadLine, export_runs, parse_time

    try:
        since = None if args.since is None else parse_time(args.since)
    except BadLine as exc:
        err(f"--since: {exc}")
        return 2
    try:
        with History.open_default() as history:
            count = export_runs(history, sys.stdout, args.module_filter, since)
            skipped = list(history.skipped)
    except HistoryError as exc:
        err(str(exc))
        return 2
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        return 0
    for problem in skipped:  # damaged rows are not exported: said, never a crash
        err(f"warning: {problem}")
    if not args.json:
        err(f"exported {count:,} run{'s' * (count != 1)}")
    return 0


def import_(args: argparse.Namespace) -> int:
    from cogtui.core.history.store import History, HistoryError
    from cogtui.core.history.transfer import import_runs

    name = args.file
    try:
        stream = sys.stdin.buffer if name == "-" else Path(name).open("rb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        err(f"cannot read {name}: {exc.strerror or exc}")
        return 2
    try:
        with stream, History.open_default() as history:
            report = import_runs(history, stream)
    except HistoryError as exc:
        err(str(exc))
        return 2
    except OSError as exc:
        err(f"cannot read {name}: {exc.strerror or exc}")
        return 2
    label = "<stdin>" if name == "-" else name
    p = Printer()
    if args.json:
        bad = [{"line": n, "error": why} for n, why in report.bad]
        summary = {"file": label, "imported": report.imported, "duplicates": report.duplicates, "bad": len(bad)}
        p.document("history import", "items", bad, summary)
    else:
        for number, why in report.bad:
            err(f"{label}:{number}: {why}")
        p.line(
            f"imported {report.imported:,}, skipped {report.duplicates:,} already stored, "
            f"{len(report.bad):,} bad line{'s' * (len(report.bad) != 1)}"
        )
    return 1 if report.bad else 0
