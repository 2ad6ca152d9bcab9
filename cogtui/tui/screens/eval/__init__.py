"""The eval screen: a module's goldens against each target, a live matrix (its screen: screen.py)."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.records import record

from ...places import Place, ScreenSpec


@record
class Evaluation(Place):
    path: Path


SPEC = ScreenSpec(
    "eval",
    Evaluation,
    "cogtui.tui.screens.eval.screen:EvalScreen",
    opener="cogtui.tui.navigation:evaluate",  # one eval screen per module (TUI-2)
    order=50,
    for_module=lambda path, _name: Evaluation(path),
    key="e",
    key_label="Eval",
    key_doc="the goldens against each target, a live matrix, pass-rate sparkline",
    scene=lambda root: Evaluation(root / "product-ideas"),
    keys_heading="Eval",
    key_groups=("eval", "eval_options"),
    palette_module=("Eval of {name}", "goldens against each target"),
)
