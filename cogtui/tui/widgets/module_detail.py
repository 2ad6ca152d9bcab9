"""The selected module's details: what it does, its contract, its tier settings (explicit or inherited), files, tests, diagnostics.

Everything here is written in module files (names, texts, paths, diagnostic
messages quoting them), so it is laid out as `Content` with `$variables`:
the values are shown literally and never parsed as markup. A list of problems
shows the first `SHOWN` and counts the rest, as the editor's does: a module
with thousands of them is drawn in the time a hundred take.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import getters
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cogtui.core.diagnostics import Diagnostic, Severity, format_location, plural

from ..shown import assemble, block, markup
from .diagnostics_panel import SHOWN

if TYPE_CHECKING:
    from cogtui.core.module.discovery import ModuleEntry
    from cogtui.core.module.model import Module
    from cogtui.core.workspace import ModuleReport

    from ..store import ModuleStore

SEVERITY_STYLE = {Severity.ERROR: "$error", Severity.WARNING: "$warning", Severity.INFO: "$text-muted"}
ORIGIN_TEXT = {
    "explicit": "[$accent]explicit[/]",
    "tier": "[$text-muted]from tier[/]",
    "default": "[$text-muted]default[/]",
}


def _show(value: Any) -> str:
    """Values as they are written in YAML/JSON (true, not True)."""
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _section(title: str) -> Content:
    return markup("\n[b $primary]$title[/]", title=title)


def module_content(module: Module, report: ModuleReport, entry: ModuleEntry | None, store: ModuleStore) -> Content:
    lines: list[Content] = []
    badge = "[$warning]$format deprecated[/]" if module.format.deprecated else "[$accent]$format[/]"
    lines.append(
        markup(
            f"[b]$name[/] [$text-muted]$version[/]  {badge}  tier [b]$tier[/]",
            name=module.name,
            version=module.version or "no version",
            format=module.format.value,
            tier=module.known_tier or "unknown",
        )
    )
    where = markup("$where", where=store.display(module.path))
    if entry is not None:
        where += markup("  [$text-muted]($level)[/]", level=entry.level)
        if entry.shadowed_by:
            where += markup("\n[$warning]shadowed by $path[/]", path=store.display(entry.shadowed_by))
    lines.append(where)
    problems = [d for d in report.diagnostics if d.severity is not Severity.INFO]
    if problems:  # what needs fixing comes first; the full list (infos too) stays at the end
        lines.append(_section(f"Problems ({plural(report.errors, 'error')}, {plural(report.warnings, 'warning')})"))
        lines += diagnostics_lines(report, module.path, problems)
    lines.append(_section("Responsibility"))
    lines.append(block(module.responsibility or "—"))
    lines.append(_section("Excludes"))
    lines += [markup("  • $x", x=x) for x in module.excludes] or [Content("  —")]
    policies = {**module.policies, **{f"constraint {k}": v for k, v in module.constraints.items()}}
    lines.append(_section("Policies"))
    lines += [markup("  $k: [b]$v[/]", k=k, v=_show(v)) for k, v in policies.items()] or [Content("  —")]
    lines.append(_section("Tier settings"))
    if not module.contract.known:  # defaults would claim values the author may have declared otherwise
        lines.append(markup("  [$text-muted]unknown until the manifest can be read (see Problems)[/]"))
    for name, setting in module.contract.items() if module.contract.known else ():
        lines.append(
            markup("  $name: [b]$value[/]  ", name=name, value=_show(setting.value))
            + markup(ORIGIN_TEXT[setting.origin])
        )
    lines.append(_section("Files"))
    for path in module.all_files:
        lines.append(markup("  $path", path=_rel(path, module.path)))
    lines.append(_section(f"Golden tests ({len(module.tests)})"))
    for t in module.tests:
        expected = (
            markup("$p", p=_rel(t.expected_path, module.path))
            if t.expected_path
            else markup("[$warning]no expected file[/]")
        )
        lines.append(markup("  $name: $input → ", name=t.name, input=_rel(t.input_path, module.path)) + expected)
    if not module.tests:
        more = f"; {plural(len(module.examples), 'example')}" if module.examples else ""
        lines.append(markup("  [$text-muted]none$more[/]", more=more))
    lines.append(_section(f"Diagnostics ({plural(report.errors, 'error')}, {plural(report.warnings, 'warning')})"))
    lines += diagnostics_lines(report, module.path) or [markup("  [$success]✓ clean[/]")]
    return Content("\n").join(lines)


def diagnostics_lines(report: ModuleReport, root: Path, only: list[Diagnostic] | None = None) -> list[Content]:
    """Each problem (at most SHOWN, then a line counting the rest) with its hint below it."""
    found = report.diagnostics if only is None else only
    out = []
    for d in found[:SHOWN]:
        where = format_location(_relative(d.file, root), d.line, d.column)
        out.append(
            assemble(
                "  ",
                (f"{d.severity.value:<7}", SEVERITY_STYLE[d.severity]),
                " ",
                (d.code, "bold"),
                " ",
                (str(where), "$text-muted"),
                "  ",
                d.message,
            )
        )
        if d.hint:
            out.append(assemble("           ", (d.hint, "$text-muted")))
    if len(found) > SHOWN:
        out.append(markup("  [$text-muted]… $more more not listed[/]", more=f"{len(found) - SHOWN:,}"))
    return out


def _relative(path: Path | None, root: Path) -> Path | None:
    if path is None:
        return None
    try:
        return path.relative_to(root)
    except ValueError:
        return path


def _rel(path: Path | None, root: Path) -> str:
    rel = _relative(path, root)
    return "-" if rel is None else str(rel)


class ModuleDetail(VerticalScroll):
    """Shows one module; `show(...)` replaces the content."""

    body = getters.query_one("#detail-body", Static)

    def compose(self) -> ComposeResult:
        yield Static("[$text-muted]Select a module.[/]", id="detail-body")

    def show_message(self, markup: str | Content) -> None:
        """Markup written in code, or `Content` (for anything read from files)."""
        self.body.update(markup)

    def show(
        self, module: Module | None, report: ModuleReport | None, entry: ModuleEntry | None, store: ModuleStore
    ) -> None:
        body = self.body
        if module is None or report is None:
            title = markup("[b]$name[/]", name=entry.name if entry else "module")
            if report is not None and report.diagnostics:  # could not be loaded at all
                body.update(Content("\n").join([title, *diagnostics_lines(report, entry.path if entry else Path("."))]))
            else:
                body.update(title + markup("\n[$text-muted]validating…[/]"))
            return
        body.update(module_content(module, report, entry, store))
        self.scroll_home(animate=False)
