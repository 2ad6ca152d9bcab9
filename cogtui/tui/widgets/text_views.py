"""Read-only views of JSON and diffs, highlighted with the theme's colours."""

from __future__ import annotations

import json
from typing import Any

from rich.syntax import Syntax
from textual.containers import VerticalScroll
from textual.widgets import Static


def _syntax(text: str, lexer: str, dark: bool) -> Syntax:
    # ANSI themes keep the terminal's own palette (SSH, no truecolor).
    return Syntax(text, lexer, theme="ansi_dark" if dark else "ansi_light", background_color="default",
                  word_wrap=True, line_numbers=False)


class CodeView(VerticalScroll):
    """A scrollable, highlighted block of JSON or a unified diff."""

    DEFAULT_CSS = """
    CodeView { height: 1fr; }
    CodeView > Static { width: 100%; }
    """

    text = ""  # what is shown, as plain text (for copying, and for tests)

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("", classes="code-view-body")

    def _body(self) -> Static:
        return self.query_one(".code-view-body", Static)

    def show_json(self, value: Any) -> None:
        self.text = json.dumps(value, indent=2, ensure_ascii=False)
        self._body().update(_syntax(self.text, "json", self.app.current_theme.dark))
        self.scroll_home(animate=False)

    def show_diff(self, diff: str, empty: str = "no differences") -> None:
        self.text = diff if diff.strip() else empty
        if not diff.strip():
            self._body().update(f"[$text-muted]{empty}[/]")
        else:
            self._body().update(_syntax(diff, "diff", self.app.current_theme.dark))
        self.scroll_home(animate=False)

    def show_text(self, markup: str) -> None:
        from rich.text import Text

        self.text = Text.from_markup(markup.replace("[$", "[")).plain if "[" in markup else markup
        self._body().update(markup)
        self.scroll_home(animate=False)
