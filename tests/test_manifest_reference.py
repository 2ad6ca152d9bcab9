"""docs/manifest-fields.md, the manifest field reference, is complete and points at tests that exist.

Every top-level field `cogn validate` knows and every key the spec defines inside a section has a row;
every "Tested in" cell names test files (and test functions) that are really there.
"""

from __future__ import annotations

import re
from pathlib import Path

from cogtui.core.rules.manifest_fields import SECTION_KEYS
from cogtui.core.rules.validate_module import KNOWN_CONSTRAINTS, KNOWN_FIELDS

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "manifest-fields.md").read_text(encoding="utf-8")
ROWS = [line for line in DOC.splitlines() if line.startswith("| `")]


def _fields_named() -> set[str]:
    named: set[str] = set()
    for row in ROWS:
        first = row.split("|")[1]
        for name in re.findall(r"`([^`]+)`", first):
            named.add(name)
            section, dot, _ = name.partition(".")
            if dot:  # a row for `section.key` (or `section.*`) covers the section itself
                named.add(section)
    return named


def test_every_manifest_field_has_a_row() -> None:
    named = _fields_named()
    missing = sorted(f for f in KNOWN_FIELDS if f not in named and f"{f}.*" not in named)
    assert missing == []
    keys = sorted(
        f"{section}.{key}"
        for section, ks in SECTION_KEYS.items()
        for key in ks
        if f"{section}.{key}" not in named and f"{section}.*" not in named
    )
    assert keys == []
    assert "constraints.*" in named and all(c in DOC for c in ("require_rationale", "no_inventing_data"))
    assert KNOWN_CONSTRAINTS  # the v0/v1 constraints row covers the set


def test_every_tested_in_reference_exists() -> None:
    """`test_x.py`, `test_x.py::test_y`, and `::test_z` (a test of the file named before it in the cell)."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py")}
    checked, missing = 0, []
    for row in ROWS:
        last_file = ""
        for file, func in re.findall(r"`(test_[a-z0-9_]+\.py)?(?:::(test_[a-z0-9_]+))?`", row.split("|")[-2]):
            last_file = file or last_file
            if not last_file:
                continue
            checked += 1
            if last_file not in sources or (func and f"def {func}(" not in sources[last_file]):
                missing.append(f"{last_file}::{func}" if func else last_file)
    assert checked > 40  # the pattern really reads the table
    assert missing == []
