"""A broken envelope rule, named by its E-code (error-codes.md) and a stable rule id, with where it broke."""

from __future__ import annotations

from typing import Any

from cogtui.core.diagnostics import one_each
from cogtui.core.records import field, record

PathT = tuple[str | int, ...]


@record
class Violation:
    """A rule an envelope, chunk or input breaks: its E-code, the rule, and where in the document."""

    code: str  # an E-code
    rule: str  # a stable rule id, e.g. "meta.confidence.range"
    path: PathT
    message: str
    # The fact it states, for a schema's finding (whose rule id does not say its kind); see `violation_fact`.
    fact: str = field(default="", repr=False, compare=False)

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


# What a finding says about a value, in one word, from a rule id's last part or a schema keyword: two findings of
# one kind about one field state one fact (CODE-6). A kind not listed is a fact no other check states.
_KINDS = {
    "required": "missing",
    **dict.fromkeys(("type", "object", "array"), "type"),
    **dict.fromkeys(("enum", "const"), "enum"),
    **dict.fromkeys(("range", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"), "range"),
    **dict.fromkeys(("length", "minLength", "maxLength"), "length"),
}
# E-codes that judge a narrower thing than the ones after them: a value outside a strict enum (E3005) is a schema
# failure (E3001) too.
NARROWER_CODES = ("E3005", "E3001")


def fact(kind_of: str, path: PathT) -> str:
    """The fact a finding states (`missing meta.confidence`, `enum meta.risk`): the kind of finding (`kind_of`, a
    rule id's last part or a schema keyword) about the field at `path`; empty for a kind no other check shares."""
    kind = _KINDS.get(kind_of, "")
    return f"{kind} {dotted(path)}" if kind else ""


def schema_error_fact(err: Any, at: PathT = ()) -> str:
    """The fact a schema error states about the value at `at` + its path: a `required` error is about the missing
    property, one level below where the engine places it."""
    if err.keyword == "required" and err.missing is not None:
        return fact("required", (*at, *err.path, err.missing))
    return fact(err.keyword, (*at, *err.path))


def violation_fact(v: Violation) -> str:
    return v.fact or fact(v.rule.rsplit(".", 1)[-1], v.path)


def one_violation_per_fact(items: list[Violation]) -> list[Violation]:
    """`items` with each fact said once: the narrowest E-code of those that state it, else the first found (CODE-6)."""

    def rank(v: Violation) -> tuple[int, ...]:
        return (NARROWER_CODES.index(v.code) if v.code in NARROWER_CODES else len(NARROWER_CODES),)

    return one_each(items, lambda v: violation_fact(v) or None, rank)
