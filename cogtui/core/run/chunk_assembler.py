"""Rebuild a run's state from its v2.5 chunks, as they arrive (for the TUI, or any other client).

`feed(chunk)` returns what changed; string fields keep their deltas as parts
(joining is on demand), so a long rationale costs O(new text) per chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from cogtui.core.files.json_pointer import object_at
from cogtui.core.rules.chunk_rules import chunk_kind

ChangeKind = Literal["session", "meta", "text", "value", "progress", "heartbeat", "final", "error"]


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    field: str | None = None  # dotted, e.g. "data.rationale" or "meta.confidence"
    value: Any = None  # the new value ("value"), the appended text ("text"), or the chunk
    reset: bool = False  # a snapshot replaced a streamed string


@dataclass
class StreamAssembler:
    session_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)  # non-string fields, by dotted name
    parts: dict[str, list[str]] = field(default_factory=dict)  # streamed string fields
    progress: dict[str, Any] | None = None
    envelope: dict[str, Any] | None = None  # the final (ok) or error envelope, once the stream ends
    chunks: int = 0
    heartbeats: int = 0

    def text(self, fld: str) -> str:
        return "".join(self.parts.get(fld, ()))

    def data(self) -> dict[str, Any]:
        """The data so far: snapshots and joined deltas under `data.`."""
        out: dict[str, Any] = {}
        for fld, value in self.values.items():
            if fld.startswith("data."):
                out[fld[5:]] = value
        for fld in self.parts:
            if fld.startswith("data."):
                out[fld[5:]] = self.text(fld)
        return out

    def feed(self, chunk: dict[str, Any]) -> list[Change]:
        self.chunks += 1
        kind = chunk_kind(chunk)
        if kind == "meta":
            self.session_id = chunk.get("session_id")
            self.meta.update({k: v for k, v in (chunk.get("meta") or {}).items() if v is not None})
            return [Change("session", value=self.session_id), Change("meta", value=dict(self.meta))]
        if kind == "delta":
            inner = chunk["chunk"]
            fld, text = inner.get("field"), inner.get("delta") or ""
            if not isinstance(fld, str):
                return []
            self.parts.setdefault(fld, []).append(text)
            if fld.startswith("meta."):
                self.meta[fld[5:]] = self.text(fld)
                return [Change("text", fld, text), Change("meta", value=dict(self.meta))]
            return [Change("text", fld, text)]
        if kind == "snapshot":
            inner = chunk["chunk"]
            fld, value = inner.get("field"), inner.get("data")
            if not isinstance(fld, str):  # the whole data object
                self.parts = {k: v for k, v in self.parts.items() if not k.startswith("data.")}
                self.values = {k: v for k, v in self.values.items() if not k.startswith("data.")}
                for key, sub in (value or {}).items() if isinstance(value, dict) else ():
                    self.values[f"data.{key}"] = sub
                return [Change("value", "data", value, reset=True)]
            was_text = fld in self.parts
            if isinstance(value, str):
                self.parts[fld] = [value]
                self.values.pop(fld, None)
            else:
                self.parts.pop(fld, None)
                self.values[fld] = value
            changes = [Change("value", fld, value, reset=was_text or isinstance(value, str))]
            if fld.startswith("meta."):
                self.meta[fld[5:]] = value
                changes.append(Change("meta", value=dict(self.meta)))
            return changes
        if kind == "progress":
            self.progress = dict(chunk.get("progress") or {})
            return [Change("progress", value=self.progress)]
        if kind == "heartbeat":
            self.heartbeats += 1
            return [Change("heartbeat")]
        if kind == "final":
            self.meta = dict(chunk.get("meta") or {})
            self.envelope = {"ok": True, "meta": chunk.get("meta"), "data": chunk.get("data")}
            data = object_at(chunk, "data")
            self.values = {
                **{k: v for k, v in self.values.items() if not k.startswith("data.")},
                **{f"data.{k}": v for k, v in data.items() if not isinstance(v, str)},
            }
            self.parts = {
                **{k: v for k, v in self.parts.items() if not k.startswith("data.")},
                **{f"data.{k}": [v] for k, v in data.items() if isinstance(v, str)},
            }
            return [Change("meta", value=dict(self.meta)), Change("final", value=chunk)]
        if kind == "error":
            env = {"ok": False, "meta": chunk.get("meta"), "error": chunk.get("error")}
            if chunk.get("partial_data") is not None:
                env["partial_data"] = chunk["partial_data"]
            self.envelope = env
            if isinstance(chunk.get("meta"), dict):
                self.meta = dict(chunk["meta"])
            return [Change("meta", value=dict(self.meta)), Change("error", value=chunk)]
        return []
