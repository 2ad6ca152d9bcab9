"""How many colours the terminal shows, and which theme that calls for.

`colour_depth` reads what terminals and Textual use to say it: an explicit
`TEXTUAL_COLOR_SYSTEM`, `COLORTERM=truecolor|24bit`, the `TERM` name
(`*-direct`, `*-256color`, `*-16color`, `dumb`), and last the colour system
Textual's console detected (its driver's view). `start_theme` picks the theme
for this start: `--theme` always wins; without truecolor the ANSI theme is
chosen (the default theme's diff and status colours blur together on 16 or
256 colours), unless the configured theme is itself an ANSI theme.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import NamedTuple

ANSI_THEME = "cogtui-ansi"


class ColourDepth(StrEnum):
    NONE = "none"  # TERM=dumb or no terminal at all
    STANDARD = "16"
    EIGHT_BIT = "256"
    TRUECOLOR = "truecolor"

    @property
    def truecolor(self) -> bool:
        return self is ColourDepth.TRUECOLOR


# Textual's and Rich's names (TEXTUAL_COLOR_SYSTEM, Console.color_system).
_SYSTEMS = {
    "truecolor": ColourDepth.TRUECOLOR,
    "256": ColourDepth.EIGHT_BIT,
    "standard": ColourDepth.STANDARD,
    "windows": ColourDepth.STANDARD,
}


def colour_depth(environ: Mapping[str, str], driver: str | None = None) -> ColourDepth:
    """The terminal's colour depth; `driver` is the colour system Textual's console detected, if known."""
    forced = environ.get("TEXTUAL_COLOR_SYSTEM", "").strip().lower()
    if forced in _SYSTEMS:
        return _SYSTEMS[forced]
    if environ.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return ColourDepth.TRUECOLOR
    term = environ.get("TERM", "").strip().lower()
    if term == "dumb":
        return ColourDepth.NONE
    if term.endswith(("-direct", "-truecolor", "-24bit")):
        return ColourDepth.TRUECOLOR
    if term.endswith("-256color"):
        return ColourDepth.EIGHT_BIT
    if term:  # xterm, screen, tmux, linux, vt100, *-16color, *-8color: the basic palette
        return ColourDepth.STANDARD
    return _SYSTEMS.get((driver or "").lower(), ColourDepth.STANDARD if driver else ColourDepth.NONE)


class ThemeChoice(NamedTuple):  # immutable
    name: str | None  # None: the configured theme (or the default)
    note: str = ""  # why a theme was chosen for the user, to tell them once; "" when nothing was decided for them


def start_theme(
    requested: str | None, configured: str | None, depth: ColourDepth, is_ansi: Callable[[str], bool]
) -> ThemeChoice:
    """`--theme` wins; else on a terminal without truecolor the ANSI theme, unless the configured one is ANSI."""
    if requested:
        return ThemeChoice(requested)
    if depth.truecolor or depth is ColourDepth.NONE:
        return ThemeChoice(None)
    if configured and is_ansi(configured):
        return ThemeChoice(None)
    colours = "256-colour" if depth is ColourDepth.EIGHT_BIT else "16-colour"
    return ThemeChoice(
        ANSI_THEME, f"{colours} terminal (no truecolor): using the {ANSI_THEME} theme; `--theme NAME` picks another."
    )
