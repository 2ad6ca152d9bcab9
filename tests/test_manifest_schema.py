"""The manifest's JSON Schemas (`cogn schema manifest`, docs/schemas/): made from the field data, valid Draft-07,
accepting every bundled and real-world manifest validate accepts and refusing a broken one (issue 33 §2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cogtui.core.assist.fields import FIELDS, known_names
from cogtui.core.assist.manifest_schema import manifest_schema
from cogtui.core.module.loader import load_module
from cogtui.core.module.model import ModuleFormat

ROOT = Path(__file__).resolve().parents[1]
MODULE_FOLDERS = sorted(
    p for base in (ROOT / "modules", ROOT / "tests" / "realworld") for p in base.iterdir() if p.is_dir()
)
SCHEMA_OF = {ModuleFormat.V2_2: "v2.2", ModuleFormat.V2_5: "v2.5", ModuleFormat.V1: "v1", ModuleFormat.V2_1: "v2.2"}


def errors(fmt: str, manifest: Any) -> list[str]:
    return sorted(e.message for e in jsonschema.Draft7Validator(manifest_schema(fmt)).iter_errors(manifest))


@pytest.mark.parametrize("fmt", ["v2.2", "v2.5", "v1"])
def test_each_schema_is_valid_draft_07_and_committed_as_printed(fmt: str) -> None:
    schema = manifest_schema(fmt)
    jsonschema.Draft7Validator.check_schema(schema)
    printed = subprocess.run(
        [sys.executable, "-m", "cogtui.cli", "schema", "manifest", "--format", fmt],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert json.loads(printed) == schema
    committed = (ROOT / "docs" / "schemas" / f"manifest-{fmt}.json").read_text(encoding="utf-8")
    assert committed == printed, f"docs/schemas/manifest-{fmt}.json is stale: cogn schema manifest --format {fmt} > it"


def test_the_fields_are_the_ones_validate_knows() -> None:
    top, sections = known_names()
    assert {f.path for f in FIELDS if "." not in f.path} == top
    for section, keys in sections.items():
        assert {f.name for f in FIELDS if f.section == section} == keys, section
    described = [f.path for f in FIELDS if f.meaning()]
    assert len(described) > 40  # the docs' words reach the schema


@pytest.mark.parametrize("folder", MODULE_FOLDERS, ids=lambda p: p.name)
def test_every_bundled_and_realworld_manifest_is_accepted(folder: Path) -> None:
    module = load_module(folder)
    fmt = SCHEMA_OF.get(module.format)
    if fmt is None:  # v0 has no manifest to check (constraints.yaml and the six files)
        assert module.format is ModuleFormat.V0
        return
    found = errors(fmt, module.manifest)
    if module.format is ModuleFormat.V2_1:  # v2.1 is v2.2 without its tier: that is all the v2.2 schema misses
        assert found == ["'tier' is a required property"]
    else:
        assert found == []


def test_a_broken_manifest_is_refused_with_each_problem_named() -> None:
    good = load_module(ROOT / "modules" / "code-reviewer").manifest
    broken = {**good, "tier": "fast", "version": 1.0, "overflow": {"max_items": -1}, "enums": {"strategy": "lax"}}
    broken.pop("excludes")
    found = errors("v2.2", broken)
    assert "'excludes' is a required property" in found
    assert any("'fast' is not one of" in e for e in found)
    assert any("1.0 is not of type 'string'" in e for e in found)
    assert any("-1 is less than the minimum of 0" in e for e in found)
    assert any("'lax' is not one of" in e for e in found)
    assert errors("v2.5", {**good, "response": {"mode": "sometimes"}})
    assert errors("v2.2", good) == []


def test_unknown_fields_stay_allowed_as_validate_only_notes_them() -> None:
    good = load_module(ROOT / "modules" / "code-reviewer").manifest
    assert errors("v2.2", {**good, "owner": "team-a", "overflow": {"enabled": True, "colour": "red"}}) == []
