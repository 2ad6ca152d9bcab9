"""A new v2.2 module from a template: a name and a tier in, a module that passes `validate --v22` out.

Written in one FileTransaction, so a failure leaves nothing behind.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cogtui.core.authoring.migration.prompt_section import envelope_section
from cogtui.core.authoring.migration.schema_upgrade import OverflowSettings
from cogtui.core.files.transaction import FileTransaction
from cogtui.core.module.discovery import ModuleIndex, skipped_name_reason
from cogtui.core.module.standard_parts import V22_SCHEMA_URL, error_schema, extensions_schema, meta_schema
from cogtui.core.module.tiers import TIER_DEFAULTS, TIERS

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


class ScaffoldError(ValueError):
    pass


def check_name(name: str, parent: Path) -> str | None:
    """Why `name` cannot be a new module under `parent`, or None."""
    if not NAME.match(name):
        return "use 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit"
    skipped = skipped_name_reason(name)  # discovery's own rule: such a folder would never be found
    if skipped is not None:
        return f"{skipped}: discovery skips it, so neither cogtui nor cogn would find the module"
    if (parent / name).exists():
        return f"{parent / name} already exists"
    return None


def _manifest(name: str, tier: str) -> str:
    d = TIER_DEFAULTS[tier]
    overflow = (
        (
            f"overflow:\n  enabled: true\n  recoverable: true\n  max_items: {d['overflow.max_items']}\n"
            "  require_suggested_mapping: true\n"
        )
        if d["overflow.enabled"]
        else "overflow:\n  enabled: false\n"
    )
    return f"""# Cognitive Module Manifest v2.2 (created by cogtui)
name: {name}
version: 0.1.0
responsibility: TODO describe in one sentence what this module does

tier: {tier}  # exec | decision | exploration
schema_strictness: {d["schema_strictness"]}

excludes:
  - TODO list what this module must never do

policies:
  network: deny
  filesystem_write: deny
  side_effects: deny
  code_execution: deny

{overflow}
enums:
  strategy: {d["enums.strategy"]}

failure:
  contract: error_union
  partial_allowed: true

io:
  input: ./schema.json#/input
  data: ./schema.json#/data
  meta: ./schema.json#/meta
  error: ./schema.json#/error

tests:
  - tests/case1.input.json -> tests/case1.expected.json
"""


def _schema(tier: str) -> dict[str, Any]:
    d = TIER_DEFAULTS[tier]
    data: dict[str, Any] = {
        "type": "object",
        "required": ["result", "rationale"],
        "properties": {
            "result": {"type": "string", "description": "TODO the module's answer"},
            "rationale": {"type": "string", "description": "Detailed reasoning for audit and human review"},
        },
    }
    schema: dict[str, Any] = {
        "$schema": V22_SCHEMA_URL,
        "meta": meta_schema(),
        "input": {
            "type": "object",
            "required": ["text"],
            "properties": {"text": {"type": "string", "description": "TODO what the module works on"}},
        },
        "data": data,
        "error": error_schema(),
    }
    if d["overflow.enabled"]:
        data["properties"]["extensions"] = {"$ref": "#/$defs/extensions"}
        schema["$defs"] = {"extensions": extensions_schema(d["overflow.max_items"])}
    return schema


def _prompt(name: str, tier: str) -> str:
    d = TIER_DEFAULTS[tier]
    overflow = OverflowSettings(d["overflow.enabled"], d["overflow.max_items"], True)
    return f"""# {name}

TODO: tell the model what to do with the input, step by step.

## Input

The input is a JSON object with `text`.

{envelope_section(overflow)}"""


def scaffold_files(name: str, tier: str) -> dict[str, str]:
    """Relative path -> content of a new module."""
    if tier not in TIERS:
        raise ScaffoldError(f"tier must be one of {', '.join(TIERS)}")
    confidence = 0.95 if tier == "exec" else 0.8
    expected = {
        "ok": True,
        "meta": {"confidence": confidence, "risk": "low", "explain": "TODO a short summary of the expected answer."},
        "data": {"result": "TODO", "rationale": "TODO the reasoning you expect."},
    }
    return {
        "module.yaml": _manifest(name, tier),
        "prompt.md": _prompt(name, tier),
        "schema.json": json.dumps(_schema(tier), indent=2, ensure_ascii=False) + "\n",
        "tests/case1.input.json": json.dumps({"text": "TODO an example input"}, indent=2) + "\n",
        "tests/case1.expected.json": json.dumps(expected, indent=2) + "\n",
    }


def create_module(parent: Path, name: str, tier: str) -> Path:
    """Create `parent/name` (and `parent` itself when missing); raises ScaffoldError with a reason."""
    problem = check_name(name, parent)
    if problem:
        raise ScaffoldError(problem)
    files = scaffold_files(name, tier)
    folder = parent / name
    parent.mkdir(parents=True, exist_ok=True)
    tx = FileTransaction(parent)
    for rel, text in files.items():
        tx.write(f"{name}/{rel}", text.encode("utf-8"))
    tx.commit()
    return folder


def shadowing(name: str, parent: Path, index: ModuleIndex) -> list[str]:
    """What creating `parent/name` would do to the other modules of that name on the search path (PATH-5).

    The first module of a name on the search path wins: a new module under an earlier root shadows the others;
    one under a later root is itself shadowed, so `cogn run NAME` would still run the old one. [] when no other
    module has that name, or `parent` is not a root of the search path."""
    order = {root.path: i for i, root in enumerate(index.search_path.roots)}
    position = order.get(parent)
    if position is None:
        return []
    out = []
    for entry in index.entries:
        if entry.name != name or entry.path == parent / name:
            continue
        if order.get(entry.root.path, len(order)) < position:
            out.append(
                f"{entry.path} ({entry.level}) comes first on the search path: it would shadow the new module, "
                f"and `{name}` would still run it"
            )
        else:
            out.append(f"the new module would shadow {entry.path} ({entry.level}): `{name}` would run the new one")
    return out
