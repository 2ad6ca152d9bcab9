"""The preview's pages: the list prompts, a module's summary, the overview, a diff's heading, and the two panes
of the right-hand side that show them (a summary page, or one file's diff).

Everything here draws from the state's `ModuleSlot`s and hands back Content; which page shows, and when, is
the screen's `draw`. Live plans and saved plans both arrive as `ReviewPlan`s (the core converts a MigrationPlan
with `ReviewPlan.from_plan`), so a review draws exactly as a live preview. Colours are theme variables inside
Content styles, never hex.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from textual import getters
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cogtui.core.authoring.migration.plan import NoteSeverity, severity_of
from cogtui.core.authoring.migration.preview_state import ModuleSlot
from cogtui.core.authoring.migration.review import ReviewFile, ReviewPlan
from cogtui.core.diagnostics import plural

from ...shown import assemble, block, styled
from ...widgets.diff_view import DiffView

ACTION_BADGES = {"create": ("+", "$text-success"), "modify": ("~", "$text-warning"), "delete": ("-", "$text-error")}


# ---------------------------------------------------------------- list prompts


def module_prompt(slot: ModuleSlot) -> Content:
    plan = slot.plan
    if slot.busy or plan is None:
        badge = ("…", "$text-muted")
    elif plan.errors:
        badge = ("✗", "$text-error")
    elif slot.applied is not None:
        badge = ("✓", "$text-success")
    else:
        badge = ("•", "$text-warning")
    return assemble(badge, " ", slot.name)  # versions are on the head line: the list stays one line each


def overview_prompt(slots: list[ModuleSlot]) -> Content:
    planned = sum(1 for s in slots if s.plan is not None)
    return assemble(("≡ ", "$text-accent"), "Overview", (f" {planned}/{len(slots)}", "$text-muted"))


def summary_prompt(plan: ReviewPlan | None) -> Content:
    if plan is not None and plan.errors:
        return assemble(("✗ ", "$text-error"), f"Problems ({len(plan.errors)})")
    notes = len(plan.notes) if plan is not None else 0
    return assemble(("≡ ", "$text-accent"), "Summary & notes", (f" ({notes})" if notes else "", "$text-muted"))


def file_prompt(file: ReviewFile) -> Content:
    sign, style = ACTION_BADGES.get(file.action, ("?", "$text-muted"))
    # The usual UTF-8 with LF goes unsaid (the diff heading shows it): at 80 columns the name needs the room.
    usual = file.encoding.upper().replace("_", "-") in ("UTF-8", "UTF8") and file.newline == "LF"
    style_label = "" if usual else f" {file.encoding}·{file.newline}"
    return assemble((sign, f"bold {style}"), " ", file.path, (style_label, "$text-muted"))


def file_heading(file: ReviewFile, plan: ReviewPlan) -> Content:
    """The line above a diff: what happens to the file, how it is written, what it is diffed against."""
    sign, style = ACTION_BADGES.get(file.action, ("?", "$text-muted"))
    bits = [file.style_label]
    if file.source:
        bits.append(f"diff against {file.source}")
    if file.action == "delete":
        carried = sorted({f.path for f in plan.files if file.path in f.origins})
        if carried:
            bits.append("content carried to " + ", ".join(carried))
    return assemble(
        (f"{sign} {file.action} ", f"bold {style}"), (file.path, "bold"), ("  " + " · ".join(bits), "$text-muted")
    )


def diff_notice(file: ReviewFile) -> str | None:
    """What to say instead of (or above) a diff that shows nothing."""
    if file.diff.strip():
        return None
    if file.source:
        return f"carried verbatim from {file.source}: no change to its text"
    return "no change to the text (only its encoding or line endings)"


# ---------------------------------------------------------------- summaries


def _lines(*parts: Content | str) -> Content:
    return Content("\n").join(part if isinstance(part, Content) else block(part) for part in parts)


# Each note's marker, from the severity the planner gave it (MIG-6): the same glyph and colour in every view.
NOTE_MARKERS: dict[str, tuple[str, str]] = {"confirm": ("!", "bold $text-warning"), "info": ("i", "$text-muted")}
NOTES_LEGEND = assemble(
    ("Notes", "bold"),
    ("  (", "$text-muted"),
    ("!", "bold $text-warning"),
    (" to confirm · i for information)", "$text-muted"),
)


def note_marker(severity: str) -> Content:
    glyph, style = NOTE_MARKERS.get(severity, NOTE_MARKERS["info"])
    return styled(glyph, style)


@dataclass(frozen=True)
class SummaryPage:
    """A module's first page: what to know first, the notes (drawn as a numbered list with each note's
    severity marker, those to confirm first), the files."""

    head: Content
    notes: tuple[tuple[str, NoteSeverity], ...] = ()
    tail: Content = field(default_factory=Content)


def module_summary(slot: ModuleSlot, review: bool) -> SummaryPage:
    """Status, problems and the tier; then the notes to confirm, the tier's first; then the files."""
    plan = slot.plan
    if plan is None:
        return SummaryPage(assemble((slot.name, "bold"), ("  planning…", "$text-muted")))
    head = assemble(
        (plan.module, "bold"),
        f"  {plan.source_format} → {plan.target or '?'}",
        (f"  ({plan.counts_text()})" if plan.files else "", "$text-muted"),
    )
    out: list[Content | str] = [head]
    if plan.path:
        out.append(styled(plan.path, "$text-muted"))
    out += ["", _status(slot, review)]
    if slot.replanned and not slot.busy:
        out.append(assemble(("↻ ", "bold $text-warning"), slot.replanned))
    if slot.failure:
        out.append(assemble(("✗ last attempt failed: ", "bold $text-error"), slot.failure))
    if plan.reason and plan.result == "failed" and not plan.errors:
        out.append(assemble(("✗ ", "$text-error"), plan.reason))
    if plan.errors:
        out += ["", styled("Problems (file:line:column)", "bold $text-error")]
        for issue in plan.errors:
            code = f"{issue.code} " if issue.code else ""
            out.append(assemble("  ", (issue.location(plan.path), "$text-accent"), f"  {code}{issue.message}"))
            if issue.hint:
                out.append(assemble(("      hint: ", "$text-muted"), issue.hint))
    if plan.tier and not plan.already_current:
        why = "  (inferred: confirm it)" if plan.tier_inferred else ""
        out += ["", assemble("tier: ", (plan.tier, "bold"), (why, "$text-warning"))]
    notes = tuple((str(n), severity_of(n)) for n in plan.notes_to_confirm_first()) if not plan.already_current else ()
    if notes:
        out += ["", NOTES_LEGEND]
    tail: list[Content | str] = []
    if plan.files:
        tail += [styled("Files", "bold")]
        tail += [assemble("  ", file_prompt(f)) for f in plan.files]
        tail += ["", styled("j/k (or n/p) page through the diffs · s: unified / side by side", "$text-muted")]
    return SummaryPage(_lines(*out), notes, _lines(*tail))


def summary_page(
    slot: ModuleSlot | None, slots: list[ModuleSlot], listed: list[int], review_file: Path | None, problem: str | None
) -> SummaryPage:
    """The page shown when no file is selected: why a plan file failed, the overview, or a module's summary."""
    if problem is not None:
        return SummaryPage(assemble(("Cannot review this plan\n\n", "bold $text-error"), problem))
    if slot is None and review_file is not None and not slots:
        return SummaryPage(styled("The plan file has no modules.", "$text-muted"))
    if slot is None:
        return SummaryPage(overview(slots, listed, review_file))
    return module_summary(slot, review_file is not None)


def _status(slot: ModuleSlot, review: bool) -> Content:
    plan = slot.plan
    assert plan is not None
    if slot.busy:
        return styled(f"… {slot.busy}", "$text-muted")
    if slot.applied is not None:
        where = f"backup at {slot.applied.backup_dir}" if slot.applied.backup_dir else "no backup was made"
        return assemble(("✓ applied", "bold $text-success"), f"; {where}", ("  (u undoes it)", "$text-muted"))
    if plan.errors:
        return styled("✗ cannot migrate: fix the problems below; nothing can be applied", "bold $text-error")
    if plan.already_current:
        note = plan.notes[0] if plan.notes else "already current"
        return assemble(("✓ ", "$text-success"), note, ("  (nothing to apply)", "$text-muted"))
    if slot.live is None and slot.failure and not review:
        return styled("✗ nothing can be applied until the plan can be made again (see below)", "bold $text-error")
    undone = Content("")
    if slot.undone is not None:
        undone = assemble(("↶ undone", "bold"), f": restored from {slot.undone.backup_dir}\n")
    if review:
        return assemble(
            undone,
            ("read-only review", "bold $text-warning"),
            f": apply it with `cogn migrate {plan.module}` where the module lives",
        )
    return assemble(undone, ("ready", "bold $text-warning"), ": a applies it (files are backed up first)")


def overview(slots: list[ModuleSlot], listed: list[int], review_file: Path | None) -> Content:
    """The first page when several modules are previewed: counts, then the modules skipped as already current."""
    planned = [s for s in slots if s.plan is not None]
    current = [s for s in planned if s.plan is not None and s.plan.already_current]
    broken = [s for s in planned if s.plan is not None and s.plan.errors]
    applied = [s for s in planned if s.applied is not None]
    ready = [i for i in listed if slots[i].can_apply]
    to_migrate = [s for s in planned if s.plan is not None and s.plan.can_apply and s.applied is None]
    title = f"Review of {review_file.name} (read-only)" if review_file else "Migration preview"
    out: list[Content | str] = [assemble((title, "bold"), (f"  {plural(len(slots), 'module')}", "$text-muted"))]
    if len(planned) < len(slots):
        out.append(styled(f"planning {len(planned)}/{len(slots)}…", "$text-muted"))
    out += [
        "",
        assemble(
            (f"{len(to_migrate)}", "bold $text-warning"),
            " to migrate · ",
            (f"{len(current)}", "bold $text-success"),
            " already current · ",
            (f"{len(broken)}", "bold $text-error"),
            " cannot be migrated · ",
            (f"{len(applied)}", "bold"),
            " applied",
        ),
    ]
    if broken:
        out += ["", styled("Cannot be migrated", "bold $text-error")]
        for s in broken:
            assert s.plan is not None
            out.append(assemble(f"  {s.name}: ", (s.plan.errors[0].message, "$text-muted")))
    if current:
        out += ["", styled("Already current (skipped)", "bold $text-success")]
        for s in current:
            assert s.plan is not None
            out.append(assemble(f"  {s.name}", (f"  {s.plan.notes[0] if s.plan.notes else ''}", "$text-muted")))
    out.append("")
    out.append(
        styled("J/K move between modules, j/k between files (past the last file: the next module)", "$text-muted")
    )
    if not review_file and ready:
        out.append(styled(f"a here applies all {len(ready)} ready module{'s' * (len(ready) != 1)}", "$text-muted"))
    return _lines(*out)


# ---------------------------------------------------------------- the panes


class SummaryPane(VerticalScroll):
    """A module's summary or the overview: text, then the notes as a numbered list (each with its severity
    marker), then more text."""

    head = getters.query_one("#migrate-summary-text", Static)
    notes = getters.query_one("#migrate-notes", Vertical)
    tail = getters.query_one("#migrate-summary-tail", Static)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._notes_shown: tuple[tuple[str, str], ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(id="migrate-summary-text")
        yield Vertical(id="migrate-notes")
        yield Static(id="migrate-summary-tail")

    def show(self, page: SummaryPage) -> None:
        self.head.update(page.head)
        self.tail.update(page.tail)
        if page.notes == self._notes_shown:
            return
        self._notes_shown = page.notes
        self.notes.remove_children()
        # A row of Statics per note (number, severity marker, text), so a wrapped note lines up under its
        # text, not under its number.
        self.notes.mount_all(
            Horizontal(
                Static(f"{n:>3}.", classes="migrate-note-number"),
                Static(note_marker(severity), classes=f"migrate-note-marker -{severity}"),
                Static(block(note), classes="migrate-note-text"),
                classes="migrate-note",
            )
            for n, (note, severity) in enumerate(page.notes, 1)
        )


class DiffPane(Vertical):
    """One file: what happens to it on a head line, then its diff."""

    head = getters.query_one("#migrate-file-head", Static)
    diff = getters.query_one(DiffView)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[int, int] | None = None  # (plan, file): redrawing the same diff would lose the scroll

    def compose(self) -> ComposeResult:
        yield Static(id="migrate-file-head")
        yield DiffView(id="migrate-diff-view")

    def show(self, file: ReviewFile, plan: ReviewPlan, force: bool = False) -> None:
        if not force and self._shown == (id(plan), id(file)):
            return
        self._shown = (id(plan), id(file))
        self.head.update(file_heading(file, plan))
        self.diff.show(file.diff, diff_notice(file))
