"""The golden tests: every golden of a module run, accepted as new goldens (its screen: screen.py)."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.records import record

from ...places import Place, ScreenSpec


@record
class GoldenTests(Place):
    path: Path


SPEC = ScreenSpec(
    "goldens",
    GoldenTests,
    "cogtui.tui.screens.goldens.screen:GoldensScreen",
    opener="cogtui.tui.navigation:goldens",  # one golden tests screen per module (TUI-2)
    order=40,
    for_module=lambda path, _name: GoldenTests(path),
    key="g",
    key_label="Golden tests",
    key_doc="golden tests of the module",
    scene=lambda root: GoldenTests(root / "code-reviewer"),
    keys_heading="Golden tests",
    palette_module=("Golden tests of {name}", "run every golden test"),
)
