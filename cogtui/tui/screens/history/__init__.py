"""The history screen: a module's past runs, re-run and compared (its screen: screen.py)."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.records import record

from ...places import Place, ScreenSpec


@record
class RunHistory(Place):
    path: Path


SPEC = ScreenSpec(
    "history",
    RunHistory,
    "cogtui.tui.screens.history.screen:HistoryScreen",
    opener="cogtui.tui.navigation:history",  # one history screen per module, or a new one over screens holding work (TUI-2)
    order=60,
    for_module=lambda path, _name: RunHistory(path),
    key="h",
    key_label="History",
    key_doc="history of the module",
    scene=lambda root: RunHistory(root / "code-reviewer"),
    keys_heading="History",
    palette_module=("History of {name}", "past runs of the module"),
)
