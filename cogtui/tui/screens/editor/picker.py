"""The editor's tab list (ctrl+tab or f2): every open file, with its marks and problem count, to jump to, then
the module's files that have no tab (a tab closed when its file was deleted, the file back since, or a file made
since the editor opened), to open again.

Tabs overflow the tab bar once a module has more files than fit the width; this list reaches every one of them.
The open tabs are listed at once; the folder is listed off the UI thread (opening.py), and the files without a tab
join the list when it arrives ("reading the module folder…" until then).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from cogtui.core.authoring.editor_files import relative_name
from cogtui.core.diagnostics import plural
from cogtui.core.files.terminal_text import visible

from ...keys import KeySpec, bindings, register
from ...mounting import while_open
from ...shown import markup
from .drawing import tab_label

if TYPE_CHECKING:
    from .opening import Opening
    from .view import EditorView

PENDING = "pending"  # the option id of the line saying what is still being read
NOT_OPEN = "not-open-"  # the option id of a file without a tab: this prefix, then its place in the list

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
    """Answers the chosen pane's id (or NOT_OPEN and a number, for a file without a tab), or None."""

    BINDINGS = bindings("modal.cancel", "tabs.close")

    option_list = getters.query_one("#tab-picker-list", OptionList)
    title_label = getters.query_one(".dialog-title", Label)

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
        options = self.option_list
        if had_pending:
            options.remove_option(PENDING)
        options.add_options([Option(label, id=pane) for pane, label in more])
        self.title_label.update(self.title_text)

    def pending_failed(self, why: str) -> None:
        """What was being read could not be: the pending line says why."""
        if self.pending is None:
            return
        self.pending = markup("[$warning]$why[/]", why=why)
        if not self.is_mounted:
            self.redraw = True
            return
        self.option_list.replace_option_prompt(PENDING, self.pending)

    @while_open
    def on_mount(self) -> None:
        options = self.option_list
        if self.redraw:  # the read answered as the list was being mounted
            options.set_options(self.options())
            self.title_label.update(self.title_text)
        ids = [pane for pane, _label in self.entries]
        if self.active in ids:
            options.highlighted = ids.index(self.active)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def pick_tab(editor: EditorView, opening: Opening) -> None:
    """The tab list pushed: the open tabs now, the files without a tab once the folder is listed; the choice is
    shown, or opened in a tab of its own first."""
    state = editor.state
    problems = state.problems_per_pane()
    entries = []
    for pane in state.panes():
        if pane not in state.files:
            entries.append((pane, markup("[b]contract[/] [$text-muted](schema as a tree)[/]")))
            continue
        label = tab_label(state, pane)
        if problems.get(pane):
            label += markup("  [$error]$n[/]", n=plural(problems[pane], "problem"))
        entries.append((pane, label))
    closed: list[Path] = []
    picker = TabPickerModal(entries, state.active, pending="reading the module folder…")

    def chosen(pane: str | None) -> None:
        if pane is not None and pane.startswith(NOT_OPEN):
            path = closed[int(pane.removeprefix(NOT_OPEN))]
            editor.app.call_later(opening.open_files, [path], path)
        elif pane is not None:
            editor.show_tab(pane)

    def listed(listing: list[Path] | str) -> None:
        if not picker.is_attached:  # closed before the folder was listed
            return
        if isinstance(listing, str):
            picker.pending_failed(listing)
            return
        closed.extend(listing)
        labels = [
            markup("$rel  [$text-muted]not open[/]", rel=visible(relative_name(path, state.root), single_line=True))
            for path in closed
        ]
        title = f"Files: {len(entries)} open, {len(closed)} not open" if closed else None
        picker.pending_done([(f"{NOT_OPEN}{index}", label) for index, label in enumerate(labels)], title)

    editor.app.push_screen(picker, chosen)
    opening.without_tab(listed)
