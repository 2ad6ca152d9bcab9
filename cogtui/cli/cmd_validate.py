"""`cogn validate NAME|PATH [--v22] [--format text|json|github|sarif|junit]` and `cogn validate --all`."""

from __future__ import annotations

import argparse
from typing import Any

from cogtui.core.diagnostics import plural
from cogtui.core.run.providers import PROVIDERS

from .ci_options import chosen, files_option, format_option, modules_of, one_target
from .output import (
    Printer,
    deprecation_notice,
    err,
    nothing_found,
    open_workspace,
    print_diagnostic,
    target_problem,
    unjudged_folders,
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "target", nargs="*", metavar="NAME|PATH", help="a module name on the search path, or a module folder"
    )
    p.add_argument("--all", action="store_true", help="validate every module on the search path")
    files_option(p, "validate")
    p.add_argument(
        "--v22", action="store_true", help="the v2.2 checklist: legacy formats and the five checklist items fail"
    )
    p.add_argument("--strict", action="store_true", help="stale golden tests and examples are errors, not warnings")
    p.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="check runtime_requirements against this provider (default: the one runs would use)",
    )
    format_option(p)


def run(args: argparse.Namespace) -> int:
    files = list(args.target or [])
    if not one_target("validate", args):
        return 2
    if args.files:
        args.changed = modules_of(files)
    elif (problem := target_problem("validate", args.target, args.all)) is not None:
        err(problem)
        return 2
    if chosen(args) is None:
        return 2
    return validate(args)


def validate(args: argparse.Namespace) -> int:
    from cogtui.core.workspace import Workspace, check_path, provider_capabilities, resolve_target

    provider = provider_capabilities(args.provider)
    if args.all:
        ws = open_workspace(args.paths, judging_all=True)
        if not ws.entries():
            return nothing_found(ws)
        reports = list(ws.validate_all(v22=args.v22, strict=args.strict, provider=provider))
    elif args.files:
        reports = [check_path(root, args.v22, strict=args.strict, provider=provider) for root in args.changed]
    else:
        path = resolve_target(args.target, args.paths)
        if path is None:
            err(Workspace.from_environment(args.paths).not_found(args.target))
            return 2
        reports = [check_path(path, args.v22, strict=args.strict, provider=provider)]
        deprecation_notice(reports[0].module)
    unreadable = [str(f) for f in ws.index.unreadable] if args.all else []
    failed = any(r.errors for r in reports) or bool(unreadable)
    fmt = chosen(args)
    if fmt in ("github", "sarif", "junit"):
        from .ci_formats import validate_output

        validate_output(str(fmt), reports, "".join(text for text, _style in summary_parts(reports)))
        if args.all:
            unjudged_folders(ws)
        return 1 if failed else 0
    if fmt == "json":
        bad = sum(1 for r in reports if r.errors)
        summary = {
            "modules": len(reports),
            "valid": len(reports) - bad,
            "with_errors": bad,
            "errors": sum(r.errors for r in reports),
            "warnings": sum(r.warnings for r in reports),
            "unreadable_folders": unreadable,
        }
        Printer().document("validate", "modules", [r.to_json() for r in reports], summary)
        if args.all:
            unjudged_folders(ws)
        return 1 if failed else 0
    p = Printer()
    for r in reports:
        print_report(p, r)
    if args.all:
        p.line()
        p.parts(*summary_parts(reports))
        unjudged_folders(ws)
    return 1 if failed else 0


def summary_parts(reports: list[Any]) -> list[tuple[str, str | None]]:
    """`9 modules: 8 valid, 1 with errors · 2 errors, 5 warnings in 3 modules`: the modules, then every problem
    counted (a warning does not make a module invalid, but it is counted, never hidden)."""
    bad = sum(1 for r in reports if r.errors)
    errors = sum(r.errors for r in reports)
    warnings = sum(r.warnings for r in reports)
    warned = sum(1 for r in reports if r.warnings)
    return [
        (f"{plural(len(reports), 'module')}: ", None),
        (f"{len(reports) - bad} valid", "ok"),
        (", ", None),
        (f"{bad} with errors", "error" if bad else None),
        (" · ", "dim"),
        (plural(errors, "error"), "error" if errors else None),
        (", ", None),
        (plural(warnings, "warning"), "warning" if warnings else None),
        (f" in {plural(warned, 'module')}" if warnings else "", None),
    ]


def print_report(p: Printer, r: object) -> None:
    from cogtui.core.workspace import ModuleReport

    assert isinstance(r, ModuleReport)
    fmt = r.badge
    if r.errors:
        status = (f"✗ {r.errors} error{'s' * (r.errors != 1)}", "error")
    elif r.warnings:
        status = (f"⚠ {r.warnings} warning{'s' * (r.warnings != 1)}", "warning")
    else:
        status = ("✓ valid", "ok")
    p.parts((r.name, "bold"), (f" ({fmt}) ", "dim"), status)
    for d in r.diagnostics:
        print_diagnostic(p, d)
