"""Reading what `cogn COMMAND --json` prints: the one versioned document of docs/cli.md, checked against its JSON
Schema (docs/cli-output.schema.json) before a test looks inside it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "cli-output.schema.json"


@cache
def validator() -> Any:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def document(text: str, command: str) -> dict[str, Any]:
    """The document `cogn COMMAND --json` printed, checked against the schema and against the command."""
    doc = json.loads(text)
    errors = sorted(validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    assert doc["command"] == command, doc["command"]
    return doc


def envelope(text: str) -> dict[str, Any]:
    """`cogn run --json`: the run's envelope."""
    [entry] = document(text, "run")["modules"]
    return entry["envelope"]


def report(text: str) -> dict[str, Any]:
    """`cogn validate NAME --json`: the one module's report."""
    [entry] = document(text, "validate")["modules"]
    return entry


def checked(text: str) -> dict[str, Any]:
    """`cogn check --json`: the document's verdict."""
    [entry] = document(text, "check")["items"]
    return entry
