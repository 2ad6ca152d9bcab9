"""What the docs say of each diagnostic code and manifest field, as the package ships it (reference.json, written
from docs/diagnostics.md and docs/manifest-fields.md by `python -m tools.assist_reference`; a test keeps it in
step with them). Read once, on the first question."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

from cogtui.core.diagnostics import CATALOGUE


class CodeHelp(NamedTuple):
    code: str
    severity: str
    summary: str  # the catalogue's one line
    meaning: str  # the docs' row: the summary and what it means
    section: str  # the docs' section heading ("Manifest", "Schemas"...)
    anchor: str  # its anchor in docs/diagnostics.md


class FieldHelp(NamedTuple):
    path: str  # `overflow.max_items`
    what: str  # the docs' "What it does"
    section: str
    row: str  # the docs' first cell (the fields the row is about)


@cache
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(resources.files(__package__).joinpath("reference.json").read_text("utf-8"))
    return data


def code_help(code: str) -> CodeHelp | None:
    info = CATALOGUE.get(code)
    row = reference()["codes"].get(code)
    if info is None or row is None:
        return None
    return CodeHelp(code, row["severity"], info.summary, row["meaning"], row["section"], row["anchor"])


def field_help(path: str) -> FieldHelp | None:
    row = reference()["fields"].get(path)
    return None if row is None else FieldHelp(path, row["what"], row["section"], row["row"])
