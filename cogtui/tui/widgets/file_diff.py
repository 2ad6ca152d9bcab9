"""A read-only unified diff in a modal, for "show diff" when a save meets a file changed on disk."""

from __future__ import annotations

from rich.syntax import Syntax
from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ..keys import bindings
from ..shown import block


class FileDiffModal(ModalScreen[None]):
    """Shows `diff_text` (unified diff) until escape or Back; the title (a file name) is shown literally."""

    BINDINGS = bindings("modal.cancel")
    back = getters.query_one("#back", Button)

    def __init__(self, title: str, diff_text: str) -> None:
        super().__init__()
        self.title_text = title
        self.diff_text = diff_text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="file-diff"):
            yield Label(block(self.title_text), classes="dialog-title")
            with VerticalScroll(id="file-diff-body"):
                yield Static(self._renderable(), id="file-diff-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Back", variant="primary", id="back")

    def _renderable(self) -> Syntax | str:
        if not self.diff_text:
            return "No differences: the buffer matches the disk."
        # "default" background: the diff sits on the dialog's theme surface, not a fixed colour.
        theme = "ansi_dark" if self.app.current_theme.dark else "ansi_light"
        return Syntax(self.diff_text, "diff", theme=theme, background_color="default", word_wrap=False)

    def on_mount(self) -> None:
        self.back.focus()

    @on(Button.Pressed, "#back")
    def action_cancel(self) -> None:
        self.dismiss(None)
