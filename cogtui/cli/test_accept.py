"""`cogn test NAME --accept`: every failing case's answer written as its golden, on purpose (D255).

The diffs of every case come first, then the writes: the author reads what changes before anything does. Each
refusal says why (an answer out of contract, a replay answer, a `$validate` or `$judge` golden, which is a rule
rather than an answer). Each write keeps the old file (golden_accept.accept) and says where.
"""

from __future__ import annotations

from typing import Any

from .output import Printer


def accept_failures(p: Printer | None, results: list[tuple[Any, Any]]) -> tuple[dict[tuple[str, str], Any], bool]:
    """Plan, show (with `p`; None for --json) and write each failing case's answer; (what became of each case
    by (module, case), whether every failing case was accepted)."""
    from cogtui.core.authoring.golden_accept import AcceptError, accept, plan_accept

    plans = []
    for module, r in results:
        if r.passed:
            continue
        envelope = r.result.envelope if r.result is not None else None
        provider = r.result.provider if r.result is not None else ""
        interrupted = r.result.interrupted if r.result is not None else False
        plans.append((module, plan_accept(module, r.name, envelope, provider, r.passed, interrupted)))
    if p is not None and plans:
        p.line()
        p.line(f"--accept: {len(plans)} failing case{'s' * (len(plans) != 1)}", "bold")
        for module, plan in plans:
            if plan.refusal is not None:
                p.parts(("  ✗ ", "error"), (f"{module.name}/{plan.case}: not accepted: {plan.refusal}", None))
                continue
            p.parts(("  ✎ ", "warning"), (f"{module.name}/{plan.case}: {plan.path} would become the answer:", None))
            for line in plan.diff.splitlines():
                style = "add" if line.startswith("+") else "remove" if line.startswith("-") else "dim"
                p.line(f"    {line}", style)
    outcome: dict[tuple[str, str], Any] = {}
    every = True
    for module, plan in plans:
        key = (module.name, plan.case)
        if plan.refusal is not None:
            outcome[key] = {"written": None, "refused": plan.refusal, "diff": ""}
            every = False
            continue
        try:
            done = accept(plan, module.path)
        except AcceptError as exc:
            outcome[key] = {"written": None, "refused": str(exc), "diff": plan.diff}
            every = False
            if p is not None:
                p.parts(("  ✗ ", "error"), (f"{module.name}/{plan.case}: {exc}", None))
            continue
        outcome[key] = {"written": str(done.path), "backup": str(done.backup), "refused": None, "diff": plan.diff}
        if p is not None:
            p.parts(
                ("  ✓ ", "ok"), (f"{module.name}/{plan.case}: {done.path} written (the old one: {done.backup})", None)
            )
    return outcome, every
