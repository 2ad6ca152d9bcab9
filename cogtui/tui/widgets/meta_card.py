"""The control plane at a glance: confidence as a gauge, a risk badge, explain.

`risk` and `explain` are model-written, so they are inserted into `Content`
as `$variables` (shown literally, never parsed as markup).
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from ..shown import assemble, block, markup, styled

RISK_STYLE = {"none": "$success", "low": "$success", "medium": "$warning", "high": "$error"}
GAUGE = 12


def gauge(confidence: Any) -> Content:
    if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
        return styled("░" * GAUGE + " …", "$text-muted")
    filled = max(0, min(GAUGE, round(confidence * GAUGE)))
    color = "$success" if confidence >= 0.9 else "$warning" if confidence >= 0.5 else "$error"
    return assemble(("█" * filled, color), ("░" * (GAUGE - filled), "$text-muted"), f" {confidence:.2f}")


def meta_content(meta: dict[str, Any], instead: str = "") -> Content:
    """Confidence, risk and explain; `instead` (e.g. "cancelled") stands where confidence and risk would, for a
    run that has none of its own."""
    explain = meta.get("explain")
    if instead:
        return Content("\n").join([styled(instead, "$warning"), block(explain) if explain else Content("")])
    risk = meta.get("risk")
    if risk:
        style = RISK_STYLE.get(str(risk), "$text-muted")
        badge = markup(f"[b {style} reverse] $risk [/]", risk=str(risk).upper())
    else:
        badge = styled("…", "$text-muted")
    lines = [
        Content("confidence ") + gauge(meta.get("confidence")),
        Content("risk       ") + badge,
        block(explain) if explain else styled("no explain yet", "$text-muted"),
    ]
    return Content("\n").join(lines)


class MetaCard(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.meta: dict[str, Any] = {}
        self.instead = ""
        self.show_meta({})

    def show_meta(self, meta: dict[str, Any], instead: str = "") -> None:
        self.meta, self.instead = meta, instead
        self.update(meta_content(meta, instead))
