"""`cogn list [--json]`: every module found, shadowed ones included."""

from __future__ import annotations

import argparse
from typing import Any

from .output import Printer, open_workspace


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from cogtui.core.module.discovery import unsearched_modules

    ws = open_workspace(args.paths)
    rows: list[dict[str, Any]] = []
    for report in ws.validate_all(include_shadowed=True):
        entry = report.entry
        assert entry is not None
        rows.append(
            {
                "name": entry.name,
                "version": report.version,
                "format": report.format,
                "tier": report.tier,
                "level": entry.level,
                "path": str(entry.path),
                "shadowed": entry.shadowed,
                "shadowed_by": str(entry.shadowed_by) if entry.shadowed_by else None,
                "errors": report.errors,
                "warnings": report.warnings,
            }
        )
    p = Printer()
    if args.json:
        summary = {
            "modules": sum(1 for r in rows if not r["shadowed"]),
            "shadowed": sum(1 for r in rows if r["shadowed"]),
            "with_errors": sum(1 for r in rows if r["errors"]),
            "warnings": sum(r["warnings"] for r in rows),
        }
        p.document("list", "modules", rows, summary)
        return 0
    unsearched = unsearched_modules(ws.search_path)
    if not rows:
        roots = ", ".join(str(r.path) for r in ws.search_path.roots)
        p.line(f"No modules found. Searched: {roots}", "dim")
        if unsearched is not None:
            p.line(f"note: {unsearched.note}", "warning")
        return 0
    table = []
    for r in rows:
        status = f"✗ {r['errors']}" if r["errors"] else (f"⚠ {r['warnings']}" if r["warnings"] else "✓")
        name = r["name"] + (" (shadowed)" if r["shadowed"] else "")
        table.append([name, r["version"] or "-", r["format"] or "?", r["tier"] or "-", r["level"], status, r["path"]])
    p.table(["NAME", "VERSION", "FORMAT", "TIER", "LEVEL", "STATUS", "PATH"], table)
    shadowed = [r for r in rows if r["shadowed"]]
    for r in shadowed:
        p.line(f"{r['name']} at {r['path']} is shadowed by {r['shadowed_by']}", "dim")
    if unsearched is not None:
        p.line(f"note: {unsearched.note}", "warning")
    return 0
