"""`cogn eval NAME|PATH|--all [--provider P [--model M]]... [-j N] [--baseline FILE|ID] [--json] [-o FILE] [--junit FILE]
[--judge-provider P [--judge-model M]] [--repeat N] [--max-score-drop X]`.

Every golden case against every target, at most N model calls at once; a
matrix of pass/fail with the failure's code, and per target the pass rate,
violations by code, latency p50/p95, tokens and estimated cost (docs/eval.md).
Exit 0 when every cell passes (with --baseline: when nothing regressed), 1
otherwise, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from cogtui.core.run.providers import PROVIDERS

from .output import (
    Printer,
    config_warnings,
    deprecation_notice,
    err,
    json_document,
    nothing_found,
    open_workspace,
    output_file_problem,
    target_problem,
    unjudged_folders,
    write_output_file,
)


class _TargetAction(argparse.Action):
    """--provider starts a target; --model sets the model of the target before it (or of the default provider)."""

    def __call__(self, parser: Any, ns: argparse.Namespace, value: Any, option: str | None = None) -> None:
        targets: list[list[str | None]] = list(getattr(ns, "targets", None) or [])
        if self.dest == "provider":
            targets.append([value, None])
        elif targets and targets[-1][1] is None:
            targets[-1][1] = value
        else:
            targets.append([targets[-1][0] if targets else None, value])
        ns.targets = targets


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="?", metavar="NAME|PATH", help="a module name or folder")
    p.add_argument("--all", action="store_true", help="every module on the search path")
    p.add_argument(
        "--provider",
        action=_TargetAction,
        choices=PROVIDERS,
        help="a target's provider (repeatable: one target each); default: $COGNITIVE_PROVIDER, config, else replay",
    )
    p.add_argument("--model", action=_TargetAction, metavar="M", help="the model of the --provider before it")
    p.add_argument("-j", "--jobs", type=int, default=4, metavar="N", help="model calls at once (default 4)")
    p.add_argument("--baseline", metavar="FILE|ID", help="compare with an earlier eval: its --json file or its id")
    p.add_argument("--json", action="store_true", help="print the report as JSON (docs/cli.md), not the matrix")
    p.add_argument("-o", "--output", metavar="FILE", help="also write the report as JSON to FILE (a later --baseline)")
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML to FILE, for CI")
    # Two flags, neither taking a value (CLI-2): `--cache NAME` would read NAME as the cache's mode.
    p.add_argument(
        "--cache",
        action="store_const",
        const="deterministic",
        help="reuse answers from history for identical requests (deterministic targets only)",
    )
    p.add_argument("--cache=any", dest="cache", action="store_const", const="any", help="as --cache, for every target")
    p.add_argument("--no-history", action="store_true", help="do not record the runs and the eval")
    judge_options(p)
    repeat_option(p)
    p.add_argument(
        "--max-score-drop",
        type=float,
        default=0.1,
        metavar="X",
        help="with --baseline: a judge score that fell by more than X fails (default 0.1)",
    )
    p.set_defaults(targets=[])
    p.epilog = (
        "Exit status: 0 when every cell passes (with --baseline: when no case regressed), 1 otherwise, "
        "2 for a usage error. Details: docs/eval.md; the JSON report: docs/cli.md"
    )


def judge_options(p: argparse.ArgumentParser) -> None:
    """--judge-provider/--judge-model: the target of `$judge` goldens' judge (docs/golden-tests.md)."""
    p.add_argument(
        "--judge-provider",
        choices=PROVIDERS,
        metavar="P",
        help="who scores $judge goldens (default: judge: in config.yaml; never the module's own target unasked)",
    )
    p.add_argument("--judge-model", metavar="M", help="the judge's model")


def repeat_option(p: argparse.ArgumentParser) -> None:
    """--repeat N: several samples of each case, folded by core/eval/samples.py (eval and test alike)."""
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each case N times; it passes when all do (its pass rate, and the judge score's mean and spread)",
    )


def make_judge(args: argparse.Namespace, cfg: Any, targets: list[str]) -> Any:
    """The judge's provider (None when none is set), said with a note when it is a target under test."""
    from cogtui.core.eval.model import Target
    from cogtui.core.run.judge import judge_provider, same_target_note

    judge = judge_provider(cfg, args.judge_provider, args.judge_model)
    if judge is not None and (note := same_target_note(Target(judge.name, judge.model).label, targets)):
        err(f"note: {note}")
    return judge


def run(args: argparse.Namespace) -> int:
    from cogtui.core.eval.model import BadReport, Target
    from cogtui.core.eval.targets import target_note
    from cogtui.core.module.loader import NotAModule, load_module
    from cogtui.core.run.providers import UnknownProvider, make_provider
    from cogtui.core.settings.config import load_config

    if (problem := target_problem("eval", args.target, args.all)) is not None:
        err(problem)
        return 2
    if args.jobs < 1 or args.repeat < 1:
        err("-j and --repeat must be at least 1")
        return 2
    if args.max_score_drop < 0:
        err("--max-score-drop must be 0 or more")
        return 2
    for target in (args.output, args.junit):  # before the model is paid
        if target and (problem := output_file_problem(target)) is not None:
            err(problem)
            return 2
    cfg = load_config()
    config_warnings(cfg)
    ws = open_workspace(args.paths, judging_all=args.all)
    if args.all and not ws.entries():
        return nothing_found(ws)
    targets: list[tuple[Any, Any]] = []
    try:
        modules = (
            [load_module(e.path) for e in ws.entries(include_shadowed=False)] if args.all else [ws.load(args.target)]
        )
        for provider_name, model in args.targets or [[None, None]]:
            provider = make_provider(provider_name, model, cfg)
            target = Target(provider.name, provider.model)
            listed = any(t.label == target.label for t, _ in targets)
            note = target_note(Target(provider.name, model), target, listed)
            if note:  # a model the provider has no use for, or the same target twice: said, not dropped silently
                err(f"note: {note}")
            if not listed:
                targets.append((target, provider))
        judge = make_judge(args, cfg, [t.label for t, _ in targets])
    except (NotAModule, UnknownProvider) as exc:
        err(str(exc))
        return 2
    if not args.all:
        deprecation_notice(modules[0])
    opened = _open_history(args)
    if isinstance(opened, int):
        return opened
    history, args.keep_runs_for = opened
    try:
        baseline = None
        if args.baseline:
            try:
                baseline = _read_baseline(args.baseline, history)
            except BadReport as exc:
                err(str(exc))
                return 2
        code = asyncio.run(_eval(modules, targets, judge, cfg, ws, history, baseline, args))
        return max(code, unjudged_folders(ws)) if args.all else code
    finally:
        if history is not None:
            history.close()


def _read_baseline(spec: str, history: Any) -> Any:
    """The baseline: from a file, or by eval id from the history, which `--no-history` leaves unrecorded, not
    unread: then the history is opened for this one read."""
    from cogtui.core.eval.baseline import is_eval_id, load_baseline
    from cogtui.core.eval.model import BadReport

    if history is not None or not is_eval_id(spec):
        return load_baseline(spec, history)
    from cogtui.core.history.store import History, HistoryError

    try:
        with History.open_default() as reader:
            return load_baseline(spec, reader)
    except HistoryError as exc:
        raise BadReport(f"baseline {spec} is an eval id, but the run history cannot be read: {exc}") from None


def _open_history(args: argparse.Namespace) -> tuple[Any, Any] | int:
    """(the history, None), or (None, its location) when it cannot be opened now: the runs go to it as the eval
    ends, else to its outbox (engine.open_history). Exit 2 (said) when the configured history cannot be used at
    all, as for `cogn run`: nothing could be kept for it, so the model is not paid."""
    if args.no_history:
        return None, None
    from cogtui.core.eval.engine import open_history
    from cogtui.core.history.store import HistoryConfigError

    try:
        history, location, why = open_history()
    except HistoryConfigError as exc:
        err(f"{exc} (--no-history runs the eval without recording it)")
        return 2
    if why is not None:
        err(f"warning: {why}; the eval's runs are recorded when it ends if the history can be opened then, else kept")
    return history, location


async def _eval(
    modules: list[Any],
    targets: list[Any],
    judge: Any,
    cfg: Any,
    ws: Any,
    history: Any,
    baseline: Any,
    args: argparse.Namespace,
) -> int:
    from cogtui.core.eval.engine import EvalSettings, run_eval
    from cogtui.core.run.runner import RunOptions

    def options(provider: Any) -> RunOptions:
        return RunOptions(provider, resolver=ws.find, deadline=cfg.run_deadline, media_roots=cfg.media_roots)

    settings = EvalSettings(
        jobs=args.jobs,
        cache=args.cache or "off",
        prices=cfg.prices,
        options=options,
        judge=judge,
        repeat=args.repeat,
        keep_runs_for=getattr(args, "keep_runs_for", None),
    )
    p = Printer()
    to_stdout = args.json
    total = sum(len(m.tests) for m in modules) * len(targets)
    progress = None
    if p.color and not to_stdout and total:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=p.console, transient=True
        )
        progress.start()
        task = progress.add_task("eval", total=total)

    def cell_done(cell: Any) -> None:
        if progress is not None:
            progress.update(task, advance=1, description=f"{cell.module}/{cell.case}")

    try:
        outcome = await run_eval(modules, targets, settings, history, cell_done)
    finally:
        if progress is not None:
            progress.stop()
        for _, provider in targets:
            await provider.aclose()
        if judge is not None:
            await judge.aclose()
    report = outcome.report
    comparison = None
    if baseline:
        from cogtui.core.eval.baseline import compare

        comparison = compare(report, baseline[0], baseline[1], args.max_score_drop)
    doc = eval_document(report, comparison)
    written = not args.output or write_output_file(args.output, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    if args.junit:
        from cogtui.core.eval.junit import junit_xml

        written = write_output_file(args.junit, junit_xml(report, comparison)) and written
    for note in outcome.notes:
        err(f"note: {note}")
    if to_stdout:
        p.json(doc)
    else:
        from .eval_view import print_report  # after the calls: only the report needs it

        untested = [m.name for m in modules if not m.tests]
        print_report(p, report, comparison, untested)
    if not written:  # the matrix above is still shown: only the file is missing
        return 2
    if comparison is not None:
        return 1 if comparison.fails else 0
    return 1 if report.failed else 0


def eval_document(report: Any, comparison: Any) -> dict[str, Any]:
    """`eval --json` and `-o FILE`: every cell, and the eval's summary (per target, and against the baseline)."""
    summary = {
        "id": report.id,
        "started_at": report.started_at,
        "modules": report.modules,
        "targets": report.targets,
        "jobs": report.jobs,
        "repeat": report.repeat,
        "judge": report.judge,
        "cells": len(report.cells),
        "passed": len(report.cells) - report.failed,
        "failed": report.failed,
        "by_target": [s.to_json() for s in report.summaries],
        "baseline": comparison.to_json() if comparison is not None else None,
    }
    return json_document("eval", "items", [c.to_json() for c in report.cells], summary)
