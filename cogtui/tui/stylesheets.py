"""The .tcss files (cogtui/tui/styles/): the app's own, and each screen's as its DEFAULT_CSS.

A screen's stylesheet is its class's DEFAULT_CSS, read from its file when the screen's module is imported (the
first time the screen is opened): Textual adds a new class's default CSS to the stylesheet it has, parsing only
that. A screen's CSS_PATH instead makes Textual parse every stylesheet again and restyle every widget of the app
the first time each screen kind is shown, a cost that grows with every screen opened. Default CSS ranks below the app's CSS_PATH (app.tcss,
browser.tcss) and is scoped to its screen, so a screen's rules never reach another screen: the dialogs a screen
pushes (screens of their own) are styled in app.tcss, beside `.dialog`.
Upstream behaviour (`App._load_screen_css` reparses all, as designed with screen CSS in Textualize/textual#2744;
no issue asks to change it) pinned by
tests/tui/test_textual_behaviour.py, which fails once a CSS_PATH no longer does it and screens can use CSS_PATH.
"""

from __future__ import annotations

from pathlib import Path

STYLES = Path(__file__).parent / "styles"


def stylesheet(name: str) -> str:
    """The text of one of cogtui's stylesheets (package data: present wherever the package is installed)."""
    return (STYLES / name).read_text(encoding="utf-8")
