"""The two pages of the migration preview's right-hand pane: a summary (or the overview), and one file's diff.

They only draw what the screen hands them; the screen decides which page shows.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from cogtui.core.authoring.migration.review import ReviewFile, ReviewPlan

from ...shown import block
from ...widgets.diff_view import DiffView
from .model import SummaryPage, diff_notice, file_heading, note_marker


class SummaryPane(VerticalScroll):
    """A module's summary or the overview: text, then the notes as a numbered list (each with its severity
    marker), then more text."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._notes_shown: tuple[tuple[str, str], ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(id="migrate-summary-text")
        yield Vertical(id="migrate-notes")
        yield Static(id="migrate-summary-tail")

    def show(self, page: SummaryPage) -> None:
        self.query_one("#migrate-summary-text", Static).update(page.head)
        self.query_one("#migrate-summary-tail", Static).update(page.tail)
        if page.notes == self._notes_shown:
            return
        self._notes_shown = page.notes
        notes = self.query_one("#migrate-notes", Vertical)
        notes.remove_children()
        # A row of Statics per note (number, severity marker, text), so a wrapped note lines up under its
        # text, not under its number.
        notes.mount_all(
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
        self.query_one("#migrate-file-head", Static).update(file_heading(file, plan))
        self.query_one(DiffView).show(file.diff, diff_notice(file))
