"""`cogn history [NAME] [--json] [--limit N]`, `cogn history export [--module M] [--since T]`,
`cogn history import FILE` (those two in cmd_history_transfer.py), `cogn history flush` and
`cogn history check` (cmd_history_upkeep.py)."""

from __future__ import annotations

import argparse
import datetime as dt

from .output import Printer, err, mistyped_module

MAX_LIMIT = 1_000_000_000


def run_limit(text: str) -> int:
    """A count of runs from 1 to a billion: SQLite's LIMIT takes 64-bit integers, and 0 or less means nothing useful."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"{value} is out of range (1 to {MAX_LIMIT:,})")
    return value


TRANSFERS = ("export", "import")
UPKEEP = ("flush", "check")


def configure(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List recorded runs (cogn history [NAME]); export them as NDJSON (cogn history export [--module M] "
        "[--since T] > runs.ndjson); import NDJSON runs (cogn history import runs.ndjson, or - for stdin); "
        "record the runs kept while the history could not take them (cogn history flush); compare the insights "
        "totals with a recount of the rows (cogn history check)."
    )
    p.add_argument(
        "module", nargs="?", metavar="NAME", help="only this module's runs; or export / import / flush / check"
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="import: the NDJSON file (- for stdin)")
    p.add_argument("--limit", type=run_limit, default=50, metavar="N", help="how many runs (default 50)")
    p.add_argument(
        "--module",
        dest="module_filter",
        metavar="M",
        help="only this module's runs (listing or export); names a module called export, import, flush or check",
    )
    p.add_argument("--since", metavar="T", help="export: runs started at or after T (ISO-8601 or epoch seconds)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _usage_problem(args: argparse.Namespace) -> str | None:
    if args.module in UPKEEP:
        extra = args.file or ("--module" if args.module_filter is not None else None)
        extra = extra or ("--since" if args.since is not None else None)
        return f"cogn history {args.module} takes no {extra!r}" if extra else None
    action = args.module if args.module in TRANSFERS else None
    if action == "import" and not args.file:
        return "cogn history import needs a file: cogn history import runs.ndjson (or - for stdin)"
    if action != "import" and args.file:
        return f"unexpected argument {args.file!r}"
    if action != "export" and args.since is not None:
        return "--since goes with export: cogn history export --since T"
    if action == "import" and args.module_filter is not None:
        return "--module goes with listing or export: cogn history --module M, cogn history export --module M"
    if action is None and args.module and args.module_filter is not None:
        return "give the module once: cogn history NAME, or cogn history --module NAME"
    return None


def _when(ts: float) -> str:
    """Local time for people reading a table (the JSON output has UTC ISO-8601)."""
    try:
        return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, ValueError, OSError, TypeError):
        return str(ts)  # a nonsense clock value is shown, not fatal


def _utc(ts: float) -> str:
    try:
        return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat()
    except (OverflowError, ValueError, OSError, TypeError):
        return str(ts)  # a nonsense clock value is shown, not fatal


def _say_waiting() -> None:
    """When the history cannot be opened: how many runs its outbox keeps for it."""
    from cogtui.core.history.location import default_location
    from cogtui.core.history.outbox import Outbox
    from cogtui.core.history.store import HistoryError

    try:
        outbox = Outbox(default_location())
    except HistoryError:
        return
    if waiting := outbox.waiting():
        err(f"{waiting:,} run{'s' * (waiting != 1)} waiting in {outbox.path}, recorded once the history can be opened")


def run(args: argparse.Namespace) -> int:
    problem = _usage_problem(args)
    if problem:
        err(problem)
        return 2
    if args.module in TRANSFERS:
        from . import cmd_history_transfer as transfer

        return transfer.export(args) if args.module == "export" else transfer.import_(args)
    if args.module in UPKEEP:
        from . import cmd_history_upkeep as upkeep

        return upkeep.flush(args) if args.module == "flush" else upkeep.check(args)
    from cogtui.core.history.store import History, HistoryError

    name = args.module_filter or args.module
    try:
        with History.open_default() as history:
            runs = history.runs(name, limit=args.limit)
            skipped = list(history.skipped)
            recorded = history.modules() if name and not runs else []
            waiting, notes = history.waiting, history.delivery.notes(history.outbox)
    except HistoryError as exc:
        err(str(exc))
        _say_waiting()
        return 2
    for problem in skipped:  # damaged rows: skipped, said, never a crash
        err(f"warning: {problem}")
    if name and not runs and (guess := mistyped_module(name, recorded, args.paths)):
        err(f"no runs of {name!r} recorded, and no module of that name{guess}")
        return 2
    for note in notes:  # runs kept earlier and recorded by this open, or still waiting (and why)
        err(f"note: {note}")
    p = Printer()
    if args.json:
        p.document(
            "history",
            "items",
            [
                {
                    "id": r.id,
                    "module": r.module,
                    "module_version": r.module_version,
                    "format": r.module_format,
                    "provider": r.provider,
                    "model": r.model,
                    "input_hash": r.input_hash,
                    "started_at": _utc(r.started_at),
                    "ttfc_ms": r.ttfc_ms,
                    "total_ms": r.total_ms,
                    "usage": r.usage,
                    "outcome": r.outcome,
                    "error_code": r.error_code,
                    "envelope": r.envelope,
                }
                for r in runs
            ],
            {"runs": len(runs), "module": name, "limit": args.limit, "waiting": waiting},
        )
        return 0
    if not runs:
        p.line(f"No runs of {name} recorded." if name else "No runs recorded yet.", "dim")
        return 0
    rows = [
        [
            str(r.id),
            _when(r.started_at),
            r.module,
            f"{r.provider}/{r.model or '-'}",
            "✓ ok" if r.outcome == "ok" else (r.outcome if r.outcome == "interrupted" else f"✗ {r.error_code}"),
            f"{r.total_ms:.0f} ms" if r.total_ms is not None else "-",
        ]
        for r in runs
    ]
    p.table(["ID", "WHEN", "MODULE", "PROVIDER/MODEL", "OUTCOME", "TIME"], rows)
    return 0
