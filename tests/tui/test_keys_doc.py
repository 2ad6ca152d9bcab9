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


def test_every_key_is_in_the_keys_guide_with_its_keys() -> None:
    rows = documented_keys()
    specs = every_spec()
    missing = [s.id for s in specs if s.id not in rows]
    assert not missing, f"docs/keys.md lacks {missing}"
    wrong = {s.id: (rows[s.id], shown_keys(s)) for s in specs if rows[s.id] != shown_keys(s)}
    assert not wrong, f"docs/keys.md shows other keys than the defaults (docs/keys.md, actual): {wrong}"
    stale = set(rows) - {s.id for s in specs}
    assert not stale, f"docs/keys.md lists keys that no longer exist: {stale}"
