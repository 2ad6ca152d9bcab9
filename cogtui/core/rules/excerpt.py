"""Values quoted in messages: as JSON, short, and safe for a terminal (D152c).

A message that names a value (the model's answer, a document being checked)
quotes it the way its reader writes it, as JSON: `"abc"`, `{"k":1}`, `true`,
`null`, never Python's repr (`'abc'`, `{'k': 1}`, `True`, `None`). A long value
is cut with an ellipsis (a string keeps its closing quote), and the characters
a terminal would act on (C0 controls, which JSON escapes anyway; C1 controls,
bidi overrides, lone surrogates) are `\\uXXXX` escapes (terminal_json), so the
quote is safe wherever the message goes and still reads as the same value.
Every envelope, chunk and runtime message about model output quotes through
`excerpt`; names of files and fields the author wrote keep their own quoting.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.files.terminal_text import terminal_json

ELLIPSIS = "…"


def excerpt(value: Any, limit: int = 40) -> str:
    """`value` as compact JSON, at most `limit` characters: cut with an ellipsis (inside a string's quotes)."""
    text = _json(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        keep = max(limit - 3, 0)
        while keep > 0:  # escapes make the quote longer than the text: shorten until it fits
            cut = _json(value[:keep] + ELLIPSIS)
            if len(cut) <= limit:
                return cut
            keep -= max(len(cut) - limit, 1)
        return _json(ELLIPSIS)
    return text[: max(limit - 1, 0)] + ELLIPSIS


def _json(value: Any) -> str:
    try:
        return terminal_json(value, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__
