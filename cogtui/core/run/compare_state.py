"""Two targets side by side on the run screen: one input run on both at once, the envelopes field by field.

`ctrl+r` with a second target set (the run screen's "compare with") runs the same input on both concurrently;
the tab shows each side's state (running, then its outcome, latency and cost) and every field of the two
envelopes in one table, the fields that differ marked (TUI-19). The runtime's own meta (trace_id, latency_ms,
model, warnings) is left out: it differs on every run and says nothing of the answers. Each side is final
once its result is in, and a late result of a side changes nothing; each run is recorded in history as any
run is (the screen does it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cogtui.core.run.manifest_policy import without_runtime_meta
from cogtui.core.run.run_state import Phase

MAX_ROWS = 400  # the table stops there (an answer of thousands of fields is read in full in its own run)
MAX_TEXT = 40  # a value longer than this is cut in its cell (both sides fit 120 columns)


@dataclass
class Side:
    """One target's run."""

    label: str  # Target.label
    phase: Phase = Phase.STARTING
    envelope: dict[str, Any] | None = None
    latency_ms: float | None = None
    cost_usd: float | None = None  # None: no price entry for the model (or no usage reported)
    error: str = ""  # "E3001 message" when the run failed

    @property
    def final(self) -> bool:
        return self.phase in (Phase.DONE, Phase.FAILED, Phase.CANCELLED)

    def line(self) -> str:
        """The side's head line: its target, outcome, latency and cost."""
        if not self.final:
            return f"{self.label} · running…"
        outcome = {Phase.DONE: "ok", Phase.CANCELLED: "cancelled"}.get(self.phase, f"✗ {self.error}".strip())
        latency = "-" if self.latency_ms is None else f"{self.latency_ms:,.0f} ms"
        cost = "cost ?" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        return f"{self.label} · {outcome} · {latency} · {cost}"


@dataclass(frozen=True)
class Row:
    """One field of the envelopes: its path, each side's value as text ("" when absent), and whether they differ."""

    path: str
    left: str
    right: str
    differs: bool


@dataclass
class CompareState:
    sides: list[Side] = field(default_factory=list)

    @classmethod
    def of(cls, left: str, right: str) -> CompareState:
        return cls([Side(left), Side(right)])

    @property
    def running(self) -> bool:
        return not all(s.final for s in self.sides)

    def finished(
        self, index: int, envelope: dict[str, Any], interrupted: bool, latency_ms: float | None, cost: float | None
    ) -> bool:
        """A side's result; False when that side is final already (nothing changes)."""
        side = self.sides[index]
        if side.final:
            return False
        ok = envelope.get("ok") is True
        side.phase = Phase.CANCELLED if interrupted else Phase.DONE if ok else Phase.FAILED
        side.envelope, side.latency_ms, side.cost_usd = envelope, latency_ms, cost
        err = envelope.get("error")
        if isinstance(err, dict) and not ok:
            side.error = f"{err.get('code')} {str(err.get('message', ''))[:80]}".strip()
        return True

    def cancel(self) -> None:
        """Cancelling: the sides not finished show as cancelled once their results come in."""
        for side in self.sides:
            if not side.final:
                side.phase = Phase.CANCELLED

    def rows(self) -> list[Row]:
        """Every field either envelope has (runtime meta left out), in the left's order then the right's."""
        left = _leaves(_answer(self.sides[0].envelope))
        right = _leaves(_answer(self.sides[1].envelope))
        paths = list(dict.fromkeys([*left, *right]))[:MAX_ROWS]
        return [
            Row(
                path,
                _shown(left.get(path, _ABSENT)),
                _shown(right.get(path, _ABSENT)),
                left.get(path, _ABSENT) != right.get(path, _ABSENT),
            )
            for path in paths
        ]

    def differing(self) -> list[str]:
        return [row.path for row in self.rows() if row.differs]

    def summary(self) -> str:
        if self.running:
            return "running on both targets…"
        if any(s.envelope is None for s in self.sides):
            return "a side has no envelope"
        n = len(self.differing())
        if not n:
            return "the envelopes agree field for field"
        return "1 field differs (marked ≠)" if n == 1 else f"{n} fields differ (marked ≠)"


class _Absent:
    def __repr__(self) -> str:
        return "absent"


_ABSENT = _Absent()


def _answer(envelope: dict[str, Any] | None) -> dict[str, Any]:
    return without_runtime_meta(envelope) if isinstance(envelope, dict) else {}


def _leaves(value: Any, path: str = "", out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Dotted path -> value for every leaf (an empty object or list is a leaf), bounded by MAX_ROWS."""
    out = {} if out is None else out
    if len(out) >= MAX_ROWS:
        return out
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _leaves(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            _leaves(item, f"{path}[{index}]", out)
    elif path:
        out[path] = value
    return out


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


__all__ = ["CompareState", "Row", "Side"]
