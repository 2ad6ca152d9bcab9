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

from ...keys import KeySpec, bindings, register
from ...mounting import while_open
from ...shown import markup

PENDING = "pending"  # the option id of the line saying what is still being read

register(
    KeySpec(
        "tabs.close",
        "ctrl+tab,f2",
        "cancel",
        "Close the list",
        priority=True,
        doc="editor's tab list: close it (the keys that open it)",
    )
)  # the keys that open it


class TabPickerModal(ModalScreen[str | None]):
    BINDINGS = bindings("modal.cancel", "tabs.close")

    def __init__(
        self, entries: list[tuple[str, Content]], active: str, title: str | None = None, pending: str = ""
    ) -> None:
        """`entries`: (pane id, label) in tab order; `active` is highlighted first. `pending`: a last, disabled line
        saying what is still being read (more entries to come: `pending_done`, or `pending_failed`)."""
        super().__init__()
        self.entries, self.active = entries, active
        self.pending = markup("[$text-muted]$what[/]", what=pending) if pending else None
        self.title_text = title or f"Open files ({len(entries)})"
        self.redraw = False  # the record changed before the list was mounted: `on_mount` shows it

    def options(self) -> list[Option]:
        shown = [Option(label, id=pane) for pane, label in self.entries]
        return shown + ([Option(self.pending, id=PENDING, disabled=True)] if self.pending is not None else [])

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="tab-picker"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(*self.options(), id="tab-picker-list")

    def pending_done(self, more: list[tuple[str, Content]], title: str | None = None) -> None:
        """What was being read: `more` entries after the others (and the title that counts them). Before the list
        is mounted only the record changes: `on_mount` shows it."""
        had_pending, self.pending = self.pending is not None, None
        self.entries = [*self.entries, *more]
        self.title_text = title or self.title_text
        if not self.is_mounted:
            self.redraw = True
            return
        options = self.query_one(OptionList)
        if had_pending:
            options.remove_option(PENDING)
        options.add_options([Option(label, id=pane) for pane, label in more])
        self.query_one(".dialog-title", Label).update(self.title_text)

    def pending_failed(self, why: str) -> None:
        """What was being read could not be: the pending line says why."""
        if self.pending is None:
            return
        self.pending = markup("[$warning]$why[/]", why=why)
        if not self.is_mounted:
            self.redraw = True
            return
        self.query_one(OptionList).replace_option_prompt(PENDING, self.pending)

    @while_open
    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.redraw:  # the read answered as the list was being mounted
            options.set_options(self.options())
            self.query_one(".dialog-title", Label).update(self.title_text)
        ids = [pane for pane, _label in self.entries]
        if self.active in ids:
            options.highlighted = ids.index(self.active)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
