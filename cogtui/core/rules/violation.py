"""A broken envelope rule, named by its E-code (error-codes.md) and a stable rule id, with where it broke."""

from __future__ import annotations

from typing import Any

from cogtui.core.records import record

PathT = tuple[str | int, ...]


@record
class Violation:
    """A rule an envelope, chunk or input breaks: its E-code, the rule, and where in the document."""

    code: str  # an E-code
    rule: str  # a stable rule id, e.g. "meta.confidence.range"
    path: PathT
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "path": dotted(self.path), "message": self.message}


def dotted(path: PathT) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "$"


def json_type(value: Any) -> str:
    """The JSON type of a parsed value as JSON Schema names it: a message says "got integer", not "got int"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    names = ((int, "integer"), (float, "number"), (str, "string"), ((list, tuple), "array"), (dict, "object"))
    return next((name for kinds, name in names if isinstance(value, kinds)), type(value).__name__)
