"""The control plane at a glance: confidence as a gauge, a risk badge, explain."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.widgets import Static

RISK_STYLE = {"none": "$success", "low": "$success", "medium": "$warning", "high": "$error"}
GAUGE = 12


def gauge(confidence: Any) -> str:
    if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
        return "[$text-muted]" + "░" * GAUGE + " …[/]"
    filled = max(0, min(GAUGE, round(confidence * GAUGE)))
    color = "$success" if confidence >= 0.9 else "$warning" if confidence >= 0.5 else "$error"
    return f"[{color}]{'█' * filled}[/][$text-muted]{'░' * (GAUGE - filled)}[/] {confidence:.2f}"


class MetaCard(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.meta: dict[str, Any] = {}
        self.show_meta({})

    def show_meta(self, meta: dict[str, Any]) -> None:
        self.meta = meta
        risk = meta.get("risk")
        badge = f"[b {RISK_STYLE.get(str(risk), '$text-muted')} reverse] {escape(str(risk).upper())} [/]" if risk else "[$text-muted]…[/]"
        explain = meta.get("explain")
        lines = [
            f"confidence {gauge(meta.get('confidence'))}",
            f"risk       {badge}",
            escape(str(explain)) if explain else "[$text-muted]no explain yet[/]",
        ]
        self.update("\n".join(lines))
