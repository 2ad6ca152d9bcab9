"""Short excerpts of JSON values for messages: a diagnostic names a value, it never dumps an object."""

from __future__ import annotations

import json
from typing import Any


def excerpt(value: Any, limit: int = 40) -> str:
    """`value` as compact JSON, cut to `limit` characters with an ellipsis."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_type(value: Any) -> str:
    """The JSON type of a parsed value as JSON Schema names it: a message says "got integer", not "got int"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    names = ((int, "integer"), (float, "number"), (str, "string"), ((list, tuple), "array"), (dict, "object"))
    return next((name for kinds, name in names if isinstance(value, kinds)), type(value).__name__)
