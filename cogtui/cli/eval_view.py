"""`cogn eval`'s readable output: the case x target matrix, then one line of figures per target."""

from __future__ import annotations

from typing import Any

from .output import Printer

MARKS = {"regression": " ↓regressed", "improvement": " ↑improved", "new": " (new)", "score-drop": " ↓score"}


def cell_text(cell: Any, status: str | None) -> str:
    from cogtui.core.eval.eval_state import cell_label

    return cell_label(cell) + MARKS.get(status or "", "")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} ms"


def _cost(value: float | None) -> str:
    if value is None:
        return "? (no price)"
    return f"${value:.4f}" if value < 100 else f"${value:,.2f}"


def print_report(p: Printer, report: Any, comparison: Any, untested: list[str]) -> None:
    rows: list[list[str]] = []
    seen: dict[tuple[str, str], list[str]] = {}
    for cell in report.cells:
        row = seen.get((cell.module, cell.case))
        if row is None:
            row = seen[(cell.module, cell.case)] = [f"{cell.module}/{cell.case}"] + [""] * len(report.targets)
            rows.append(row)
        status = comparison.status_of(*cell.key) if comparison else None
        row[1 + report.targets.index(cell.target)] = cell_text(cell, status)
    if rows:
        p.table(["case", *report.targets], rows)
        p.line()
    for s in report.summaries:
        violations = ", ".join(f"{code} ×{n}" for code, n in s.violations.items()) or "none"
        t = s.tokens
        cached = (
            f" (+{t['cache_read']:,} cache read, {t['cache_write']:,} cache write)"
            if t["cache_read"] or t["cache_write"]
            else ""
        )
        p.parts(
            (f"{s.target}: ", "bold"),
            (f"{s.passed}/{s.cases} passed ({s.pass_rate:.0%})", "ok" if s.passed == s.cases else "error"),
            (f"  judge score {s.score_mean:.2f} over {s.judged}" if s.score_mean is not None else "", None),
            (f"  p50 {_ms(s.latency_p50_ms)}  p95 {_ms(s.latency_p95_ms)}", None),
            (f"  tokens {t['input']:,} in / {t['output']:,} out{cached}", None),
            (f"  cost {_cost(s.cost_usd)}", None),
            (f" + judge {_cost(s.judge_cost_usd)}" if s.judged else "", None),
            (f" (prompt cache saved ${s.saved_usd:.4f})" if s.saved_usd else "", "ok"),
        )
        p.line(f"  violations: {violations}" + (f"; {s.cached} answered from the cache" if s.cached else ""), "dim")
    if untested:
        p.line(f"no golden tests: {', '.join(untested)}", "dim")
    if comparison is not None:
        print_comparison(p, comparison)
    if report.id is not None:
        p.line(f"eval {report.id} recorded (use --baseline {report.id} to compare with it)", "dim")


def print_comparison(p: Printer, comparison: Any) -> None:
    """The line against the baseline, then every cell that fails CI: regressions and new cells failing."""
    reg, imp, drops = comparison.of("regression"), comparison.of("improvement"), comparison.of("score-drop")
    new, gone, new_failing = comparison.of("new"), comparison.of("gone"), comparison.new_failing
    p.parts(
        (f"against {comparison.baseline}: ", None),
        (f"{len(reg)} regressed", "error" if reg else "ok"),
        (", ", None),
        (f"{len(imp)} improved", "ok" if imp else None),
        (f", {len(drops)} score drop{'s' * (len(drops) != 1)}" if drops else "", "error"),
        (f", {len(new)} new" if new else "", None),
        (f" ({len(new_failing)} failing)" if new_failing else "", "error"),
        (f", {len(gone)} gone" if gone else "", None),
    )
    for change in reg:
        p.line(f"  ↓ {change.module}/{change.case} on {change.target}: {change.before} → {change.after}", "error")
    for change in drops:
        p.line(
            f"  ↓ {change.module}/{change.case} on {change.target}: judge score {change.score_before:.2f} → "
            f"{change.score_after:.2f} (a drop of more than {comparison.max_score_drop:g})",
            "error",
        )
    for change in new_failing:
        p.line(f"  ✗ {change.module}/{change.case} on {change.target}: new, {change.after}", "error")
    if not comparison.shared and comparison.changes:
        p.line(
            f"  the baseline shares no cell with this eval: is {comparison.baseline} of other modules, cases or "
            "targets?",
            "warning",
        )
