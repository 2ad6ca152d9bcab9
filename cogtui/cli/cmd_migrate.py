"""`cogn migrate NAME|PATH|--all [--dry-run] [--to 2.2|2.5] [--json] [--no-backup]` and `cogn migrate --undo NAME`.

Exit codes: 0 when every module was migrated or already current (or would
be, with --dry-run); 1 when any module failed, its input is bad, or there is
no backup to undo; 2 for usage errors (no target, module not found).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import plural

from .output import Printer, err, json_document, open_workspace, target_problem, unjudged_folders


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "target", nargs="?", metavar="NAME|PATH", help="a module name on the search path, or a module folder"
    )
    p.add_argument("--all", action="store_true", help="migrate every module on the search path")
    p.add_argument("--dry-run", action="store_true", help="print the plan (files, diffs, notes) and change nothing")
    p.add_argument("--to", choices=("2.2", "2.5"), default=None, help="target version (default 2.2)")
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.add_argument("--no-backup", action="store_true", help="do not back up the files the migration changes")
    p.add_argument("--undo", metavar="NAME", help="restore NAME from its latest migration backup")


@dataclass
class Outcome:
    path: Path
    name: str
    result: str  # "migrated", "would migrate", "already current", "failed"
    reason: str = ""
    plan: Any = None
    applied: Any = None
    source_format: str = "?"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.result == "failed"

    def to_json(self) -> dict[str, Any]:
        base = (
            self.plan.to_json()
            if self.plan is not None
            else {
                "module": self.name,
                "from": self.source_format,
                "to": None,
                "files": [],
                "notes": [],
                "path": str(self.path),
                "errors": [{"message": self.reason}],
            }
        )
        base["result"] = self.result
        base["reason"] = self.reason or None
        base["backup"] = str(self.applied.backup_dir) if self.applied is not None and self.applied.backup_dir else None
        return base


def run(args: argparse.Namespace) -> int:

    if args.undo:
        # An undo has no dry run, target or backup choice: accepting those flags silently would undo for real.
        extra = [
            flag
            for flag, given in (
                ("NAME|PATH", args.target),
                ("--all", args.all),
                ("--dry-run", args.dry_run),
                ("--to", args.to),
                ("--no-backup", args.no_backup),
            )
            if given
        ]
        if extra:
            err(f"--undo takes only the module NAME (and --json); not {', '.join(extra)}")
            return 2
        return _undo(args)
    args.to = args.to or "2.2"
    if (problem := target_problem("migrate", args.target, args.all)) is not None:
        err(problem)
        return 2
    ws = open_workspace(args.paths, judging_all=args.all)
    if args.all:
        code = _run_all([e.path for e in ws.entries(include_shadowed=False)], args)
        return max(code, unjudged_folders(ws))
    path = ws.resolve(args.target)
    if path is None:
        err(ws.not_found(args.target))
        return 2
    return _run_one(path, args)


PENDING_IN_DRY_RUN = (
    "an interrupted migration or undo is pending in this folder (.cogtui-journal.json); a dry run writes "
    "nothing: `cogn migrate` without --dry-run finishes or rolls it back first"
)


def migrate_path(path: Path, to: str, dry_run: bool, backup: bool) -> Outcome:
    """Plan (and unless dry_run, apply) one module; never raises, so one module cannot stop --all."""
    from cogtui.core.authoring.migration import MigrationError, apply_plan, plan_migration
    from cogtui.core.files.journal import pending, recover
    from cogtui.core.module.loader import NotAModule, load_module

    if dry_run and path.is_dir() and pending(path):  # finishing or rolling it back writes: not in a dry run
        return Outcome(path, path.name, "failed", PENDING_IN_DRY_RUN)
    try:
        recovered = recover(path) if path.is_dir() else None
    except OSError as exc:
        return Outcome(path, path.name, "failed", f"an interrupted migration could not be recovered: {exc}")
    if recovered is not None:
        # Said before anything else: the folder was half-migrated, and now it is not.
        err(f"note: an interrupted migration or undo of {path.name} was found and {recovered}")
    try:
        module = load_module(path)
    except (NotAModule, OSError) as exc:
        return Outcome(path, path.name, "failed", str(exc))
    outcome = Outcome(path, module.name, "failed", source_format=module.format.value)
    try:
        plan = plan_migration(module, to)
    except Exception as exc:  # noqa: BLE001 - a planning bug must not take --all down with it
        outcome.reason = f"internal error while planning: {type(exc).__name__}: {exc}"
        return outcome
    outcome.plan = plan
    if plan.errors:
        outcome.reason = str(plan.errors[0]) + (f" (and {len(plan.errors) - 1} more)" if len(plan.errors) > 1 else "")
        return outcome
    if plan.already_current:
        outcome.result, outcome.reason = "already current", plan.notes[0] if plan.notes else ""
        return outcome
    if dry_run:
        outcome.result = "would migrate"
        return outcome
    try:
        outcome.applied = apply_plan(plan, backup=backup)
    except MigrationError as exc:
        outcome.reason = str(exc)
        return outcome
    except Exception as exc:  # noqa: BLE001 - apply_plan has rolled back; report and go on
        outcome.reason = f"internal error while applying (rolled back): {type(exc).__name__}: {exc}"
        return outcome
    outcome.result = "migrated"
    return outcome


def _run_one(path: Path, args: argparse.Namespace) -> int:
    from cogtui.core.authoring.migration import render_plan

    outcome = migrate_path(path, args.to, args.dry_run, not args.no_backup)
    if args.json:
        print_plans_json([outcome], args)
        return 1 if outcome.failed else 0
    p = Printer()
    plan = outcome.plan
    if outcome.failed:
        if plan is not None and plan.errors:
            render_plan(plan, Printer(sys.stderr))
        else:
            err(f"cannot migrate {outcome.name}: {outcome.reason}")
        return 1
    if plan.already_current:
        render_plan(plan, p)
        return 0
    render_plan(plan, p, diffs=args.dry_run)
    p.line()
    if args.dry_run:
        p.line("dry run: nothing was written", "dim")
    else:
        _applied_line(p, outcome)
    return 0


def _applied_line(p: Printer, outcome: Outcome) -> None:
    backup = outcome.applied.backup_dir
    p.parts((f"migrated {outcome.name}", "ok"), (f" ({outcome.plan.source_format} -> {outcome.plan.target})", "dim"))
    if backup is not None:
        p.line(f"backup: {backup}   (undo: cogn migrate --undo {outcome.name})", "dim")
    else:
        p.line("no backup was made (--no-backup)", "dim")


def _run_all(paths: list[Path], args: argparse.Namespace) -> int:
    from cogtui.core.authoring.migration import render_plan

    p = Printer()
    outcomes: list[Outcome] = []
    progress = task = None
    if p.color and not args.json and paths:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=p.console, transient=True
        )
        progress.start()
        task = progress.add_task("migrating", total=len(paths))
    try:
        for i, path in enumerate(paths, 1):
            outcome = migrate_path(path, args.to, args.dry_run, not args.no_backup)
            outcomes.append(outcome)
            if not args.json:
                if args.dry_run and outcome.plan is not None:
                    render_plan(outcome.plan, p)
                    p.line()
                elif progress is None:
                    p.line(
                        f"[{i}/{len(paths)}] {outcome.name}: {outcome.result}"
                        + (f": {outcome.reason}" if outcome.failed else "")
                    )
            if progress is not None:
                progress.update(task, advance=1, description=outcome.name)  # type: ignore[arg-type]
    finally:
        if progress is not None:
            progress.stop()
    failed = [o for o in outcomes if o.failed]
    done = sum(1 for o in outcomes if o.result in ("migrated", "would migrate"))
    current = sum(1 for o in outcomes if o.result == "already current")
    if args.json:
        print_plans_json(outcomes, args)
        return 1 if failed else 0
    rows = [[o.name, o.source_format, o.result, _short(o.reason if o.failed else _detail(o))] for o in outcomes]
    p.table(
        ["module", "from", "result", "detail"],
        rows,
        title=f"migrate to v{args.to}" + (" (dry run)" if args.dry_run else ""),
    )
    verb = "would migrate" if args.dry_run else "migrated"
    p.parts(
        (f"{plural(len(outcomes), 'module')}: ", None),
        (f"{done} {verb}", "ok"),
        (f", {current} already current", None),
        (", ", None),
        (f"{len(failed)} failed", "error" if failed else None),
    )
    if args.dry_run:
        p.line("dry run: nothing was written", "dim")
    return 1 if failed else 0


def plans_document(outcomes: list[Outcome], dry_run: bool, to: str) -> dict[str, Any]:
    """`migrate --json`: each module's plan and what came of it (the file `cogtui review` reads)."""
    summary = {
        "dry_run": dry_run,
        "to": f"v{to}",
        "migrated": sum(1 for o in outcomes if o.result in ("migrated", "would migrate")),
        "already_current": sum(1 for o in outcomes if o.result == "already current"),
        "failed": sum(1 for o in outcomes if o.failed),
    }
    return json_document("migrate", "modules", [o.to_json() for o in outcomes], summary)


def print_plans_json(outcomes: list[Outcome], args: argparse.Namespace) -> None:
    Printer().json(plans_document(outcomes, bool(args.dry_run), args.to))


def _detail(o: Outcome) -> str:
    if o.applied is not None and o.applied.backup_dir is not None:
        return f"backup {o.applied.backup_dir}"
    if o.plan is not None and o.plan.tier_inferred:
        return f"tier {o.plan.tier} (confirm)"
    return ""


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _undo(args: argparse.Namespace) -> int:
    from cogtui.core.authoring.migration import MigrationError, backups_for, undo_latest
    from cogtui.core.workspace import Workspace

    ws = Workspace.from_environment(args.paths)
    path = ws.resolve(args.undo)
    name = path.name if path is not None else Path(args.undo).name
    if path is None:
        path = _recorded_path(backups_for(name))
    if path is None:
        from cogtui.core.authoring.migration import backed_up_modules
        from cogtui.core.diagnostics import did_you_mean

        # a name close to a module or a backup is most likely a typo: name the one meant (CLI-3)
        if guess := did_you_mean(args.undo, [*ws.names(), *backed_up_modules()]):
            err(f"no module or migration backup named {args.undo!r}{guess}")
            return 2
        err(f"no migration backup of {args.undo} to undo")
        return 1
    from cogtui.core.files.journal import recover

    try:
        recovered = recover(path) if path.is_dir() else None
        if recovered is not None:
            err(f"note: an interrupted migration or undo of {name} was found and {recovered}")
        result = undo_latest(name, path)
    except (MigrationError, OSError) as exc:
        err(str(exc))
        return 1
    p = Printer()
    if args.json:
        entry = {
            "module": result.module,
            "path": str(result.path),
            "result": "undone",
            "backup": str(result.backup_dir),
            "restored": list(result.restored),
            "removed": list(result.removed),
            "edited_since": list(result.edited_since),
        }
        p.document("migrate", "modules", [entry], {"undone": 1})
        return 0
    p.parts((f"restored {result.module}", "ok"), (f" from {result.backup_dir}", "dim"))
    for rel in result.restored:
        p.line(f"  restore  {rel}")
    for rel in result.removed:
        p.line(f"  remove   {rel}")
    if result.edited_since:
        p.line(
            f"  edited after the migration (saved in {result.backup_dir / 'edited'}): "
            + ", ".join(result.edited_since),
            "warning",
        )
    return 0


def _recorded_path(backups: list[Path]) -> Path | None:
    import json

    for folder in reversed(backups):
        try:
            recorded = json.loads((folder / "backup.json").read_text(encoding="utf-8")).get("module_path")
        except (OSError, ValueError):
            continue
        if recorded:
            return Path(recorded)
    return None
