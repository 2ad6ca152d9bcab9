"""The run screen's input check: the input as typed, judged against the module's input schema as you type.

A quarter second after the last change (`InputCheck.soon`), or at once when the module changes on disk (`now`),
a thread worker judges the text (`input_status`: a big input or schema would hold the UI thread) and posts its
verdict to the screen as `InputChecked`, which the screen shows under the editor. The verdict quotes the input and
the schema's messages as values, never as markup. `fill_input` puts the input the screen starts with in the
editor, after what was typed while the module was being read. The screen only forwards the editor's changes here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.message import Message

from cogtui.core.module.model import Module
from cogtui.core.rules.document_checker import UnusableModule, check_input

from ...shown import markup

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer
    from textual.widgets import TextArea

INPUT_DEBOUNCE = 0.25


class InputChecked(Message):
    """The input check's verdict, posted by its worker."""

    def __init__(self, status: Content) -> None:
        super().__init__()
        self.status = status


class InputCheck:
    """The checks of one screen's input: `read` gives the text and the module (None before it is read)."""

    def __init__(self, screen: Screen[Any], read: Callable[[], tuple[str, Module | None]]) -> None:
        self.screen, self.read = screen, read
        self._timer: Timer | None = None

    def soon(self) -> None:
        """A change: check once the typing pauses."""
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.screen.set_timer(INPUT_DEBOUNCE, self.now)

    def now(self) -> None:
        """Check in a thread worker; a newer check replaces one still running."""
        text, module = self.read()
        screen = self.screen

        def work() -> None:
            status = input_status(text, module)
            if status is not None:
                screen.post_message(InputChecked(status))  # dropped if the screen closed meanwhile

        screen.run_worker(
            work, thread=True, exclusive=True, group="input-check", exit_on_error=False, name="check the input"
        )


def input_status(text: str, module: Module | None) -> Content | None:
    """The verdict on the input text: not JSON (where), schema problems (the first two), or ✓; None before the
    module is loaded."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return markup(
            "[$error]✗ not JSON:[/] $msg (line $line, column $column)",
            msg=exc.msg,
            line=str(exc.lineno),
            column=str(exc.colno),
        )
    if module is None:
        return None
    try:
        violations = check_input(doc, module)
    except UnusableModule as exc:  # the module will not run (decision RUN-1): say why, not that the input is wrong
        return markup("[$error]✗ $why[/]", why=str(exc))
    if not violations:
        return markup("[$success]✓ input matches the input schema[/]")
    first = "; ".join(f"{v.code} {v.message}" for v in violations[:2])  # messages quote the input
    more = f" (+{len(violations) - 2} more)" if len(violations) > 2 else ""
    return markup("[$warning]⚠ $first$more[/]", first=first, more=more)


def fill_input(area: TextArea, text: str) -> None:
    """Put the input the screen starts with in `area`: after what was typed while the module loaded (the screen
    opens before it is read, decision TUI-4), which stays where it is, the cursor with it."""
    if area.text:
        selection = area.selection
        area.insert(text, area.document.end)
        area.selection = selection  # what is typed next goes on where the typing was
    else:
        area.text = text
