"""Rules for v2.5 stream chunks (SPEC-v2.5 §3.2.1-3.2.3), one at a time and as a sequence.

Chunk kinds: meta (first), delta, snapshot, progress, heartbeat (`{}`),
final, error. Only delta and snapshot chunks carry `seq`; see
docs/spec-decisions.md for this and the other stream decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from cogtui.core.module.schema_types import excerpt
from cogtui.core.rules.envelope_rules import PathT, Violation, check_envelope, check_meta, dotted

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

CHUNK_KINDS = ("meta", "delta", "snapshot", "progress", "heartbeat", "final", "error")


def chunk_kind(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return None
    if doc == {}:
        return "heartbeat"
    if doc.get("final") is True:
        return "final"
    if doc.get("ok") is False and ("streaming" in doc or "session_id" in doc):
        return "error"
    if doc.get("streaming") is True:
        return "meta"
    if "chunk" in doc:
        inner = doc["chunk"]
        kind = inner.get("type") if isinstance(inner, dict) else None
        return kind if kind in ("delta", "snapshot") else "delta"
    if "progress" in doc:
        return "progress"
    return None


def looks_like_chunk(doc: Any) -> bool:
    return isinstance(doc, dict) and (
        doc == {} or any(k in doc for k in ("chunk", "progress", "final", "streaming", "session_id"))
    )


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def check_chunk(doc: Any, module: Module | None = None, path: PathT = ()) -> list[Violation]:
    kind = chunk_kind(doc)
    if kind is None:
        return [
            Violation(
                "E3001", "chunk.kind", path, "not a stream chunk (meta, delta, snapshot, progress, final, error or {})"
            )
        ]
    assert isinstance(doc, dict)
    out: list[Violation] = []

    def allow(*keys: str) -> None:
        for key in doc:
            if key not in keys:
                out.append(
                    Violation(
                        "E3001",
                        f"chunk.{kind}.unknown",
                        (*path, key),
                        f"unexpected field {excerpt(key)} in a {kind} chunk",
                    )
                )

    if kind == "meta":
        allow("ok", "streaming", "session_id", "meta", "module", "version", "provider")
        if doc.get("ok") is not True:
            out.append(Violation("E3001", "chunk.meta.ok", (*path, "ok"), "the meta chunk needs ok: true"))
        if not isinstance(doc.get("session_id"), str) or not doc.get("session_id"):
            out.append(
                Violation("E3001", "chunk.meta.session_id", (*path, "session_id"), "the meta chunk needs a session_id")
            )
        if "meta" not in doc:
            out.append(Violation("E3001", "chunk.meta.meta", (*path, "meta"), "the meta chunk needs meta"))
        else:
            out.extend(check_meta(doc["meta"], (*path, "meta"), allow_null_confidence=True, require_all=False))
    elif kind in ("delta", "snapshot"):
        allow("chunk")
        out.extend(_check_inner(doc["chunk"], kind, (*path, "chunk")))
    elif kind == "progress":
        allow("progress", "session_id")
        prog = doc["progress"]
        if not isinstance(prog, dict):
            out.append(Violation("E3001", "chunk.progress.object", (*path, "progress"), "progress must be an object"))
        else:
            pct = prog.get("percent")
            if not isinstance(pct, (int, float)) or isinstance(pct, bool) or not 0 <= pct <= 100:
                out.append(
                    Violation(
                        "E3001",
                        "chunk.progress.percent",
                        (*path, "progress", "percent"),
                        "progress.percent must be a number from 0 to 100",
                    )
                )
            for key in ("stage", "message"):
                if key in prog and not isinstance(prog[key], str):
                    out.append(
                        Violation(
                            "E3001",
                            f"chunk.progress.{key}",
                            (*path, "progress", key),
                            f"progress.{key} must be a string",
                        )
                    )
    elif kind == "final":
        allow("final", "ok", "meta", "data", "usage", "session_id")
        out.extend(check_envelope(final_to_envelope(doc), module, path))
        out.extend(_check_usage(doc.get("usage"), (*path, "usage")))
    elif kind == "error":
        allow("ok", "streaming", "session_id", "meta", "error", "partial_data")
        if not isinstance(doc.get("session_id"), str) or not doc.get("session_id"):
            out.append(
                Violation(
                    "E3001", "chunk.error.session_id", (*path, "session_id"), "the error chunk needs a session_id"
                )
            )
        err = doc.get("error")
        if not isinstance(err, dict):
            out.append(
                Violation("E3001", "chunk.error.error", (*path, "error"), "the error chunk needs an error object")
            )
        else:
            for key in ("code", "message"):
                if not isinstance(err.get(key), str):
                    out.append(
                        Violation("E3001", f"chunk.error.{key}", (*path, "error", key), f"error.{key} must be a string")
                    )
        if "meta" in doc:
            out.extend(check_meta(doc["meta"], (*path, "meta")))
        if doc.get("partial_data") is not None and not isinstance(doc.get("partial_data"), dict):
            out.append(
                Violation(
                    "E3001", "chunk.error.partial_data", (*path, "partial_data"), "partial_data must be an object"
                )
            )
    return out


def _check_inner(inner: Any, kind: str, path: PathT) -> list[Violation]:
    if not isinstance(inner, dict):
        return [Violation("E3001", "chunk.object", path, "chunk must be an object")]
    out: list[Violation] = []
    seq = inner.get("seq")
    if not _is_int(seq) or seq < 1:
        out.append(Violation("E3001", "chunk.seq", (*path, "seq"), "chunk.seq must be an integer >= 1"))
    if inner.get("type") != kind:
        out.append(Violation("E3001", "chunk.type", (*path, "type"), "chunk.type must be delta or snapshot"))
    field = inner.get("field")
    if kind == "delta":
        if not isinstance(field, str) or not field:
            out.append(
                Violation(
                    "E3001", "chunk.delta.field", (*path, "field"), "a delta chunk needs the dotted field it extends"
                )
            )
        if not isinstance(inner.get("delta"), str):
            out.append(Violation("E3001", "chunk.delta.delta", (*path, "delta"), "chunk.delta must be a string"))
        allowed = {"seq", "type", "field", "delta"}
    else:
        if "data" not in inner:
            out.append(Violation("E3001", "chunk.snapshot.data", (*path, "data"), "a snapshot chunk needs data"))
        if field is not None and not isinstance(field, str):
            out.append(Violation("E3001", "chunk.snapshot.field", (*path, "field"), "chunk.field must be a string"))
        allowed = {"seq", "type", "field", "data"}
    for key in inner:
        if key not in allowed:
            out.append(Violation("E3001", "chunk.unknown", (*path, key), f"unexpected field {excerpt(key)} in chunk"))
    return out


def _check_usage(usage: Any, path: PathT) -> list[Violation]:
    if usage is None:
        return []
    if not isinstance(usage, dict):
        return [Violation("E3001", "usage.object", path, "usage must be an object")]
    return [
        Violation("E3001", "usage.tokens", (*path, k), f"usage.{k} must be a non-negative integer")
        for k, v in usage.items()
        if k.endswith("_tokens") and not (_is_int(v) and v >= 0)
    ]


def final_to_envelope(final: dict[str, Any]) -> dict[str, Any]:
    env: dict[str, Any] = {"ok": True}
    for key in ("meta", "data"):
        if key in final:
            env[key] = final[key]
    return env


def get_dotted(doc: Any, field: str) -> Any:
    cur = doc
    for part in field.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return None
    return cur


def check_stream(chunks: list[Any], module: Module | None = None) -> list[Violation]:
    """Each chunk's rules, then the sequence: meta first, seq from 1 increasing, one terminal chunk, deltas consistent."""
    if not chunks:
        return [Violation("E2010", "stream.empty", (), "the stream is empty")]
    out: list[Violation] = []
    kinds = [chunk_kind(c) for c in chunks]
    for i, chunk in enumerate(chunks):
        out.extend(check_chunk(chunk, module, (i,)))
    if kinds[0] != "meta":
        out.append(
            Violation("E3001", "stream.meta.first", (0,), "the first chunk must be the meta chunk (streaming: true)")
        )
    for i, k in enumerate(kinds[1:], start=1):
        if k == "meta":
            out.append(Violation("E3001", "stream.meta.once", (i,), "only the first chunk may be a meta chunk"))
    # SPEC-v2.5 §3.2.3: seq starts at 1 and increases monotonically; gaps are allowed (STREAM-1).
    previous: int | None = None
    for i, chunk in enumerate(chunks):
        if kinds[i] in ("delta", "snapshot") and isinstance(chunk.get("chunk"), dict):
            seq = chunk["chunk"].get("seq")
            if not _is_int(seq):
                continue
            if previous is None and seq != 1:
                out.append(
                    Violation("E3001", "stream.seq.order", (i, "chunk", "seq"), f"the first seq is {seq}, not 1")
                )
            elif previous is not None and seq <= previous:
                out.append(
                    Violation(
                        "E3001",
                        "stream.seq.order",
                        (i, "chunk", "seq"),
                        f"seq {seq} does not increase after {previous}",
                    )
                )
            previous = seq
    terminal = [i for i, k in enumerate(kinds) if k in ("final", "error")]
    if not terminal:
        out.append(
            Violation(
                "E2010", "stream.terminal.missing", (len(chunks) - 1,), "the stream ends without a final or error chunk"
            )
        )
    else:
        if terminal[0] != len(chunks) - 1:
            out.append(
                Violation("E3001", "stream.terminal.last", (terminal[0] + 1,), "chunks follow the final/error chunk")
            )
        session = chunks[0].get("session_id") if kinds[0] == "meta" else None
        last = chunks[terminal[0]]
        if kinds[terminal[0]] == "error" and session and last.get("session_id") != session:
            out.append(
                Violation(
                    "E3001",
                    "stream.session_id",
                    (terminal[0], "session_id"),
                    "the error chunk's session_id differs from the meta chunk's",
                )
            )
        if kinds[terminal[0]] == "final":
            out.extend(_check_deltas(chunks, kinds, last))
    return out


def _check_deltas(chunks: list[Any], kinds: list[str | None], final: dict[str, Any]) -> list[Violation]:
    """Joined deltas of a field must equal that field in the final chunk (unless a snapshot replaced it)."""
    joined: dict[str, str] = {}
    first_at: dict[str, int] = {}
    base: dict[str, str] = {}  # text a snapshot set, which later deltas extend
    for i, (chunk, kind) in enumerate(zip(chunks, kinds, strict=True)):
        inner = chunk.get("chunk") if isinstance(chunk, dict) else None
        if not isinstance(inner, dict):
            continue
        field = inner.get("field")
        if kind == "delta" and isinstance(field, str) and isinstance(inner.get("delta"), str):
            joined[field] = joined.get(field, base.pop(field, "")) + inner["delta"]
            first_at.setdefault(field, i)
        elif kind == "snapshot" and (field is None or isinstance(field, str)):
            # A snapshot replaces its field and everything under it; without a field, all of data.
            prefix = field or "data"
            for done in (joined, base):
                for key in [k for k in done if k == prefix or k.startswith(prefix + ".")]:
                    del done[key]
            if isinstance(field, str) and isinstance(inner.get("data"), str):
                base[field] = inner["data"]
    out: list[Violation] = []
    for field, text in joined.items():
        value = get_dotted(final, field)
        if value != text:
            out.append(
                Violation(
                    "E3001",
                    "stream.delta.mismatch",
                    (first_at[field], "chunk", "field"),
                    f"the deltas of {field} do not join to its final value",
                )
            )
    return out


__all__ = [
    "CHUNK_KINDS",
    "check_chunk",
    "check_stream",
    "chunk_kind",
    "dotted",
    "final_to_envelope",
    "looks_like_chunk",
]
