"""The editor's tab list (ctrl+tab or f2): every open file, with its marks and problem count, to jump to, then
the module's files that have no tab (closed, or new), to open again.

Tabs overflow the tab bar once a module has more files than fit the width;
this list reaches every one of them. It answers the chosen pane's id.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ..keys import KeySpec, bindings, register

register(KeySpec("tabs.close", "ctrl+tab,f2", "cancel", "Close the list", priority=True))  # the keys that open it


class TabPickerModal(ModalScreen[str | None]):
    BINDINGS = bindings("modal.cancel", "tabs.close")

    def __init__(self, entries: list[tuple[str, Content]], active: str, title: str | None = None) -> None:
        """`entries`: (pane id, label) in tab order; `active` is highlighted first."""
        super().__init__()
        self.entries, self.active = entries, active
        self.title_text = title or f"Open files ({len(entries)})"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="tab-picker"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(*(Option(label, id=pane) for pane, label in self.entries), id="tab-picker-list")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        ids = [pane for pane, _label in self.entries]
        if self.active in ids:
            options.highlighted = ids.index(self.active)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
