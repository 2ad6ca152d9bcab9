"""The chunks of one run (SPEC-v2.5 §3.2): numbering, the streamed fields so far, and the closing chunks.

The emitter remembers every delta and snapshot it produced, so it can say what
had arrived (partial_data) and, at the end, send a snapshot for any field whose
final value differs from what was streamed (repairs, retries): deltas always
add up to the final envelope.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.rules.chunk_rules import get_dotted
from cogtui.core.run.run_types import RunEvent


class ChunkEmitter:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.seq = 0
        self.deltas: dict[str, list[str]] = {}  # parts, joined on demand: appending to a str would be quadratic
        self.values: dict[str, Any] = {}

    def _seq(self) -> int:
        self.seq += 1
        return self.seq

    def delta(self, fld: str, text: str) -> RunEvent:
        self.deltas.setdefault(fld, []).append(text)
        return RunEvent({"chunk": {"seq": self._seq(), "type": "delta", "field": fld, "delta": text}})

    def snapshot(self, fld: str, value: Any) -> RunEvent:
        self.values[fld] = value
        self.deltas.pop(fld, None)
        return RunEvent({"chunk": {"seq": self._seq(), "type": "snapshot", "field": fld, "data": value}})

    @staticmethod
    def progress(percent: float, stage: str, message: str) -> RunEvent:
        return RunEvent({"progress": {"percent": round(percent, 1), "stage": stage, "message": message}})

    def partial_data(self) -> dict[str, Any] | None:
        data: dict[str, Any] = {}
        joined = {fld: "".join(parts) for fld, parts in self.deltas.items()}
        for fld, value in [*self.values.items(), *joined.items()]:
            if fld.startswith("data."):
                data[fld[5:]] = value
        return data or None

    def reset(self) -> list[RunEvent]:
        """Forget a discarded answer: every streamed field is snapshot back to empty."""
        out = [self.snapshot(fld, "") for fld in list(self.deltas)]
        self.values.clear()
        return out

    def reconcile(self, envelope: dict[str, Any]) -> list[RunEvent]:
        """Snapshots for streamed fields whose final value differs from what was streamed."""
        if envelope.get("ok") is not True:
            return []
        out = []
        for fld, parts in list(self.deltas.items()):
            final = get_dotted(envelope, fld)
            if final != "".join(parts):
                out.append(self.snapshot(fld, final))
        for fld, value in list(self.values.items()):
            final = get_dotted(envelope, fld)
            if final != value:
                out.append(self.snapshot(fld, final))
        return out

    def terminal(self, envelope: dict[str, Any], usage: dict[str, int] | None) -> RunEvent:
        """The final chunk of a success, or the error chunk of a failure."""
        if envelope.get("ok") is True:
            out: dict[str, Any] = {"final": True, "meta": envelope["meta"], "data": envelope["data"]}
            if usage:
                out["usage"] = usage
            return RunEvent(out)
        chunk = {
            "ok": False,
            "streaming": True,
            "session_id": self.session_id,
            "meta": envelope["meta"],
            "error": envelope["error"],
        }
        if envelope.get("partial_data"):
            chunk["partial_data"] = envelope["partial_data"]
        return RunEvent(chunk)


class ChunkShaper:
    """`response.chunk_type` and `response.buffer_size` (SPEC-v2.5 §2.2) applied to the streamed text.

    `delta` sends each new piece; `snapshot` sends the field's whole text so far
    instead. `buffer_size` holds a field's text back until that many UTF-8 bytes
    have gathered (or the field, the value or the answer ends), then sends them
    as one chunk.
    """

    def __init__(self, emitter: ChunkEmitter, chunk_type: str = "delta", buffer_size: int | None = None) -> None:
        self.emitter = emitter
        self.snapshots = chunk_type == "snapshot"
        self.buffer_size = buffer_size if isinstance(buffer_size, int) and buffer_size > 0 else 0
        self.pending: dict[str, list[str]] = {}
        self.pending_bytes: dict[str, int] = {}
        self.text: dict[str, str] = {}  # per field, everything sent so far (snapshot mode)

    def feed(self, kind: str, fld: str, payload: Any) -> list[RunEvent]:
        if kind != "delta":
            return [*self.flush(fld), self.emitter.snapshot(fld, payload)]
        out = [ev for other in list(self.pending) if other != fld for ev in self.flush(other)]
        self.pending.setdefault(fld, []).append(payload)
        self.pending_bytes[fld] = self.pending_bytes.get(fld, 0) + len(payload.encode("utf-8", "surrogatepass"))
        if self.pending_bytes[fld] >= self.buffer_size:
            out += self.flush(fld)
        return out

    def flush(self, only: str | None = None) -> list[RunEvent]:
        out = []
        for fld in [only] if only is not None else list(self.pending):
            parts = self.pending.pop(fld, None)
            self.pending_bytes.pop(fld, None)
            if not parts:
                continue
            piece = "".join(parts)
            if self.snapshots:
                self.text[fld] = self.text.get(fld, "") + piece
                out.append(self.emitter.snapshot(fld, self.text[fld]))
            else:
                out.append(self.emitter.delta(fld, piece))
        return out

    def reset(self) -> None:
        self.pending.clear()
        self.pending_bytes.clear()
        self.text.clear()
