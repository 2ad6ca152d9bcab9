"""Small modal dialogs: confirm, and choose one of several (the new-module form is new_module/screen.py).

Titles, bodies and choice labels quote module names, paths and errors, so a
str is shown literally (never parsed as markup); pass `Content` for styling.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ..keys import bindings
from ..mounting import while_open
from ..shown import block

ModalText = str | Content  # a str here is plain text, not markup


def literal(text: ModalText) -> Content:
    return text if isinstance(text, Content) else block(text)


class ConfirmModal(ModalScreen[bool]):
    BINDINGS = bindings("modal.cancel")

    def __init__(self, title: ModalText, body: ModalText, confirm: ModalText = "OK", danger: bool = False) -> None:
        super().__init__()
        self.title_text, self.body, self.confirm, self.danger = title, body, confirm, danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(literal(self.title_text), classes="dialog-title")
            yield Static(literal(self.body), classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(literal(self.confirm), variant="error" if self.danger else "primary", id="confirm")
                yield Button("Cancel", id="cancel")

    @while_open
    def on_mount(self) -> None:
        self.query_one("#cancel" if self.danger else "#confirm", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm")

    def action_cancel(self) -> None:
        self.dismiss(False)


class ChoiceModal(ModalScreen[str | None]):
    """Several named choices as buttons; escape answers None."""

    BINDINGS = bindings("modal.cancel")

    def __init__(self, title: ModalText, body: ModalText, choices: Sequence[tuple[str, ModalText]]) -> None:
        """`choices` are (identifier, label) pairs: the identifier names the button, the label is shown."""
        super().__init__()
        self.title_text, self.body, self.choices = title, body, choices

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(literal(self.title_text), classes="dialog-title")
            yield Static(literal(self.body), classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                for ident, label in self.choices:
                    yield Button(literal(label), id=f"choice-{ident}")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        ident = event.button.id or ""
        self.dismiss(ident.removeprefix("choice-") if ident.startswith("choice-") else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
