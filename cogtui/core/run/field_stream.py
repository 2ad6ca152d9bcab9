"""Incremental JSON parsing of a model's answer into per-field events.

Fed text as it arrives, `FieldStreamer` reports:
- `("delta", "data.rationale", "more text")` as a string field grows, and
- `("value", "data.issues", [...])` when a non-string field completes,
for the fields directly under `meta` and `data` of an envelope, or directly
under the root of a bare v2.1 payload (reported as `data.*`).

Each character is looked at once (regexes jump between structural
characters), so the cost per chunk is O(new text) and never re-parses what
came before. Text before the first `{` (prose, a code fence) is skipped.

It is a convenience for live display and must never break a run: malformed
text (a key with an invalid escape, a value nested too deeply, NaN) yields
fewer events, never an exception. Should anything still go wrong inside, the
streamer stops reporting (`broken`) and the runner's final envelope, built
from the whole text, is what counts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from cogtui.core.files.json_extract import loads_finite

ENVELOPE_KEYS = frozenset({"ok", "meta", "data", "error", "partial_data"})
_STRUCT = re.compile(r'["{}\[\],:]')
_STRING_STOP = re.compile(r'["\\]')
_SCALAR_END = re.compile(r"[\s,}\]]")

Event = tuple[str, str, Any]  # ("delta" | "value", dotted field, payload)


@dataclass
class _Frame:
    """An object or array open in the streamed JSON."""

    kind: str  # "{" or "["
    key: str | int | None  # this container's key in its parent
    expect: str = "key"  # object: key | colon | value | next ; array: value | next
    index: int = 0
    last_key: str | None = None


@dataclass
class FieldStreamer:
    """Follows a streamed JSON answer and reports its fields as they complete."""

    stack: list[_Frame] = field(default_factory=list)
    started: bool = False
    done: bool = False
    broken: bool = False  # an internal error stopped the streamer; no more events
    mode: str | None = None  # "envelope" or "bare"
    # string state
    in_string: bool = False
    string_is_key: bool = False
    string_parts: list[str] = field(default_factory=list)  # raw pieces of a key or an untracked string
    stream_field: str | None = None  # dotted field whose deltas are being emitted
    pending: str = ""  # raw text held back: an unfinished escape
    escape_next: bool = False
    # scalar / captured value state
    scalar: list[str] | None = None
    capture: list[str] | None = None
    capture_field: str | None = None
    capture_depth: int = 0

    # ------------------------------------------------------------ public

    def feed(self, text: str) -> list[Event]:
        """The events `text` completes; never raises (a failure ends the streamer quietly)."""
        events: list[Event] = []
        if self.done or not isinstance(text, str):
            return events
        try:
            self._feed(text, events)
        except Exception:  # noqa: BLE001 - display only: a parser bug must not end the run
            self.done = self.broken = True
        return events

    def _feed(self, text: str, events: list[Event]) -> None:
        i, n = 0, len(text)
        if not self.started:
            j = text.find("{")
            if j < 0:
                return
            i = j
        while i < n and not self.done:
            if self.in_string:
                i = self._string(text, i, events)
                continue
            if self.scalar is not None:
                m = _SCALAR_END.search(text, i)
                end = m.start() if m else n
                self.scalar.append(text[i:end])
                if self.capture is not None:
                    self.capture.append(text[i:end])
                i = end
                if m is None:
                    break
                self._end_scalar(events)
                continue
            m = _STRUCT.search(text, i)
            if m is None:
                if text[i:].strip():
                    i = self._scalar_start(text, i, n, events)
                    continue
                if self.capture is not None:
                    self.capture.append(text[i:])
                break
            if m.start() > i:
                chunk = text[i : m.start()]
                if chunk.strip():
                    i = self._scalar_start(text, i, m.start(), events)
                    continue
                if self.capture is not None:
                    self.capture.append(chunk)
            i = self._struct(m.group(), m.end(), events)

    # ------------------------------------------------------------ helpers

    def _path_field(self, key: str | int | None) -> str | None:
        """The dotted field a value at the current depth under `key` reports as, or None."""
        depth = len(self.stack)
        if self.mode == "envelope" and depth == 2 and self.stack[1].key in ("meta", "data") and isinstance(key, str):
            return f"{self.stack[1].key}.{key}"
        if self.mode == "bare" and depth == 1 and isinstance(key, str):
            return f"data.{key}"
        return None

    def _value_key(self) -> str | int | None:
        top = self.stack[-1]
        return top.last_key if top.kind == "{" else top.index

    def _begin_value(self, first: str, events: list[Event]) -> None:
        """A value starts at the current position; decide whether to stream or capture it."""
        if self.capture is None and self.stack:
            fld = self._path_field(self._value_key())
            if fld is not None:
                if first == '"':
                    self.stream_field = fld
                else:
                    self.capture, self.capture_field, self.capture_depth = [], fld, len(self.stack)

    def _scalar_start(self, text: str, i: int, end: int, events: list[Event]) -> int:
        chunk = text[i:end]
        lead = len(chunk) - len(chunk.lstrip())
        if self.capture is not None:
            self.capture.append(chunk[:lead])
        if not self.started:
            return end
        if self.stack and self.stack[-1].expect == "value":
            self._begin_value(chunk[lead : lead + 1], events)
        self.scalar = []
        return i + lead

    def _end_scalar(self, events: list[Event]) -> None:
        self.scalar = None
        self._after_value(events)

    def _after_value(self, events: list[Event]) -> None:
        if self.stack:
            top = self.stack[-1]
            top.expect = "next"
        if self.capture is not None and len(self.stack) == self.capture_depth:
            raw = "".join(self.capture)
            self.capture = None
            try:
                value = loads_finite(raw)  # NaN/Infinity would make the snapshot chunk invalid JSON
            except (ValueError, RecursionError):
                return
            events.append(("value", self.capture_field or "", value))

    def _struct(self, ch: str, after: int, events: list[Event]) -> int:
        if self.capture is not None:
            self.capture.append(ch)
        if not self.started:
            if ch != "{":
                return after
            self.started = True
            self.stack.append(_Frame("{", None))
            return after
        top = self.stack[-1] if self.stack else None
        if ch == '"':
            self.in_string = True
            self.string_is_key = top is not None and top.kind == "{" and top.expect == "key"
            if not self.string_is_key and top is not None:
                self._begin_value('"', events)
            self.string_parts = []
            return after
        if ch in "{[":
            if top is not None:
                if self.capture is None:
                    self._begin_value(ch, events)
                    if self.capture is not None:  # just started: it must hold its own opening bracket
                        self.capture.append(ch)
                key = self._value_key()
            else:
                key = None
            self.stack.append(_Frame(ch, key, "key" if ch == "{" else "value"))
            return after
        if ch in "}]":
            self.stack.pop()
            if not self.stack:
                self.done = True
                return after
            self._after_value(events)
            return after
        if ch == ":" and top is not None:
            top.expect = "value"
        elif ch == "," and top is not None:
            if top.kind == "{":
                top.expect = "key"
            else:
                top.index += 1
                top.expect = "value"
        return after

    def _string(self, text: str, i: int, events: list[Event]) -> int:
        n = len(text)
        while i < n:
            if self.escape_next:
                self._raw(text[i], events, flush=False)
                self.escape_next = False
                i += 1
                continue
            m = _STRING_STOP.search(text, i)
            end = m.start() if m else n
            if end > i:
                self._raw(text[i:end], events, flush=False)
            if m is None:
                self._flush(events)
                return n
            if m.group() == "\\":
                self._raw("\\", events, flush=False)
                self.escape_next = True
                i = end + 1
                continue
            # closing quote
            if self.capture is not None:
                self.capture.append('"')
            self._flush(events, final=True)
            self.in_string = False
            top = self.stack[-1]
            if self.string_is_key:
                key = _decode_key("".join(self.string_parts))
                top.last_key = key
                top.expect = "colon"
                if self.mode is None and len(self.stack) == 1:
                    self.mode = "envelope" if key in ENVELOPE_KEYS else "bare"
            else:
                self.stream_field = None
                self._after_value(events)
            self.string_parts = []
            return end + 1
        self._flush(events)
        return n

    def _raw(self, raw: str, events: list[Event], flush: bool) -> None:
        if self.capture is not None:
            self.capture.append(raw)
        if self.stream_field is not None:
            self.pending += raw
        else:
            self.string_parts.append(raw)

    def _flush(self, events: list[Event], final: bool = False) -> None:
        """Emit the decodable part of the pending raw string text as a delta."""
        if self.stream_field is None or not self.pending:
            return
        raw = self.pending
        keep = "" if final else _incomplete_tail(raw)
        ready = raw[: len(raw) - len(keep)] if keep else raw
        if ready:
            try:
                decoded = json.loads('"' + ready + '"')
            except ValueError:
                decoded = ready  # invalid escape from the model: pass the text through
            if decoded:
                events.append(("delta", self.stream_field, decoded))
        self.pending = keep


def _decode_key(raw: str) -> str:
    """A key's text; an invalid escape (prose such as `{"C:\\Users": 1}`) keeps the raw text, as `_flush` does."""
    try:
        key = json.loads('"' + raw + '"')
    except ValueError:
        return raw
    return key if isinstance(key, str) else raw


_TAIL = re.compile(r"(?:\\u[dD][89abAB][0-9a-fA-F]{2})?(?:\\u[0-9a-fA-F]{0,3}|\\)?$")


def _incomplete_tail(raw: str) -> str:
    """A trailing escape more text may complete, with a high surrogate awaiting its pair."""
    m = _TAIL.search(raw)
    if m is None or m.start() == len(raw):
        return ""
    start = m.start()
    run = len(raw[:start]) - len(raw[:start].rstrip("\\"))
    return raw[start:] if run % 2 == 0 else ""
