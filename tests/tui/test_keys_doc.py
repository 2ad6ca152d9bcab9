"""docs/keys.md is current: every registered key id is listed once, with exactly its default keys."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import cogtui.tui.screens
import cogtui.tui.widgets
from cogtui.tui.keys import KeySpec, all_specs

KEYS_DOC = Path(__file__).resolve().parents[2] / "docs" / "keys.md"
NAMES = {"question_mark": "?", "slash": "/", "space": "space"}


def shown_keys(spec: KeySpec) -> str:
    return ", ".join(f"`{NAMES.get(k, k)}`" for k in spec.keys.split(","))


def every_spec() -> list[KeySpec]:
    for package in (cogtui.tui.screens, cogtui.tui.widgets):  # screens register their keys when imported
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{info.name}")
    return all_specs()


def documented_keys() -> dict[str, str]:
    """Each key id of the guide's tables (one per screen) -> the keys its row shows."""
    rows: dict[str, str] = {}
    for line in KEYS_DOC.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| (.+?) \| .+ \| `([a-z_.]+)` \|$", line)
        if match:
            assert match.group(2) not in rows, f"{match.group(2)} is listed twice"
            rows[match.group(2)] = match.group(1)
    return rows


def keys_doc_problems() -> list[str]:
    """What docs/keys.md gets wrong about the registered keys (those of every screen, widget and declared screen)."""
    rows, specs = documented_keys(), every_spec()
    problems = [f"docs/keys.md lacks {s.id}" for s in specs if s.id not in rows]
    problems += [
        f"docs/keys.md shows {rows[s.id]} for {s.id}, whose keys are {shown_keys(s)}"
        for s in specs
        if s.id in rows and rows[s.id] != shown_keys(s)
    ]
    problems += [
        f"docs/keys.md lists {gone}, a key that no longer exists" for gone in set(rows) - {s.id for s in specs}
    ]
    return problems


def test_every_key_is_in_the_keys_guide_with_its_keys() -> None:
    assert not keys_doc_problems()
