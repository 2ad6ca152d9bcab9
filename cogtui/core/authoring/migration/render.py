"""A plan as lines of (text, style): coloured through the CLI's Printer on a terminal, plain in CI logs.

The plain form is meant to be read in a CI log: a header, the file list with
actions, the notes as a bulleted list, then one unified diff per file. A
deleted file whose content moved elsewhere is summarised rather than printed
in full; `--json` always has every diff.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.authoring.migration.plan import FileChange, MigrationPlan, confirm_first, severity_of
from cogtui.core.files.text_codec import diff_line_style

Chunk = tuple[str, "str | None"]
Line = list[Chunk]
ACTION_STYLE = {"create": "ok", "modify": "warning", "delete": "remove"}


def plan_lines(plan: MigrationPlan, diffs: bool = True) -> list[Line]:
    out: list[Line] = []
    head = f"{plan.module}: {plan.source_format} -> {plan.target}"
    if plan.errors:
        out.append([(head, "bold"), (f"  cannot migrate ({plan.path})", "error")])
        for issue in plan.errors:
            code = f"{issue.code} " if issue.code else ""
            out.append([("  error  ", "error"), (issue.location, "dim"), (f"  {code}{issue.message}", None)])
            if issue.hint:
                out.append([("         hint: ", "dim"), (issue.hint, None)])
        out.append([("  nothing was written", "dim")])
        return out
    if plan.already_current:
        out.append([(f"{plan.module}: ", "bold"), (plan.notes[0] if plan.notes else "already current", "ok")])
        return out
    counts = plan.counts()
    summary = ", ".join(
        f"{n} {action}"
        for action, n in (("create", counts["create"]), ("modify", counts["modify"]), ("delete", counts["delete"]))
        if n
    )
    out.append([(head, "bold"), (f"  ({summary or 'no file changes'})", "dim")])
    out.append([(f"  {plan.path}", "dim")])
    if plan.tier:
        why = "  (inferred: confirm it, see notes)" if plan.tier_inferred else ""
        out.append([("  tier: ", None), (plan.tier, "bold"), (why, "dim")])
    out.append([("files:", "bold")])
    width = max((len(f.path) for f in plan.files), default=0)
    for f in plan.files:
        extra = _file_extra(f)
        path = f"{f.path:<{width}}" if extra else f.path  # no trailing blanks on a line without a note
        out.append([(f"  {f.action:<7}", ACTION_STYLE[f.action]), (path, None), (extra, "dim")])
    if plan.notes:
        out.append([("notes:", "bold")])
        for note in confirm_first(plan.notes):  # `!`: a choice to confirm or text to review, as the TUI marks it
            confirm = severity_of(note) == "confirm"
            out.append([(f"  {'!' if confirm else '-'} {note}", "warning" if confirm else None)])
    if diffs:
        for f in plan.files:
            out.append([])
            out += _diff_lines(f, plan)
    return out


def _file_extra(f: FileChange) -> str:
    bits = []
    if f.source:
        bits.append(f"from {f.source}" if f.diff else f"verbatim from {f.source}")
    if f.style.label != "UTF-8, LF":
        bits.append(f.style.label)
    return ("  (" + "; ".join(bits) + ")") if bits else ""


def _diff_lines(f: FileChange, plan: MigrationPlan) -> list[Line]:
    title = f"=== {f.action} {f.path}"
    if f.action == "delete":
        moved = sorted({c.path for c in plan.files if f.path in c.origins})
        text = f.old_text or ""
        removed = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        where = f"; its content is carried to {', '.join(moved)}" if moved else ""
        return [[(title, "bold")], [(f"    ({removed} line{'s' * (removed != 1)} removed{where})", "dim")]]
    if f.source and not f.diff:
        return [[(title, "bold")], [(f"    (carried verbatim from {f.source})", "dim")]]
    lines: list[Line] = [[(title + (f" (diff against {f.source})" if f.source else ""), "bold")]]
    for text in f.diff.splitlines():
        lines.append([(text, diff_line_style(text, "bold", None))])
    return lines


def render_plan_text(plan: MigrationPlan, diffs: bool = True) -> str:
    """The plan as plain text (what `cogn migrate --dry-run` prints when stdout is not a terminal)."""
    return "\n".join("".join(text for text, _ in line) for line in plan_lines(plan, diffs)) + "\n"


def render_plan(plan: MigrationPlan, printer: Any, diffs: bool = True) -> None:
    """Print the plan through a Printer (cogtui.cli.output): colour on a terminal, plain text otherwise."""
    for line in plan_lines(plan, diffs):
        printer.parts(*line) if line else printer.parts(("", None))
