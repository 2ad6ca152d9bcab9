"""Where each value of one parsed file is: a position map, made with the file's parse and asked by every
located diagnostic.

A diagnostic names a value by its path (the JSON pointer's parts: keys and list indexes) and asks for its
1-based line and column. Each container (object, array, mapping, sequence) is indexed once, the first time a
question goes through it; after that each part of a path is one dict lookup or list index, so a file's
questions together cost what indexing it once does, however many they are (never a scan per question).

- **JSON** (and YAML written as JSON): `json` has parsed the text, so it is valid. An object's or array's
  members are found by `json`'s own scanners (a member's end by the C scanner, without Python code per token);
  offsets become line and column through the file's line starts, found once.
- **YAML**: the parser's node tree already holds each node's marks (PyYAML's, or `yaml_block.BlockNode`'s for
  plain block YAML); a mapping's keys are indexed the first time a path goes through it.

A file no diagnostic is about costs nothing beyond its parse. Besides the position a diagnostic needs
(`position`), the map gives what an editor or a language server asks: the range of a value and of its key
(`value_range`, `key_range`), and the path at a position (`pointer_at`). A path that does not exist is
answered with its deepest ancestor that does (`position`), or None (the ranges).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

PathPart = Hashable  # a mapping key as the parsed value has it (str, int, None, a date...) or a list index
Position = tuple[int, int]  # 1-based line and column
Range = tuple[Position, Position]  # start, and the position just after the end


class PositionMap:
    """The positions of one file's values. Subclasses say how a node's children are found and where a node is;
    a node is whatever the subclass uses (a JSON entry, a PyYAML node, a BlockNode)."""

    line_offset = 0  # lines before the parsed text in its file (YAML frontmatter)
    node: Any = None  # the parser's tree, for a map that reads one (YAML)

    def root(self) -> Any:
        """The top node, or None for an empty document."""
        return None

    def child(self, node: Any, part: PathPart) -> tuple[Any, Any] | None:
        """(child node, its key's node or None for a list item) at `part` of `node`, or None."""
        return None

    def children(self, node: Any) -> Iterator[tuple[PathPart, Any, Any]]:
        """(part, child node, key node or None) for each child of `node`, in the file's order."""
        return iter(())

    def start(self, node: Any) -> Position:
        return (1, 1)

    def end(self, node: Any) -> Position:
        return self.start(node)

    def scalar_text(self, node: Any) -> str | None:
        """A YAML scalar node's text as the file has it; None for anything else."""
        return None

    # ------------------------------------------------------------ questions

    def position(self, parts: Sequence[PathPart] = (), key: bool = False) -> Position:
        """Where the value at `parts` starts (or its key, with `key`), else where its deepest ancestor found does."""
        node = self.root()
        if node is None:
            return (1 + self.line_offset, 1)
        last = len(parts) - 1
        for index, part in enumerate(parts):
            found = self.child(node, part)
            if found is None:
                break
            node, key_node = found
            if key and index == last and key_node is not None:
                node = key_node
        line, col = self.start(node)
        return line + self.line_offset, col

    def find(self, parts: Sequence[PathPart]) -> tuple[Any, Any] | None:
        """(node, key node or None) at exactly `parts`, or None when the path does not exist."""
        node, key_node = self.root(), None
        if node is None:
            return None
        for part in parts:
            found = self.child(node, part)
            if found is None:
                return None
            node, key_node = found
        return node, key_node

    def written(self, parts: Sequence[PathPart], key: bool = False) -> str | None:
        """The text of the YAML scalar at `parts` (or of its key) as the file has it (`2024-01-01`, `~`, `yes`);
        None when no YAML scalar is there."""
        found = self.find(parts)
        if found is None:
            return None
        node, key_node = found
        return self.scalar_text(key_node if key and key_node is not None else node)

    def value_range(self, parts: Sequence[PathPart]) -> Range | None:
        """Where the value at `parts` starts and ends (1-based, the end just after its last character)."""
        found = self.find(parts)
        return None if found is None else self._range(found[0])

    def key_range(self, parts: Sequence[PathPart]) -> Range | None:
        """Where the key naming the value at `parts` is; None for a list item, the root, or a missing path."""
        found = self.find(parts)
        return None if found is None or found[1] is None else self._range(found[1])

    def pointer_at(self, line: int, column: int) -> tuple[PathPart, ...]:
        """The path of the innermost value (or key) whose range holds the 1-based position; () when none does.
        The positions a key covers answer with the path of its value."""
        at = (line - self.line_offset, column)
        node = self.root()
        path: list[PathPart] = []
        if node is None or not self.start(node) <= at < self.end(node):
            return ()
        for _depth in range(10_000):  # a YAML alias may make a node its own descendant
            inner = None
            for part, child, key_node in self.children(node):
                if (key_node is not None and self.start(key_node) <= at < self.end(key_node)) or (
                    self.start(child) <= at < self.end(child)
                ):
                    inner = part, child
                    break
            if inner is None:
                break
            path.append(inner[0])
            node = inner[1]
        return tuple(path)

    def _range(self, node: Any) -> Range:
        (line, col), (end_line, end_col) = self.start(node), self.end(node)
        return (line + self.line_offset, col), (end_line + self.line_offset, end_col)


# ---------------------------------------------------------------- JSON


class JsonEntry:
    """One JSON value: offsets of its start and end (just past it), of its member key (-1 in an array or at the
    root), and its members once indexed (a dict by key for an object, a list for an array; None before, and
    always for a scalar)."""

    __slots__ = ("end", "key_end", "key_start", "members", "start")

    def __init__(self, start: int, end: int, key_start: int = -1, key_end: int = -1) -> None:
        self.start, self.end, self.key_start, self.key_end = start, end, key_start, key_end
        self.members: dict[str, JsonEntry] | list[JsonEntry] | None = None


class KeySpan:
    """A member key's offsets, the node `child` gives for a key."""

    __slots__ = ("end", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


_WS = re.compile(r"[ \t\n\r]*")


class JsonPositions(PositionMap):
    """Positions in JSON text, which `json` has parsed (so it is valid). A container's members are found the
    first time a question goes through it, once: each member's key by `json`'s string scanner and its end by
    `json`'s C scanner (which reads the member without Python code per token). All the questions about a file
    together cost at most a pass per level of nesting, however many there are. Offsets become line and column
    through the line starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._root: JsonEntry | None = None
        self._line_starts: list[int] = []

    def root(self) -> JsonEntry | None:
        if self._root is None:
            start = _WS.match(self.text).end()  # type: ignore[union-attr]  # matches the empty string
            end = len(self.text.rstrip(" \t\n\r"))
            if start >= end:
                return None
            self._root = JsonEntry(start, end)
        return self._root

    def child(self, node: JsonEntry, part: PathPart) -> tuple[Any, Any] | None:
        members = node.members if node.members is not None else self._index(node)
        if isinstance(members, dict):
            found = members.get(str(part))
            return None if found is None else (found, KeySpan(found.key_start, found.key_end))
        if isinstance(members, list) and isinstance(part, int) and 0 <= part < len(members):
            return members[part], None
        return None

    def children(self, node: JsonEntry) -> Iterator[tuple[PathPart, Any, Any]]:
        members = node.members if node.members is not None else self._index(node)
        if isinstance(members, dict):
            for name, entry in members.items():
                yield name, entry, KeySpan(entry.key_start, entry.key_end)
        elif members is not None:
            yield from ((index, entry, None) for index, entry in enumerate(members))

    def _index(self, node: JsonEntry) -> dict[str, JsonEntry] | list[JsonEntry] | None:
        """The members of the container at `node` (None for a scalar), found once."""
        from json.decoder import scanstring  # type: ignore[attr-defined]  # public in json, not in typeshed

        text, ws, skip = self.text, _WS.match, _DECODER.raw_decode
        opener = text[node.start]
        if opener == "{":
            members: dict[str, JsonEntry] | list[JsonEntry] = {}
            at = ws(text, node.start + 1).end()  # type: ignore[union-attr]
            while text[at] == '"':
                name, key_end = scanstring(text, at + 1)
                value = ws(text, ws(text, key_end).end() + 1).end()  # type: ignore[union-attr]  # past the colon
                end = skip(text, value)[1]
                members[name] = JsonEntry(value, end, at, key_end)  # a repeated key: the last, as `json` keeps
                at = ws(text, end).end()  # type: ignore[union-attr]
                if text[at] == ",":
                    at = ws(text, at + 1).end()  # type: ignore[union-attr]
        elif opener == "[":
            members = []
            at = ws(text, node.start + 1).end()  # type: ignore[union-attr]
            while text[at] != "]":
                end = skip(text, at)[1]
                members.append(JsonEntry(at, end))
                at = ws(text, end).end()  # type: ignore[union-attr]
                if text[at] == ",":
                    at = ws(text, at + 1).end()  # type: ignore[union-attr]
        else:
            return None
        node.members = members
        return members

    def start(self, node: JsonEntry | KeySpan) -> Position:
        return self.line_column(node.start)

    def end(self, node: JsonEntry | KeySpan) -> Position:
        return self.line_column(node.end)

    def line_column(self, offset: int) -> Position:
        """1-based line and column of a character offset."""
        if not self._line_starts:
            self._line_starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        line = bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def pointer_at(self, line: int, column: int) -> tuple[PathPart, ...]:
        self.line_column(0)
        if not 1 <= line <= len(self._line_starts):
            return ()
        return super().pointer_at(line, column)


_DECODER = json.JSONDecoder()  # raw_decode: a value's end, read by the C scanner


# ---------------------------------------------------------------- YAML


class YamlPositions(PositionMap):
    """Positions in a PyYAML node tree (its marks: 0-based line and column, counted as PyYAML counts them)."""

    def __init__(self, node: Any, line_offset: int = 0) -> None:
        self.node = node  # the composed tree (the migration's editor walks it too)
        self.line_offset = line_offset
        self._keys: dict[int, dict[str, int]] = {}  # by mapping node: each key's text, its first index
        self._typed: dict[int, dict[tuple[type, Any], int]] = {}  # by mapping node: each key's value, first index

    def root(self) -> Any:
        return self.node

    def child(self, node: Any, part: PathPart) -> tuple[Any, Any] | None:
        if node.id == "mapping":
            index = self._key_index(node, part)
            if index is None:
                return None
            key_node, value_node = node.value[index]
            return value_node, key_node
        if node.id == "sequence" and isinstance(part, int) and 0 <= part < len(node.value):
            return node.value[part], None
        return None

    def children(self, node: Any) -> Iterator[tuple[PathPart, Any, Any]]:
        if node.id == "mapping":
            for key_node, value_node in node.value:
                built = self._key_value(key_node)
                yield (key_node.value if built is _UNBUILT else built), value_node, key_node
        elif node.id == "sequence":
            for index, item in enumerate(node.value):
                yield index, item, None

    def start(self, node: Any) -> Position:
        return node.start_mark.line + 1, node.start_mark.column + 1

    def scalar_text(self, node: Any) -> str | None:
        return str(node.value) if node.id == "scalar" else None

    def end(self, node: Any) -> Position:
        return node.end_mark.line + 1, node.end_mark.column + 1

    def _key_index(self, node: Any, part: PathPart) -> int | None:
        """The first key of the mapping that is `part`: a string part matches a scalar key's text; any other
        the value PyYAML builds for the key (`null`, `~` and `NULL` are None, `0x7b` is 123), and an int also
        the key's text (`123`)."""
        texts = self._keys.get(id(node))
        if texts is None:
            texts = {}
            for index, (key_node, _value) in enumerate(node.value):
                if key_node.id == "scalar":
                    texts.setdefault(key_node.value, index)
            self._keys[id(node)] = texts
        if isinstance(part, str):
            return texts.get(part)
        typed = self._typed.get(id(node))
        if typed is None:
            typed = {}
            for index, (key_node, _value) in enumerate(node.value):
                built = self._key_value(key_node)
                if built is not _UNBUILT:
                    typed.setdefault((type(built), built), index)
            self._typed[id(node)] = typed
        try:
            found = typed.get((type(part), part))
        except TypeError:  # an unhashable part matches no key
            return None
        if isinstance(part, int) and not isinstance(part, bool):
            by_text = texts.get(str(part))
            if by_text is not None and (found is None or by_text < found):
                return by_text
        return found

    @staticmethod
    def _key_value(key_node: Any) -> Any:
        if key_node.id != "scalar":
            return _UNBUILT
        import yaml

        try:
            built = yaml.constructor.SafeConstructor().construct_object(key_node)
            hash(built)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError):
            return _UNBUILT
        return built


_UNBUILT: Any = object()  # a key PyYAML cannot build on its own (or not as a hashable value)


class BlockPositions(PositionMap):
    """Positions in a `yaml_block.BlockNode` tree (plain block YAML: every key a plain string, no repeats).
    A BlockNode has only its start; an end is the scalar's text's, or the last child's (a flow list's `]`)."""

    def __init__(self, node: Any, text: str, line_offset: int = 0) -> None:
        self.node = node
        self.line_offset = line_offset
        self._text = text
        self._lines: list[str] | None = None
        self._keys: dict[int, dict[str, int]] = {}

    def root(self) -> Any:
        return self.node

    def child(self, node: Any, part: PathPart) -> tuple[Any, Any] | None:
        if node.kind == "map":
            if not isinstance(part, str):
                return None
            keys = self._keys.get(id(node))
            if keys is None:
                keys = self._keys[id(node)] = {k.value: i for i, (k, _v) in enumerate(node.value)}
            index = keys.get(part)
            if index is None:
                return None
            key_node, value_node = node.value[index]
            return value_node, key_node
        if node.kind == "seq" and isinstance(part, int) and 0 <= part < len(node.value):
            return node.value[part], None
        return None

    def children(self, node: Any) -> Iterator[tuple[PathPart, Any, Any]]:
        if node.kind == "map":
            for key_node, value_node in node.value:
                yield key_node.value, value_node, key_node
        elif node.kind == "seq":
            for index, item in enumerate(node.value):
                yield index, item, None

    def start(self, node: Any) -> Position:
        return node.line + 1, node.column + 1

    def scalar_text(self, node: Any) -> str | None:
        return str(node.value) if node.kind == "scalar" else None

    def end(self, node: Any) -> Position:
        if node.kind == "scalar":
            return node.line + 1, node.column + 1 + len(node.value)
        if self._lines is None:
            self._lines = self._text.split("\n")
        line = self._lines[node.line] if node.line < len(self._lines) else ""
        if node.kind == "seq" and line[node.column : node.column + 1] == "[":  # a flow list: one line
            return node.line + 1, line.find("]", node.column) + 2
        last = node.value[-1][1] if node.kind == "map" else node.value[-1]
        return self.end(last)
