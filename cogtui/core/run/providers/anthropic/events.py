"""The Anthropic stream read as raw server-sent events: text, usage and how it ended, nothing else.

The SDK's `messages.stream()` rebuilds a message snapshot on every event (its
text grows by concatenation, so each delta cost more than the one before), and
even its raw event stream builds a typed object per event. Here each SSE line
is read once and each event's JSON decoded once into a dict: constant work per
delta, as on the OpenAI-compatible path (bench/bench_streams.py compares the two).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, Any]]:
    """(event name, decoded data) per server-sent event; a `ValueError` for data that is not JSON."""
    name = ""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "", []
        elif line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
        elif line.startswith("event:"):
            name = line[6:].strip()
    if data:  # a last event without its blank line
        yield name, json.loads("\n".join(data))


class RawTally:
    """Fed every event in order; `take` returns the event's text, if it carries any."""

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read_tokens = 0  # usage.cache_read_input_tokens
        self.cache_write_tokens = 0  # usage.cache_creation_input_tokens
        self.stop_reason: str | None = None
        self.stopped = False  # message_stop arrived

    def take(self, data: Any) -> str | None:
        kind = data["type"]
        if kind == "content_block_delta":
            delta = data["delta"]
            return delta.get("text") if delta.get("type") == "text_delta" else None
        if kind == "message_start":
            self._usage(data["message"].get("usage") or {})
        elif kind == "message_delta":
            self.stop_reason = (data.get("delta") or {}).get("stop_reason") or self.stop_reason
            self._usage(data.get("usage") or {})  # cumulative counts, when present
        elif kind == "message_stop":
            self.stopped = True
        return None

    def _usage(self, usage: dict[str, Any]) -> None:
        """Take the counts `usage` holds; a count it leaves out (or null) keeps its earlier value."""
        self.input_tokens = _count(usage.get("input_tokens"), self.input_tokens)
        self.output_tokens = _count(usage.get("output_tokens"), self.output_tokens)
        self.cache_read_tokens = _count(usage.get("cache_read_input_tokens"), self.cache_read_tokens)
        self.cache_write_tokens = _count(usage.get("cache_creation_input_tokens"), self.cache_write_tokens)


def _count(value: Any, earlier: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return earlier
