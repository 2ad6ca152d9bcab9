"""Read-only views of JSON and diffs, highlighted with the theme's colours.

Text read from files, models or the history reaches `CodeView` as `Content`
(`show_content`, built with `shown.markup`) or as plain text (`show_plain`);
`show_text` parses markup and is only for strings written in code. JSON,
diffs and plain text are shown with their control characters visibly escaped.
"""

from __future__ import annotations

from typing import Any

from rich.syntax import Syntax
from textual import getters
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cogtui.core.files.terminal_text import terminal_json, visible

from ..shown import block, markup, styled


def _syntax(text: str, lexer: str, dark: bool) -> Syntax:
    # ANSI themes keep the terminal's own palette (SSH, no truecolor).
    return Syntax(
        text,
        lexer,
        theme="ansi_dark" if dark else "ansi_light",
        background_color="default",
        word_wrap=True,
        line_numbers=False,
    )


class CodeView(VerticalScroll):
    """A scrollable, highlighted block of JSON or a unified diff."""

    DEFAULT_CSS = """
    CodeView { height: 1fr; }
    CodeView > Static { width: 100%; }
    """

    text = ""  # what is shown, as plain text (for copying, and for tests)
    body = getters.query_one(".code-view-body", Static)

    def compose(self) -> ComposeResult:
        yield Static("", classes="code-view-body")

    def show_json(self, value: Any) -> None:
        self.text = terminal_json(value, indent=2)
        self.body.update(_syntax(self.text, "json", self.app.current_theme.dark))
        self.scroll_home(animate=False)

    def show_diff(self, diff: str, empty: str = "no differences") -> None:
        """A unified diff, or `empty` (plain text, shown muted) when there is none."""
        if not diff.strip():
            self.show_content(markup("[$text-muted]$empty[/]", empty=empty))
            return
        self.text = visible(diff)
        self.body.update(_syntax(self.text, "diff", self.app.current_theme.dark))  # escaped, as the text says
        self.scroll_home(animate=False)

    def show_content(self, content: Content) -> None:
        """Styled text built with `Content` (values from files inserted literally, e.g. `shown.markup`
        with `$variables`)."""
        self.text = content.plain
        self.body.update(content)
        self.scroll_home(animate=False)

    def show_plain(self, text: str, style: str = "") -> None:
        """Text shown exactly as it is (never parsed as markup), in one style such as "$error"."""
        text = visible(text)
        self.show_content(styled(text, style) if style else block(text))

    def show_text(self, code_markup: str) -> None:
        """Markup written in code only (theme variables like `[$text-muted]` work): anything read from a file,
        a model or the history goes through `show_plain` or `show_content`."""
        self.show_content(markup(code_markup))
