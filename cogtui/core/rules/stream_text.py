"""Streams as text (SPEC-v2.5 §3.2.4): written as SSE or NDJSON (`cogn run --stream`, `cogn serve`), and read
back by `cogn check`, which takes one JSON document or a stream as NDJSON or SSE, detected.

A stream read from text remembers where each chunk began (its line) and, for SSE,
the event name it came under, so a violation can say its line and an event that
names another kind of chunk is caught (ENV-17).
"""

from __future__ import annotations

import json
import re
from typing import Any

from cogtui.core.files.json_extract import loads_finite
from cogtui.core.files.terminal_text import terminal_json
from cogtui.core.rules.chunk_rules import chunk_kind
from cogtui.core.rules.violation import Violation

# The SSE event each chunk kind goes under: SPEC-v2.5 §3.2.4's example (meta, chunk, final) and its other kinds.
SSE_EVENTS = {"meta": "meta", "delta": "chunk", "snapshot": "chunk", "progress": "progress", "final": "final"}
SSE_EVENTS_ERROR = "error"
_SSE_FIELD = re.compile(r"(event|data|id|retry)(?::|$)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def sse_frame(chunk: dict[str, Any]) -> str:
    """One chunk as an SSE event under its kind's name (`SSE_EVENTS`); the empty chunk (a heartbeat, STREAM-3) as a
    `: heartbeat` comment, which keeps the connection alive and that no client takes for an event."""
    kind = chunk_kind(chunk)
    if kind == "heartbeat":
        return ": heartbeat\n\n"
    event = SSE_EVENTS.get(kind or "", SSE_EVENTS_ERROR)
    return f"event: {event}\ndata: {terminal_json(chunk)}\n\n"


def ndjson_line(chunk: dict[str, Any]) -> str:
    """One chunk as a line of NDJSON (the heartbeat is `{}`)."""
    return terminal_json(chunk) + "\n"


class UnusableDocument(Exception):
    """The text is not JSON (nor NDJSON, nor SSE): exit code 2 territory."""


class StreamText(list):  # type: ignore[type-arg]
    """Chunks read from NDJSON or SSE text: always a stream, with the line each chunk began on."""

    def __init__(self, chunks: list[Any], lines: list[int], events: list[str | None] | None = None) -> None:
        super().__init__(chunks)
        self.lines = lines
        self.events = events  # SSE only: each chunk's `event:` name (None when the frame had none)

    @property
    def transport(self) -> str:
        return "sse" if self.events is not None else "ndjson"


def parse_document(text: str) -> Any:
    """A JSON value, or a StreamText for NDJSON (several JSON lines) or SSE (`event:`/`data:` frames)."""
    stripped = text.strip()
    if not stripped:
        raise UnusableDocument("the document is empty")
    try:
        return loads_finite(stripped)  # NaN and Infinity are not JSON (RUN-10), here as in the runtime
    except json.JSONDecodeError as first:
        if looks_like_sse(text):
            return parse_sse(text)
        numbered = [(n, ln) for n, ln in enumerate(_LINE_BREAK.split(text), start=1) if ln.strip()]
        if len(numbered) > 1:
            return StreamText([_json_at(line, [(n, 0)]) for n, line in numbered], [n for n, _ in numbered])
        raise UnusableDocument(f"not JSON: {first.msg} at line {first.lineno}, column {first.colno}") from None
    except RecursionError:
        raise UnusableDocument("JSON nested too deeply") from None
    except ValueError as exc:  # an integer over Python's 4300-digit conversion limit
        raise UnusableDocument(f"not usable JSON: {exc}") from None


def _json_at(text: str, places: list[tuple[int, int]]) -> Any:
    """`text` as JSON, else UnusableDocument located in the file: `places` gives, for each line of `text`, its
    line in the file and the columns before it there (an SSE `data: ` prefix)."""
    try:
        return loads_finite(text)
    except json.JSONDecodeError as exc:
        line, before = places[min(exc.lineno, len(places)) - 1]
        raise UnusableDocument(f"line {line}, column {before + exc.colno}: not JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise UnusableDocument(f"line {places[0][0]}: not usable JSON: {exc}") from None


def looks_like_sse(text: str) -> bool:
    """The first non-blank line is an SSE field (`event:`, `data:`, `id:`, `retry:`) or a `:` comment."""
    for line in _LINE_BREAK.split(text.lstrip("\ufeff")):
        if line.strip():
            return line.startswith(":") or _SSE_FIELD.match(line) is not None
    return False


def parse_sse(text: str) -> StreamText:
    """Each SSE event's data as one chunk (a `: heartbeat` comment is the empty chunk, STREAM-3); a malformed frame
    is an UnusableDocument naming its line. An event at the end of the text needs no closing blank line."""
    chunks: list[Any] = []
    lines: list[int] = []
    events: list[str | None] = []
    data: list[str] = []
    places: list[tuple[int, int]] = []  # each data: line's line in the file and the columns before its value
    event: str | None = None
    start: int | None = None  # the line the pending frame began on

    def dispatch() -> None:
        nonlocal event, start
        if start is not None and data:
            chunks.append(_json_at("\n".join(data), places))
            lines.append(start)
            events.append(event)
        elif event is not None:
            raise UnusableDocument(f"line {start}: the SSE event `{event}` has no data: line")
        data.clear()
        places.clear()
        event, start = None, None  # a frame of only id: or retry: fields carries no event

    split = _LINE_BREAK.split(text.lstrip("\ufeff"))
    for n, line in enumerate(split, start=1):
        if not line:
            dispatch()
            continue
        if line.startswith(":"):
            if line[1:].strip() == "heartbeat" and start is None:
                chunks.append({})
                lines.append(n)
                events.append(None)
            continue
        if _SSE_FIELD.match(line) is None:
            raise UnusableDocument(
                f"line {n}: not an SSE line (expected event:, data:, id:, retry:, a : comment or a blank line)"
            )
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if start is None:
            start = n
        if name == "data":
            data.append(value)
            places.append((n, len(line) - len(value)))
        elif name == "event":
            event = value
    dispatch()
    if not chunks:
        raise UnusableDocument("the SSE text holds no event")
    return StreamText(chunks, lines, events)


def check_sse_events(doc: StreamText) -> list[Violation]:
    """An SSE event name, when given, names the kind of chunk its data holds (meta, chunk, progress, final, error)."""
    out: list[Violation] = []
    for i, (chunk, event) in enumerate(zip(doc, doc.events or [], strict=False)):
        kind = chunk_kind(chunk)
        if event is None or kind in (None, "heartbeat"):
            continue
        expected = SSE_EVENTS.get(kind, SSE_EVENTS_ERROR)
        if event != expected:
            out.append(
                Violation(
                    "E3001",
                    "stream.sse.event",
                    (i,),
                    f"a {kind} chunk sent as `event: {event}` (expected `event: {expected}`)",
                )
            )
    return out


__all__ = [
    "StreamText",
    "UnusableDocument",
    "check_sse_events",
    "looks_like_sse",
    "ndjson_line",
    "parse_document",
    "parse_sse",
    "sse_frame",
]
