"""A manifest value in a message as its author wrote it, never as Python's repr (CODE-9).

`version: 2024-01-01` is a date to YAML; a message saying `datetime.date(2024, 1, 1)` shows the author
something they never wrote. A string keeps its quotes ('exec '), so its edges show; anything else is
shown as its text in the file (`2024-01-01`, `~`, `yes`), or, where there is none (a list, a value from
JSON), as YAML writes it (`null`, `true`, `[a, 1]`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Sequence
from typing import Any

from cogtui.core.files.sourcemap import SourceFile


def as_written(
    value: Any, src: SourceFile | None, parts: Sequence[Hashable], key: bool = False, quote: bool = True
) -> str:
    """`value` (found at `parts` of `src`, or the key there) for a message; a string without quotes if not
    `quote` (a name in `policies.network`, an error code)."""
    if isinstance(value, str):
        return repr(value) if quote else value
    if src is not None and not isinstance(value, (list, dict)):
        text = src.written(parts, key)
        if text is not None:
            return text
    return yaml_text(value)


def yaml_text(value: Any) -> str:
    """How YAML writes a value: null, true, 1.5, .inf, 2024-01-01, [a, 1], {k: v}; a string in a collection
    double-quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else ("-.inf" if value < 0 else ".inf")
    if isinstance(value, bytes):
        import base64  # only for a !!binary value: not on the start-up path

        return "!!binary " + base64.b64encode(value).decode("ascii")
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(yaml_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{yaml_text(k)}: {yaml_text(v)}" for k, v in value.items()) + "}"
    date = _date_kind(value)
    if date == "a timestamp":
        return str(value.isoformat(sep=" "))
    if date == "a date":
        return str(value.isoformat())
    return str(value)


def key_as_written(key: Any, src: SourceFile | None, parts: Sequence[Hashable]) -> str:
    """A mapping key for a dotted name (`policies.network`): a string as it is, anything else as written."""
    return as_written(key, src, parts, key=True, quote=False)


def yaml_kind(value: Any) -> str:
    """What a value is, in YAML's words rather than a Python type name: "a list", "text", "a date"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    kinds = {str: "text", bytes: "binary data", list: "a list", dict: "a mapping"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), None) or _date_kind(value)


def _date_kind(value: Any) -> str:
    """ "a timestamp", "a date" or "a value". `datetime` is imported only when loaded already (PyYAML built a
    date), so quoting a value costs the start-up path no import."""
    import sys

    datetime = sys.modules.get("datetime")
    if datetime is not None and isinstance(value, datetime.datetime):
        return "a timestamp"
    if datetime is not None and isinstance(value, datetime.date):
        return "a date"
    return "a value"
