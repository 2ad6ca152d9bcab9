"""The editor's problem list: severity, code, location, message and hint; enter or click jumps to the spot.

Messages and hints quote file content, so each option is `Content` with the
values inserted literally (never parsed as markup). Counting and locations
are the core's (`diagnostics.counts`, `diagnostics.format_location`).
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
from ..shown import markup

__all__ = ["DiagnosticsPanel", "counts", "diagnostic_content", "diagnostic_key", "location_text"]

register(KeySpec("problems.back", "escape", "back_to_text", "Back to the text", main=True))

ICON = {Severity.ERROR: "[$error]✗[/]", Severity.WARNING: "[$warning]⚠[/]", Severity.INFO: "[$text-muted]ℹ[/]"}


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
    line = markup(
        f"{ICON[d.severity]} [b]$code[/] [$text-muted]$where[/]  $message",
        code=d.code,
        where=visible(location_text(d, root), single_line=True),
        message=visible(d.message),
    )
    if d.hint:
        line += markup("\n    [$text-muted]$hint[/]", hint=visible(d.hint))
    return line


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
        self.border_title = "Problems"

    def show(self, diagnostics: Sequence[Diagnostic]) -> None:
        """Replace the list, keeping the highlighted problem highlighted when it is still there."""
        current = self.current
        self.diagnostics = list(diagnostics)
        self.clear_options()
        if self.diagnostics:
            self.add_options(Option(diagnostic_content(d, self.root)) for d in self.diagnostics)
        else:
            self.add_option(Option("[$success]✓ no problems[/]", disabled=True))
        keys = [diagnostic_key(d) for d in self.diagnostics]
        if current is not None and diagnostic_key(current) in keys:
            self.highlighted = keys.index(diagnostic_key(current))

    @property
    def current(self) -> Diagnostic | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.diagnostics):
            return None
        return self.diagnostics[index]

    def highlight_next(self) -> Diagnostic | None:
        """Move the highlight to the next problem (wrapping) and return it."""
        if not self.diagnostics:
            return None
        index = self.highlighted
        self.highlighted = 0 if index is None else (index + 1) % len(self.diagnostics)
        return self.current

    def action_back_to_text(self) -> None:
        self.post_message(self.Left())

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.diagnostics):
            self.post_message(self.Selected(self, self.diagnostics[event.option_index]))
