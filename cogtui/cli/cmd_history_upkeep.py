"""`cogn history flush` (record the runs kept in the outbox) and `cogn history check` (the insights totals
against a recount of the rows).

flush: 0 nothing is left waiting, 1 some kept lines could not be read or the history refused their runs (set
aside, each named with its line number), 2 the history cannot be used (the runs stay kept). check: 0 the totals
agree, 1 they differ (each difference listed), 2 the history cannot be used.
"""

from __future__ import annotations

import argparse
from typing import Any

from .output import Printer, err


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' * (n != 1)}"


def flush(args: argparse.Namespace) -> int:
    from cogtui.core.history.location import default_location
    from cogtui.core.history.outbox import Outbox
    from cogtui.core.history.store import History, HistoryConfigError, HistoryError

    try:
        location = default_location()
    except HistoryConfigError as exc:
        err(str(exc))
        return 2
    outbox = Outbox(location)
    try:
        with History(location) as history:
            delivery = history.flush()
    except HistoryError as exc:
        err(str(exc))
        if waiting := outbox.waiting():
            err(f"{_plural(waiting, 'run')} waiting in {outbox.path}, recorded once the history can take them")
        if args.json:
            summary = {"history": str(location.display), "outbox": str(outbox.path), "waiting": waiting}
            Printer().document("history flush", "items", [], summary)
        return 2
    p = Printer()
    aside = sorted([(n, why, False) for n, why in delivery.set_aside] + [(n, why, True) for n, why in delivery.refused])
    if args.json:  # the items are the kept runs set aside (unreadable, or refused by the history), by their line
        p.document(
            "history flush",
            "items",
            [{"line": n, "why": why, "refused": refused} for n, why, refused in aside],
            {
                "history": str(location.display),
                "outbox": str(outbox.path),
                "recorded": delivery.delivered,
                "already_stored": delivery.already,
                "set_aside": len(aside),
                "set_aside_file": str(outbox.set_aside_path) if aside else None,
                "waiting": delivery.waiting,
                "problem": delivery.problem,
            },
        )
    else:
        for number, why, refused in aside:
            what = f"the history refused a kept run ({why})" if refused else f"a kept run cannot be read ({why})"
            err(f"{outbox.path}:{number}: {what}; moved to {outbox.set_aside_path}")
        if delivery.waiting:
            err(f"{_plural(delivery.waiting, 'run')} still waiting in {outbox.path}: {delivery.problem}")
        already = f" ({delivery.already:,} of them stored already)" if delivery.already else ""
        stored = delivery.delivered + delivery.already
        p.line(f"{_plural(stored, 'kept run')} recorded in {location.display}{already}; {delivery.waiting:,} waiting")
    if delivery.waiting:
        return 2
    return 1 if aside else 0


def check(args: argparse.Namespace) -> int:
    from cogtui.core.history.store import History, HistoryError

    try:
        with History.open_default() as history:
            report = history.check()
            where, waiting = history.where, history.waiting
    except HistoryError as exc:
        err(str(exc))
        return 2
    p = Printer()
    if args.json:  # the items are the totals that differ from the recount
        summary: dict[str, Any] = {"history": str(where), **report.to_json(), "waiting": waiting}
        p.document("history check", "items", summary.pop("differences"), summary)
        return 0 if report.agrees else 1
    head = f"{where}: {_plural(report.runs, 'run')}"
    if report.agrees:
        p.line(f"{head}; the insights totals agree with a recount of the rows ({_plural(report.groups, 'total')})")
    else:
        p.line(f"{head}; the insights totals differ from a recount of the rows:")
        for difference in report.differences[:50]:
            p.line(f"  ✗ {difference}")
        if len(report.differences) > 50:
            p.line(f"  … and {len(report.differences) - 50:,} more")
        if report.stray_rows:
            p.line(f"  ✗ {_plural(report.stray_rows, 'insight or enum row')} of runs that failed their contract")
        p.line(
            "The totals are written in the same transaction as the runs they count: a difference means the tables "
            "were changed by hand, or a cogtui bug (please report it with this output)."
        )
    if report.shared_keys:
        p.line(
            f"{_plural(report.shared_keys, 'run')} share their key with another (same module, input, provider, "
            "model, millisecond and envelope)",
            "dim",
        )
    if waiting:
        err(f"{_plural(waiting, 'run')} still waiting in the outbox: cogn history flush says why")
    return 0 if report.agrees else 1
