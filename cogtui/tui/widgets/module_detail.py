"""The selected module's details: what it does, its contract, its tier settings (explicit or inherited), files, tests, diagnostics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.markup import escape
from textual.containers import VerticalScroll
from textual.widgets import Static

from typing import TYPE_CHECKING

from ...core.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from ...core.discovery import ModuleEntry
    from ...core.model import Module
    from ...core.workspace import ModuleReport
    from ..store import ModuleStore

SEVERITY_STYLE = {Severity.ERROR: "$error", Severity.WARNING: "$warning", Severity.INFO: "$text-muted"}
ORIGIN_TEXT = {"explicit": "[$accent]explicit[/]", "tier": "[$text-muted]from tier[/]", "default": "[$text-muted]default[/]"}


def _e(value: Any) -> str:
    return escape(str(value))


def _show(value: Any) -> str:
    """Values as they are written in YAML/JSON (true, not True)."""
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _section(title: str) -> str:
    return f"\n[b $primary]{title}[/]"


def module_markup(module: Module, report: ModuleReport, entry: ModuleEntry | None, store: ModuleStore) -> str:
    lines: list[str] = []
    badge = "[$warning]v0 deprecated[/]" if module.format.deprecated else f"[$accent]{module.format.value}[/]"
    lines.append(f"[b]{_e(module.name)}[/] [$text-muted]{_e(module.version or 'no version')}[/]  {badge}  tier [b]{module.tier}[/]")
    where = store.display(module.path)
    if entry is not None:
        where += f"  [$text-muted]({entry.level})[/]"
        if entry.shadowed_by:
            where += f"\n[$warning]shadowed by {_e(store.display(entry.shadowed_by))}[/]"
    lines.append(where)
    problems = [d for d in report.diagnostics if d.severity is not Severity.INFO]
    if problems:  # what needs fixing comes first; the full list (infos too) stays at the end
        lines.append(_section(f"Problems ({report.errors} errors, {report.warnings} warnings)"))
        lines += diagnostics_lines(report, module.path, problems)
    lines.append(_section("Responsibility"))
    lines.append(_e(module.responsibility or "—"))
    lines.append(_section("Excludes"))
    lines += [f"  • {_e(x)}" for x in module.excludes] or ["  —"]
    policies = {**module.policies, **{f"constraint {k}": v for k, v in module.constraints.items()}}
    lines.append(_section("Policies"))
    lines += [f"  {_e(k)}: [b]{_e(_show(v))}[/]" for k, v in policies.items()] or ["  —"]
    lines.append(_section("Tier settings"))
    for name, setting in module.contract.items():
        lines.append(f"  {name}: [b]{_e(_show(setting.value))}[/]  {ORIGIN_TEXT[setting.origin]}")
    lines.append(_section("Files"))
    for path in module.all_files:
        lines.append(f"  {_e(_rel(path, module.path))}")
    lines.append(_section(f"Golden tests ({len(module.tests)})"))
    for t in module.tests:
        expected = _rel(t.expected_path, module.path) if t.expected_path else "[$warning]no expected file[/]"
        lines.append(f"  {_e(t.name)}: {_e(_rel(t.input_path, module.path))} → {expected}")
    if not module.tests:
        lines.append(f"  [$text-muted]none{'; ' + str(len(module.examples)) + ' example(s)' if module.examples else ''}[/]")
    lines.append(_section(f"Diagnostics ({report.errors} errors, {report.warnings} warnings)"))
    lines += diagnostics_lines(report, module.path) or ["  [$success]✓ clean[/]"]
    return "\n".join(lines)


def diagnostics_lines(report: ModuleReport, root: Path, only: list[Diagnostic] | None = None) -> list[str]:
    out = []
    for d in report.diagnostics if only is None else only:
        where = _rel(d.file, root) if d.file else "-"
        if d.line is not None:
            where += f":{d.line}:{d.column}"
        out.append(f"  [{SEVERITY_STYLE[d.severity]}]{d.severity.value:<7}[/] [b]{d.code}[/] [$text-muted]{_e(where)}[/]  {_e(d.message)}")
        if d.hint:
            out.append(f"           [$text-muted]{_e(d.hint)}[/]")
    return out


def _rel(path: Path | None, root: Path) -> str:
    if path is None:
        return "-"
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


class ModuleDetail(VerticalScroll):
    """Shows one module; `show(...)` replaces the content."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("[$text-muted]Select a module.[/]", id="detail-body")

    def show_message(self, markup: str) -> None:
        self.query_one("#detail-body", Static).update(markup)

    def show(self, module: Module | None, report: ModuleReport | None, entry: ModuleEntry | None, store: ModuleStore) -> None:
        body = self.query_one("#detail-body", Static)
        if module is None or report is None:
            name = entry.name if entry else "module"
            if report is not None and report.diagnostics:  # could not be loaded at all
                body.update(f"[b]{_e(name)}[/]\n" + "\n".join(diagnostics_lines(report, entry.path if entry else Path("."))))
            else:
                body.update(f"[b]{_e(name)}[/]\n[$text-muted]validating…[/]")
            return
        body.update(module_markup(module, report, entry, store))
        self.scroll_home(animate=False)
