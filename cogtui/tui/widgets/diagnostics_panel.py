"""The editor's problem list: severity, code, location, message and hint; enter or click jumps to the spot.

Messages and hints quote file content, so each option is `Content` with the
values inserted literally (never parsed as markup). Counting and locations
are the core's (`diagnostics.counts`, `diagnostics.format_location`).

A module can have thousands of problems (a long example answer, each item
missing a field): the list shows the first SHOWN of them and a last line
counting the rest, so drawing it takes the same time however many there are
(the title counts them all; f8 steps through every one in the open file).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual import on
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from cogtui.core.diagnostics import Diagnostic, Severity, counts, format_location
from cogtui.core.files.terminal_text import visible

from ..keys import KeySpec, bindings, register
from ..shown import assemble, markup

__all__ = ["SHOWN", "DiagnosticsPanel", "counts", "diagnostic_content", "diagnostic_key", "location_text"]

register(
    KeySpec(
        "problems.back",
        "escape",
        "back_to_text",
        "Back to the text",
        main=True,
        doc="editor's problems list: back to the text",
    )
)

SHOWN = 100  # problems listed at most: a screenful many times over, drawn in a bounded time

ICON = {Severity.ERROR: "[$error]✗[/]", Severity.WARNING: "[$warning]⚠[/]", Severity.INFO: "[$text-muted]ℹ[/]"}
# Parsed once: a problem's line is assembled from parts, not parsed as markup each time.
ICON_CONTENT = {severity: markup(icon) for severity, icon in ICON.items()}


def diagnostic_key(d: Diagnostic) -> tuple[object, ...]:
    return (d.code, d.message, str(d.file), d.line, d.column)


def location_text(d: Diagnostic, root: Path) -> str:
    """`file:line:column` with the file relative to `root` when inside it."""
    file = d.file
    if file is not None:
        try:
            file = file.relative_to(root)
        except ValueError:
            pass
    return format_location(file, d.line, d.column)


def diagnostic_content(d: Diagnostic, root: Path) -> Content:
    """One problem as the list shows it: icon, code, location and message, and its hint below."""
    where = visible(location_text(d, root), single_line=True)
    line = assemble(
        ICON_CONTENT[d.severity], " ", (d.code, "bold"), " ", (where, "$text-muted"), "  ", visible(d.message)
    )
    if d.hint:
        line += assemble("\n    ", (visible(d.hint), "$text-muted"))
    return line


MORE = "[$text-muted]… $more more not listed: fix these first, or f8 steps through the open file's[/]"


class DiagnosticsPanel(OptionList):
    """Shows one module's diagnostics; `Selected` asks the screen to jump to one, `Left` (escape) to go back to the
    text. Its title and height are the screen's (the editor's state: counts, collapsed when empty)."""

    HELP_NAME = "problems list"  # what help calls it (help.seen_name)

    BINDINGS = bindings("problems.back")

    class Left(Message):
        """Escape in the list: back to the text, as the list was entered from it."""

    class Selected(Message):
        def __init__(self, panel: DiagnosticsPanel, diagnostic: Diagnostic) -> None:
            super().__init__()
            self.panel = panel
            self.diagnostic = diagnostic

        @property
        def control(self) -> DiagnosticsPanel:
            return self.panel

    def __init__(self, root: Path, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=True)
        self.root = root
        self.diagnostics: list[Diagnostic] = []
        self.drawn: list[tuple[object, ...]] | None = None  # what the options show, until the first `show`: nothing
        self.border_title = "Problems"

    def show(self, diagnostics: Sequence[Diagnostic]) -> None:
        """Replace the list, keeping the highlighted problem highlighted when it is still there. The same problems
        again (an edit that changed none of them) leave the list as it is drawn."""
        current = self.current
        drawn: list[tuple[object, ...]] = [
            (d.severity, d.code, d.message, d.hint, d.file, d.line, d.column) for d in diagnostics[:SHOWN]
        ]
        unchanged = drawn == self.drawn and len(diagnostics) == len(self.diagnostics)
        self.diagnostics = list(diagnostics)
        if unchanged:
            return
        self.drawn = drawn
        self.clear_options()
        if self.diagnostics:
            self.add_options(Option(diagnostic_content(d, self.root)) for d in self.diagnostics[:SHOWN])
            if len(self.diagnostics) > SHOWN:
                more = len(self.diagnostics) - SHOWN
                self.add_option(Option(markup(MORE, more=f"{more:,}"), disabled=True))
        else:
            self.add_option(Option("[$success]✓ no problems[/]", disabled=True))
        keys = [diagnostic_key(d) for d in self.listed]
        if current is not None and diagnostic_key(current) in keys:
            self.highlighted = keys.index(diagnostic_key(current))

    @property
    def listed(self) -> list[Diagnostic]:
        """The problems the list shows (the first SHOWN)."""
        return self.diagnostics[:SHOWN]

    @property
    def current(self) -> Diagnostic | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.listed):
            return None
        return self.diagnostics[index]

    def highlight_next(self) -> Diagnostic | None:
        """Move the highlight to the next listed problem (wrapping) and return it."""
        if not self.diagnostics:
            return None
        index = self.highlighted
        self.highlighted = 0 if index is None else (index + 1) % len(self.listed)
        return self.current

    def action_back_to_text(self) -> None:
        self.post_message(self.Left())

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.listed):
            self.post_message(self.Selected(self, self.diagnostics[event.option_index]))
