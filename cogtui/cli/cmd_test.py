"""`cogn test NAME|PATH|--all [--provider P] [--model M] [-j N] [--judge-provider P [--judge-model M]] [--repeat N]
[--accept] [--format text|json|github|sarif|junit]`: run golden tests (rule: docs/golden-tests.md).

With -j N, at most N model calls are in flight at once (one provider gate: a 429 holds every case back), and as many
judge calls beside them (EVAL-6); results print in case order. A `$judge` golden is scored by the judge's target.
With --repeat N each case runs N times and passes when every sample does; its pass rate and its judge score's mean
and spread are said, folded as `cogn eval --repeat` folds a cell (core/eval/samples.py, GOLD-12).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from cogtui.core.diagnostics import plural
from cogtui.core.run.providers import PROVIDERS

from .ci_options import chosen, files_option, format_option, modules_of, one_target
from .cmd_eval import judge_options, make_judge, repeat_option
from .output import (
    Printer,
    config_warnings,
    deprecation_notice,
    err,
    nothing_found,
    open_workspace,
    target_problem,
    unjudged_folders,
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="*", metavar="NAME|PATH", help="a module name or folder")
    p.add_argument("--all", action="store_true", help="every module on the search path")
    files_option(p, "test")
    p.add_argument("--provider", choices=PROVIDERS, help="default: $COGNITIVE_PROVIDER, config, else replay")
    p.add_argument("--model", metavar="M")
    p.add_argument("-j", "--jobs", type=int, default=4, metavar="N", help="model calls at once (default 4, as eval)")
    judge_options(p)
    repeat_option(p)
    p.add_argument(
        "--accept",
        action="store_true",
        help="write each failing case's answer as its golden (diffs first; a backup is kept; docs/golden-tests.md)",
    )
    format_option(p)


def run(args: argparse.Namespace) -> int:
    from cogtui.core.module.loader import NotAModule, load_module
    from cogtui.core.run.providers import UnknownProvider, make_provider

    files = list(args.target or [])
    if not one_target("test", args):
        return 2
    if not args.files and (problem := target_problem("test", args.target, args.all)) is not None:
        err(problem)
        return 2
    changed = modules_of(files) if args.files else []
    # the changed modules' folders are roots too, so an @call of a module beside them finds it
    args.paths = [*args.paths, *dict.fromkeys(str(root.parent) for root in changed)]
    if (fmt := chosen(args)) is None:
        return 2
    args.json = fmt == "json"
    if args.accept and fmt not in ("text", "json"):
        err(f"--accept writes goldens and says so in text or json; --format {fmt} reports without writing: drop one")
        return 2
    from cogtui.core.settings.config import load_config

    cfg = load_config()
    config_warnings(cfg)
    if args.jobs < 1 or args.repeat < 1:
        err("-j and --repeat must be at least 1")
        return 2
    if args.accept and args.repeat > 1:
        err("--accept writes one answer per case, and --repeat gives several that may differ: accept without --repeat")
        return 2
    ws = open_workspace(args.paths, judging_all=args.all)
    if args.all and not ws.entries():
        return nothing_found(ws)
    try:
        if args.files:
            modules = [load_module(root) for root in changed]
        elif args.all:
            modules = [load_module(e.path) for e in ws.entries(include_shadowed=False)]
        else:
            modules = [ws.load(args.target)]
        provider = make_provider(args.provider, args.model, cfg)
        from cogtui.core.eval.model import Target

        judge = make_judge(args, cfg, [Target(provider.name, provider.model).label])
    except (NotAModule, UnknownProvider) as exc:
        err(str(exc))
        return 2
    if not args.all and not args.files:
        deprecation_notice(modules[0])
    code = asyncio.run(_run(modules, provider, judge, cfg, ws, args))
    return max(code, unjudged_folders(ws)) if args.all else code


def refusals(modules: list[Any]) -> dict[str, dict[str, Any]]:
    """By module name, the error of a run refused before it starts (contract_status.run_blockers: E4000/E4007)."""
    from cogtui.core.run.manifest_policy import run_refusal

    out = {}
    for module in modules:
        error = run_refusal(module) if module.tests else None
        if error is not None:
            out[module.name] = error
    return out


async def _run(modules: list[Any], provider: Any, judge: Any, cfg: Any, ws: Any, args: argparse.Namespace) -> int:
    from cogtui.core.eval.samples import fold_cases, grouped, repeated
    from cogtui.core.run.concurrency import CallSlots, GateSet, bounded
    from cogtui.core.run.golden_runner import run_case
    from cogtui.core.run.judge import JudgeSetup
    from cogtui.core.run.runner import RunOptions

    p = Printer()
    blocked = refusals(modules)  # a module that cannot run is said once, not as a failed diff per case
    cases = repeated([(m, t) for m in modules if m.name not in blocked for t in m.tests], args.repeat)
    progress = None
    if p.color and args.format in (None, "text") and not args.json and cases:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=p.console, transient=True
        )
        progress.start()
        task = progress.add_task("golden tests", total=len(cases))
    slots = CallSlots(args.jobs)
    gates = GateSet()
    gated = slots.wrap(gates.wrap(provider))

    def options(on: Any) -> RunOptions:
        return RunOptions(on, resolver=ws.find, deadline=cfg.run_deadline, media_roots=cfg.media_roots)

    judging = JudgeSetup(CallSlots(args.jobs).wrap(gates.wrap(judge)) if judge else None, options=options)

    async def one(case: tuple[Any, Any]) -> tuple[Any, Any]:
        module, test = case
        return module, await run_case(module, test, options(gated), judging)

    def done(_index: int, result: tuple[Any, Any]) -> None:
        if progress is not None:
            progress.update(task, advance=1, description=f"{result[0].name}/{result[1].name}")

    try:
        samples = await bounded(cases, slots.runs, one, done)
    finally:
        if progress is not None:
            progress.stop()
        await provider.aclose()
        if judge is not None:
            await judge.aclose()
    results = [(group[0][0], fold_cases([r for _, r in group])) for group in grouped(samples, args.repeat)]
    failed = [r for _, r in results if not r.passed]
    not_run = sum(len(m.tests) for m in modules if m.name in blocked)
    if args.format in ("github", "sarif", "junit"):
        line = f"{plural(len(results) + not_run, 'case')}: {len(results) - len(failed)} passed, {len(failed) + not_run} failed"
        from .ci_formats import test_output

        test_output(args.format, results, blocked, line)
        return 1 if failed or blocked else 0
    accepted: dict[tuple[str, str], Any] = {}
    every_accepted = False
    if args.accept and args.json:
        from .test_accept import accept_failures

        accepted, every_accepted = accept_failures(None, [(m, r.shown) for m, r in results])
    if args.json:
        by_module: dict[str, list[Any]] = {}
        for module, r in results:
            entry = r.to_json()
            if args.accept:
                entry["accept"] = accepted.get((module.name, r.shown.name))
            by_module.setdefault(module.name, []).append(entry)
        summary = {
            "provider": provider.name,
            "model": provider.model,
            "cases": len(results) + not_run,
            "passed": len(results) - len(failed),
            "failed": len(failed) + not_run,
            "cannot_run": not_run,
            "judge": None if judge is None else judge_label(judge),
            "judged": sum(1 for _, r in results if r.score is not None),
            "repeat": args.repeat,
        }
        entries: list[dict[str, Any]] = [{"module": k, "cases": v} for k, v in by_module.items()]
        entries += [{"module": k, "cannot_run": error, "cases": []} for k, error in blocked.items()]
        if args.accept:
            summary["accepted"] = sum(1 for a in accepted.values() if a["written"])
        p.document("test", "modules", entries, summary)
        return 1 if (failed and not every_accepted) or blocked else 0
    for name, error in blocked.items():
        p.parts(("✗ CANNOT RUN", "error"), (f"  {name}: {error['code']} {error['message']}", None))
        p.line(f"    suggestion: {error['suggestion']}", "warning")
    for module, sampled in results:
        case = sampled.shown
        mark = ("✓ pass", "ok") if sampled.passed else ("✗ FAIL", "error")
        p.parts(mark, (f"  {module.name}/{case.name}", None), *sampled_parts(sampled), *judged_parts(sampled))
        if not sampled.passed:
            for reason in case.reasons:
                p.line(f"    - {reason}", "warning")
            p.diff(case.diff)
    untested = [m.name for m in modules if not m.tests]
    if untested:
        p.line(f"no golden tests: {', '.join(untested)}", "dim")
    if args.accept:
        from .test_accept import accept_failures

        accepted, every_accepted = accept_failures(p, [(m, r.shown) for m, r in results])
    p.parts(
        (f"{plural(len(results) + not_run, 'case')}: ", None),
        (f"{len(results) - len(failed)} passed", "ok"),
        (", ", None),
        (f"{len(failed) + not_run} failed", "error" if failed or not_run else None),
        (f" ({not_run} of modules that cannot run)" if not_run else "", None),
        (f", {sum(1 for a in accepted.values() if a['written'])} accepted" if args.accept else "", "ok"),
    )
    return 1 if (failed and not every_accepted) or not_run else 0


def judge_label(judge: Any) -> str:
    from cogtui.core.eval.model import Target

    return Target(judge.name, judge.model).label


def sampled_parts(sampled: Any) -> list[tuple[str, str | None]]:
    """With --repeat, what a case's line adds: how many of its samples passed."""
    if sampled.samples == 1:
        return []
    style = "ok" if sampled.passed else "error"
    return [(f"  {sampled.samples_passed}/{sampled.samples} samples passed ({sampled.pass_rate:.0%})", style)]


def judged_parts(sampled: Any) -> list[tuple[str, str | None]]:
    """What a `$judge` case adds to its line: the judge's score (with --repeat, the samples' mean ± their spread)
    against the bar, or why it was not scored."""
    judgement = sampled.shown.judgement
    if judgement is None:
        return []
    if sampled.score is not None:
        style = "ok" if judgement.passed and sampled.passed else "error"
        spread = f" ± {sampled.spread:.2f} over {len(sampled.scores)}" if len(sampled.scores) > 1 else ""
        return [(f"  judge {sampled.score:.2f}{spread} (pass ≥ {judgement.pass_score:.2f})", style)]
    if judgement.status == "not judged":
        return [(f"  ({judgement.reason})", "dim")]
    return []
