"""Text from modules, models and history, made into what a widget shows: visibly escaped, never markup.

`markup(template, **values)` is the way to mix such text with styling: the template is written in code,
each value is shown literally (never parsed as markup) with its escape sequences and other control
characters visibly escaped by `visible()` (cogtui/core/files/terminal_text.py). `line`, `block`, `styled`
and `assemble` build Textual `Content` the same way; `cell` and `rich_assemble` build Rich `Text` (DataTable
cells, Tree labels).

This module is the only place in cogtui/tui that constructs `Content`/`Text` from anything but a string
literal (tested: tests/tui/test_terminal_guard.py). Whatever slips past it, the terminal guard
(terminal_guard.py) still keeps raw control characters off the terminal; these make them readable
instead of silently removed.
"""

from __future__ import annotations

from rich.console import JustifyMethod
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.style import Style as VisualStyle

from cogtui.core.files.terminal_text import visible


def markup(template: str, **values: object) -> Content:
    """Content from a markup `template` (code's own text), its `$name` variables filled literally and escaped."""
    return Content.from_markup(template, **{name: visible(str(value)) for name, value in values.items()})


def line(text: object) -> Content:
    """One line of untrusted text: newlines and tabs escaped too (table cells, labels, tab titles)."""
    return Content(visible(str(text), single_line=True))


def block(text: object) -> Content:
    """Untrusted text that may span lines (newlines and tabs kept)."""
    return Content(visible(str(text)))


Part = str | tuple[str, str] | Content


def assemble(*parts: Part) -> Content:
    """`Content.assemble`, every text part (alone or in a (text, style) pair) visibly escaped; Content parts as built."""
    return Content.assemble(*(_escaped(part) for part in parts))


def styled(text: object, style: str | VisualStyle) -> Content:
    """`Content.styled` for untrusted text: one style over the visibly escaped text."""
    return Content.styled(visible(str(text)), style)


def _escaped(part: Part) -> str | tuple[str, str] | Content:
    if isinstance(part, Content):
        return part
    if isinstance(part, tuple):
        return (visible(part[0]), part[1])
    return visible(part)


def cell(value: object, style: str | Style = "", *, justify: JustifyMethod | None = None) -> Text:
    """Rich `Text` of one line of untrusted text (a DataTable cell, a Tree label)."""
    return Text(visible(str(value), single_line=True), style, justify=justify)


RichPart = str | tuple[str, str | Style] | Text


def rich_assemble(*parts: RichPart) -> Text:
    """`Text.assemble`, every text part (alone or in a (text, style) pair) visibly escaped; Text parts as built."""
    return Text.assemble(*(_rich_escaped(part) for part in parts))


def _rich_escaped(part: RichPart) -> RichPart:
    if isinstance(part, Text):
        return part
    if isinstance(part, tuple):
        return (visible(part[0], single_line=True), part[1])
    return visible(part, single_line=True)
