"""Syntax colours for the TextAreas (the editor, the run screen's input) that suit the app's theme.

Textual's "css" theme is for dark backgrounds and "github_light" for light ones; with cogtui-ansi (every
terminal without truecolor, on whatever palette the user chose) both fail one palette: their colours are
mapped to the nearest of the 16, and strings came out white (hidden on a light terminal). The ANSI theme
here uses only colours that read on a light and on a dark palette, and the terminal's default for the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.style import Style
from textual.app import App
from textual.screen import Screen
from textual.widgets import TextArea
from textual.widgets.text_area import TextAreaTheme

ANSI = "cogtui-ansi"
_FIELD = Style(bold=True)
_VALUE = Style(color="green")
_LITERAL = Style(color="blue")
_KEYWORD = Style(color="magenta")
_QUIET = Style(color="bright_black", italic=True)

ANSI_AREA_THEME = TextAreaTheme(
    name=ANSI,
    syntax_styles={
        "string": _VALUE,
        "inline_code": _VALUE,
        "comment": _QUIET,
        "string.documentation": _QUIET,
        "yaml.field": _FIELD,
        "json.label": _FIELD,
        "css.property": _FIELD,
        "tag": _FIELD,
        "number": _LITERAL,
        "float": _LITERAL,
        "boolean": _LITERAL,
        "constant.builtin": _LITERAL,
        "json.null": _LITERAL,
        "link.uri": Style(color="blue", underline=True),
        "keyword": _KEYWORD,
        "list.marker": _KEYWORD,
        "heading": Style(bold=True),
        "heading.marker": _KEYWORD,
        "bold": Style(bold=True),
        "italic": Style(italic=True),
    },
)


def area_theme_name(app: App[object]) -> str:
    """The TextArea theme that suits `app`'s current theme."""
    theme = app.current_theme
    if theme.ansi:
        return ANSI
    return "css" if theme.dark else "github_light"  # "css" takes the app theme's colours; its syntax is for dark


class ThemedTextArea(TextArea):
    """A TextArea that knows the ANSI syntax theme from the start: built with `theme=starting_area_theme(app)`, its
    theme is applied once whatever the app's theme (TUI-9). A TextArea's own themes can only be registered on an
    area that exists, so one built with the ANSI theme's name registers it as the name is set (`validate_theme`,
    the reactive's public validator, runs before the theme is applied); the area then never applies another first."""

    def validate_theme(self, name: str) -> str:
        if name == ANSI and ANSI not in self.available_themes:
            self.register_theme(ANSI_AREA_THEME)
        return name


def starting_area_theme(app: App[object]) -> str:
    """The theme to build a `ThemedTextArea` with (`code_editor(theme=...)`): the one it keeps, so it is applied
    once, not the constructor's default and then this one (TUI-9)."""
    return area_theme_name(app)


def follow_app_theme(app: App[object], area: TextArea) -> None:
    """Give `area` the TextArea theme for `app`'s current theme, only when it has another one (the area
    re-applies its own theme when the app's changes; a `ThemedTextArea` registers the ANSI one itself)."""
    name = area_theme_name(app)
    if name == ANSI and ANSI not in area.available_themes:
        area.register_theme(ANSI_AREA_THEME)
    if area.theme != name:
        area.theme = name


def keep_following_app_theme(screen: Screen[Any], areas: Callable[[], Iterable[TextArea]]) -> None:
    """Give `areas()` the TextArea theme for the app's theme now, and again whenever the app's theme changes
    (for as long as `screen` is mounted)."""

    def follow(_theme: object = None) -> None:
        for area in areas():
            follow_app_theme(screen.app, area)

    screen.app.theme_changed_signal.subscribe(screen, follow)
    follow()
