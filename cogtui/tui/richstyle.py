"""Rich styles from the current theme, for widgets that take Rich renderables (DataTable cells).

CSS and Content markup use theme variables directly; Rich text needs concrete
colours, looked up here from the theme (ANSI themes give ANSI colours).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.color import Color, ColorParseError

from .shown import cell


def theme_style(app: App[object], variable: str, bold: bool = False) -> Style:
    value = app.theme_variables.get(variable)
    try:
        color = Color.parse(value).rich_color if value else None
    except ColorParseError:
        color = None
    return Style(color=color, bold=bold)


def themed(app: App[object], text: str, variable: str, bold: bool = False) -> Text:
    return cell(text, theme_style(app, variable, bold))
