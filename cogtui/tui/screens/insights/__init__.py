"""The insights dashboard: overflow insights and custom enum values from the run history (its screen: screen.py)."""

from __future__ import annotations

from cogtui.core.records import record

from ...places import Place, ScreenSpec


@record
class Insights(Place):
    module: str | None  # None: every module


SPEC = ScreenSpec(
    "insights",
    Insights,
    "cogtui.tui.screens.insights.screen:InsightsScreen",
    opener="cogtui.tui.navigation:insights",  # one dashboard per module (or for all)
    order=70,
    for_module=lambda _path, name: Insights(name),
    anywhere=lambda _paths: Insights(None),
    key="i",
    key_label="Insights",
    key_doc="insights dashboard",
    scene=lambda _root: Insights(None),
    keys_heading="Insights",
    key_groups=("insights", "insight_row"),
    main_key=True,
    key_on_module=False,
    palette_module=("Insights of {name}", "insights for this module"),
    palette_anywhere=("Insights dashboard", "overflow insights and custom enum values from run history"),
)
