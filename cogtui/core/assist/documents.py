"""One open document as the assist features see it: which file of a module it is, its parse (when its text parses
now: a buffer being typed often does not) and what is at a position.

Positions are 0-based (line, column in code points); the position maps are 1-based, converted here.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.positions import Range
from cogtui.core.files.sourcemap import SourceFile, parse_json, parse_yaml, split_frontmatter
from cogtui.core.records import record

Point = tuple[int, int]
Span = tuple[Point, Point]
Pointer = tuple[Hashable, ...]

MANIFESTS = ("module.yaml", "MODULE.md", "module.md")
MAX_TEXT = 8 * 1024 * 1024  # the confined reader's limit for a module file: a larger buffer is not parsed


@record
class Doc:
    """An open document: its path, text, role and parse (None when it does not parse now)."""

    path: Path
    text: str
    role: str  # manifest | frontmatter | schema | json | prompt | other
    source: SourceFile | None = None

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def line(self, n: int) -> str:
        lines = self.lines
        return lines[n] if 0 <= n < len(lines) else ""

    def at(self, point: Point) -> tuple[Pointer, bool]:
        """(the path of the value or key at `point`, whether `point` is on the key); ((), False) when none is."""
        if self.source is None or self.source.kind not in ("yaml", "json"):
            return (), False
        positions = self.source.positions
        line, column = point[0] + 1, point[1] + 1
        try:
            pointer = positions.pointer_at(line, column)
            key = positions.key_range(pointer) if pointer else None
        except (RecursionError, ValueError, IndexError):
            return (), False
        on_key = key is not None and key[0] <= (line, column) < key[1]
        return tuple(pointer), on_key

    def span(self, pointer: Pointer, key: bool = False) -> Span | None:
        """Where the value at `pointer` (or its key) is, 0-based; None when the path is not there."""
        if self.source is None:
            return None
        positions = self.source.positions
        try:
            found: Range | None = positions.key_range(pointer) if key else positions.value_range(pointer)
        except (RecursionError, ValueError, IndexError):
            return None
        if found is None:
            return None
        (line, col), (end_line, end_col) = found
        return (line - 1, col - 1), (end_line - 1, end_col - 1)


def role_of(path: Path) -> str:
    name = path.name
    if name == "module.yaml":
        return "manifest"
    if name in ("MODULE.md", "module.md"):
        return "frontmatter"
    if name == "schema.json" or name.endswith(".schema.json"):
        return "schema"
    if name.endswith(".json"):
        return "json"
    if name in ("prompt.md", "prompt.txt"):
        return "prompt"
    return "other"


def parse(path: Path, text: str) -> Doc:
    """The document with its parse when its text parses now (never raises on bad content)."""
    role = role_of(path)
    if len(text) > MAX_TEXT:
        return Doc(path, text, role)
    source: SourceFile | None = None
    try:
        if role == "manifest":
            source = parse_yaml(text, path)
        elif role == "frontmatter":
            parts = split_frontmatter(text)
            source = parse_yaml(parts[0], path, line_offset=1) if parts is not None else None
        elif role in ("schema", "json"):
            source = parse_json(text, path)
    except (ParseFailure, RecursionError, ValueError):
        source = None
    return Doc(path, text, role, source)


def value_at(value: Any, pointer: Pointer) -> Any:
    """The value at `pointer` in a parsed document, or None."""
    for part in pointer:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
        else:
            return None
    return value


def word_at(line: str, column: int, extra: str = "") -> tuple[int, int]:
    """The span of the word (letters, digits, `_`, `-` and `extra`) around `column` in `line`."""
    allowed = set(extra)

    def ok(ch: str) -> bool:
        return ch.isalnum() or ch in "_-" or ch in allowed

    start = column
    while start > 0 and ok(line[start - 1]):
        start -= 1
    end = column
    while end < len(line) and ok(line[end]):
        end += 1
    return start, end
