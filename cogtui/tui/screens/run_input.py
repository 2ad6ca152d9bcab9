"""The run screen's input side: the choices that prefill it, the default provider, and the input's verdict.

`input_status` runs in the screen's thread worker (as you type, debounced);
its Content quotes the input and the schema's messages as values, never as
markup.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.message import Message

from cogtui.core.module.model import UNPARSED, Module
from cogtui.core.rules.document_checker import check_input
from cogtui.core.run.providers import UnknownProvider, has_api_key, selected

if TYPE_CHECKING:
    from cogtui.core.settings.config import Config

INPUT_DEBOUNCE = 0.25


class InputChecked(Message):
    """The input check's verdict, posted by its worker."""

    def __init__(self, status: Content) -> None:
        super().__init__()
        self.status = status


def initial_inputs(module: Module) -> list[tuple[str, Any]]:
    """(label, input) choices: every golden, then every example; the first one prefills the editor."""
    out: list[tuple[str, Any]] = []
    for t in module.tests:
        if t.input is not UNPARSED:
            out.append((f"golden {t.name}", t.input))
    for e in module.examples:
        if e.input is not UNPARSED:
            out.append((f"example {e.name}", e.input))
    return out


def default_provider(config: Config) -> tuple[str, str | None]:
    """(provider, problem): the configured provider (replay when it has no API key), or replay and
    why when the configured name (config.yaml or $COGNITIVE_PROVIDER) is not a provider at all."""
    try:
        name, _ = selected(config=config)
    except UnknownProvider as exc:
        return "replay", f"{exc}; using replay"
    return (name if name == "replay" or has_api_key(name) else "replay"), None


def input_status(text: str, module: Module | None) -> Content | None:
    """The verdict on the input text: not JSON (where), schema problems (the first two), or ✓; None before the
    module is loaded."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return Content.from_markup(
            "[$error]✗ not JSON:[/] $msg (line $line, column $column)",
            msg=exc.msg,
            line=str(exc.lineno),
            column=str(exc.colno),
        )
    if module is None:
        return None
    violations = check_input(doc, module)
    if not violations:
        return Content.from_markup("[$success]✓ input matches the input schema[/]")
    first = "; ".join(f"{v.code} {v.message}" for v in violations[:2])  # messages quote the input
    more = f" (+{len(violations) - 2} more)" if len(violations) > 2 else ""
    return Content.from_markup("[$warning]⚠ $first$more[/]", first=first, more=more)
