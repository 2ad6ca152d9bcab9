"""A code editor whose gutter marks the lines that have problems: ✗ for an error, ⚠ for a warning.

The mark replaces the space between the line number and the text, so the
text never moves. Rendering goes through `render_line` (public API): the
TextArea draws the line, then the mark is drawn over the gutter's margin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color, ColorParseError
from textual.strip import Strip

from cogtui.core.diagnostics import Severity
from cogtui.core.files.terminal_text import holds_unsafe, without_unsafe

from .area_theme import ThemedTextArea

GLYPH = {Severity.ERROR: "✗", Severity.WARNING: "⚠", Severity.INFO: "ℹ"}
VARIABLE = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "text-muted"}
RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class MarkedTextArea(ThemedTextArea):
    """`TextArea.code_editor` with per-line diagnostic marks (`set_marks`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # TextArea's own arguments, passed through
        language = kwargs.pop("language", None)
        super().__init__(*args, **kwargs)
        self.marks: dict[int, Severity] = {}  # 0-based row -> the worst severity on it
        if language is not None:
            # Given to TextArea's constructor, a language builds the document twice (two tree-sitter parses and
            # two compiles of the highlight query a file): before the reactive is set and again when it is.
            self.language = language

    def set_marks(self, marks: Mapping[int, Severity]) -> None:
        if dict(marks) != self.marks:
            self.marks = dict(marks)
            self.refresh()

    def render_line(self, y: int) -> Strip:
        strip = _hide_controls(super().render_line(y))
        if not self.marks or not self.show_line_numbers or self.soft_wrap:
            return strip
        row = self.scroll_offset.y + y
        severity = self.marks.get(row)
        gutter = self.gutter_width
        if severity is None or gutter < 2 or row >= self.document.line_count:
            return strip
        mark = Style(color=self._colour(VARIABLE[severity]), bold=True)
        before, _margin, after = strip.divide([gutter - 2, gutter - 1, strip.cell_length])
        cell = Strip([Segment(GLYPH[severity], mark + _background(before))], 1)
        return Strip.join([before, cell, after])

    def _colour(self, variable: str) -> RichColor | None:
        try:
            return Color.parse(self.app.theme_variables.get(variable, "")).rich_color
        except ColorParseError:
            return None


def _hide_controls(strip: Strip) -> Strip:
    """The file's own control characters, removed from the screen (each is zero cells wide: the layout stays).

    A file holding them opens read-only and says which (SEC-6); the terminal guard would remove them anyway,
    but that is the last line of defence, kept for text a widget forgot to escape."""
    if not holds_unsafe(strip.text):
        return strip
    return Strip([Segment(without_unsafe(s.text), s.style, s.control) for s in strip], strip.cell_length)


def _background(strip: Strip) -> Style:
    """The gutter's own background, so the mark sits on it."""
    for segment in strip:
        if segment.style is not None and segment.style.bgcolor is not None:
            return Style(bgcolor=segment.style.bgcolor)
    return Style()


def marks_for(rows: list[tuple[int, Severity]]) -> dict[int, Severity]:
    """The worst severity per row."""
    out: dict[int, Severity] = {}
    for row, severity in rows:
        if row not in out or RANK[severity] < RANK[out[row]]:
            out[row] = severity
    return out
