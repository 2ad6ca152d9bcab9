"""The run screen's input side: the input's verdict (the choices and the provider: core.run.run_start), and the
input the screen starts with (`fill_input`).

`input_status` runs in the screen's thread worker (as you type, debounced);
its Content quotes the input and the schema's messages as values, never as
markup.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from textual.content import Content
from textual.message import Message
from textual.widgets import TextArea

from cogtui.core.module.model import Module
from cogtui.core.rules.document_checker import UnusableModule, check_input

from ...shown import markup

if TYPE_CHECKING:
    pass

INPUT_DEBOUNCE = 0.25


def fill_input(area: TextArea, text: str) -> None:
    """Put the input the screen starts with in `area`: after what was typed while the module loaded (the screen
    opens before it is read, TUI-4), which stays where it is, the cursor with it."""
    if area.text:
        selection = area.selection
        area.insert(text, area.document.end)
        area.selection = selection  # what is typed next goes on where the typing was
    else:
        area.text = text


class InputChecked(Message):
    """The input check's verdict, posted by its worker."""

    def __init__(self, status: Content) -> None:
        super().__init__()
        self.status = status


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
    except UnusableModule as exc:  # the module will not run: say why, not that the input is wrong (RUN-1)
        return markup("[$error]✗ $why[/]", why=str(exc))
    if not violations:
        return markup("[$success]✓ input matches the input schema[/]")
    first = "; ".join(f"{v.code} {v.message}" for v in violations[:2])  # messages quote the input
    more = f" (+{len(violations) - 2} more)" if len(violations) > 2 else ""
    return markup("[$warning]⚠ $first$more[/]", first=first, more=more)
