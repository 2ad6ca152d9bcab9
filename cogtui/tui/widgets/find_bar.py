"""The editor's find bar (ctrl+f): a one-line query box; enter finds the next match, escape closes."""

from __future__ import annotations

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label

from .. import keys
from ..keys import KeySpec, bindings

keys.register(KeySpec("find.close", "escape", "close", "Close find", doc="find bar: close"))


class FindBar(Horizontal):
    """Posts `Find` for each enter (the screen searches and selects), `Closed` on escape."""

    class Find(Message):
        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Closed(Message):
        pass

    BINDINGS = bindings("find.close")

    box = getters.query_one("#find-input", Input)
    status = getters.query_one("#find-status", Label)

    def compose(self) -> ComposeResult:
        yield Label("Find:", id="find-label")
        yield Input(placeholder="text (enter: next match, esc: close)", id="find-input")
        yield Label("", id="find-status")

    @property
    def query_text(self) -> str:
        return self.box.value

    def open(self, initial: str = "") -> None:
        self.display = True
        box = self.box
        if initial:
            box.value = initial
        box.focus()
        box.select_all()

    def say(self, text: str) -> None:
        self.status.update(text)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Find(event.value))

    def action_close(self) -> None:
        self.display = False
        self.post_message(self.Closed())
