"""`cogn insights [NAME | --module NAME] [--json]`: overflow insights and custom enum values, aggregated from the
history (NAME as in `cogn history NAME`)."""

from __future__ import annotations

import argparse

from .output import Printer, err, mistyped_module


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help="only this module (as --module)")
    p.add_argument("--module", metavar="NAME", help="only this module")
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from cogtui.core.history.store import History, HistoryError

    if args.name and args.module and args.name != args.module:
        err(f"two modules given ({args.name} and --module {args.module}): give one")
        return 2
    module = args.name or args.module
    try:
        with History.open_default() as history:
            agg = history.insights(module)
            skipped = list(history.skipped)
            recorded = history.modules() if module else []
    except HistoryError as exc:
        err(str(exc))
        return 2
    for problem in skipped:  # damaged rows: left out, said, never a crash
        err(f"warning: {problem}")
    if module and module not in recorded and (guess := mistyped_module(module, recorded, args.paths)):
        err(f"no runs of {module!r} recorded, and no module of that name{guess}")
        return 2
    p = Printer()
    if args.json:
        items = [{"kind": "insight", **i} for i in agg["insights"]]
        items += [{"kind": "custom_enum", **c} for c in agg["custom_enums"]]
        summary = {
            "module": module,
            "insights": len(agg["insights"]),
            "custom_enums": len(agg["custom_enums"]),
            "excluded": agg["excluded"],
        }
        p.document("insights", "items", items, summary)
        return 0
    left_out = agg["excluded"]
    if left_out["runs"]:  # only runs that passed their contract count (HIST-1)
        p.line(
            f"Not counted: {left_out['runs']} run(s) that failed their contract, with {left_out['insights']} "
            f"insight(s) and {left_out['custom_enums']} custom enum value(s).",
            "dim",
        )
    if not agg["insights"] and not agg["custom_enums"]:
        where = f"in {module}'s runs" if module else "yet"
        p.line(f"No insights recorded {where}. Run some modules first (cogn run).", "dim")
        return 0
    if agg["insights"]:
        rows = [
            [
                i["suggested_mapping"] or "(none)",
                str(i["count"]),
                ", ".join(i["modules"]),
                (i["examples"][0]["text"] if i["examples"] else "")[:60],
                i["last_seen"][:10],
            ]
            for i in agg["insights"]
        ]
        p.table(["SUGGESTED MAPPING", "COUNT", "MODULES", "EXAMPLE", "LAST SEEN"], rows, title="Overflow insights")
        p.line()
    if agg["custom_enums"]:
        rows = [
            [c["module"], c["field"], c["value"], str(c["count"]), (c["reasons"][0] if c["reasons"] else "")[:60]]
            for c in agg["custom_enums"]
        ]
        p.table(["MODULE", "FIELD", "CUSTOM VALUE", "COUNT", "REASON"], rows, title="Custom enum values")
    return 0
