"""Walking JSON text without building it: skip a value (the migration edits JSON in place), find a repeated
key, turn an offset into a line and column. `json` parses; positions.py maps every value's position."""

from __future__ import annotations

import json
import re
from typing import Any


def offset_to_position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_STRUCT = re.compile(r'["\[\]{}]')


def skip_json_value(text: str, i: int) -> int:
    """Index just past the JSON value starting at i, building nothing; ValueError on malformed text."""
    ch = text[i : i + 1]
    if ch == '"':
        m = _STRING.match(text, i)
        if m is None:
            raise ValueError("unterminated string")
        return m.end()
    if ch in ("{", "["):
        depth, pos = 0, i
        while True:
            m = _STRUCT.search(text, pos)
            if m is None:
                raise ValueError("unbalanced brackets")
            c = m.group()
            if c == '"':
                s = _STRING.match(text, m.start())
                if s is None:
                    raise ValueError("unterminated string")
                pos = s.end()
                continue
            depth += 1 if c in "[{" else -1
            pos = m.end()
            if depth == 0:
                return pos
    m = _SCALAR.match(text, i)
    if m is None:
        raise ValueError(f"unexpected character at {i}")
    return m.end()


class KeyCounter:
    """`object_pairs_hook` that builds the dict `json` would, noting whether an object repeated a key."""

    __slots__ = ("repeated",)

    def __init__(self) -> None:
        self.repeated = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) < len(pairs):
            self.repeated = True
        return built


def first_repeated_key(text: str) -> tuple[str, int, int] | None:
    """(key, offset of its first occurrence, offset of the repetition) for the repetition that comes first in
    `text` (valid JSON); None when every object's keys are unique. One pass, no recursion."""
    stack: list[dict[str, int] | None] = []  # per open container: an object's keys seen, None for an array
    expect_key = False
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]', text, re.S):  # compiled (and cached) when needed
        token = m.group()
        if token[0] == '"':
            if expect_key:
                seen = stack[-1]
                assert seen is not None
                name = json.loads(token)
                if name in seen:
                    return name, seen[name], m.start()
                seen[name] = m.start()
            expect_key = False
        elif token == "{":
            stack.append({})
            expect_key = True
        elif token == "[":
            stack.append(None)
            expect_key = False
        elif token == ",":
            expect_key = bool(stack) and stack[-1] is not None
        else:  # } ] :
            if token != ":":
                stack.pop()
            expect_key = False
    return None
