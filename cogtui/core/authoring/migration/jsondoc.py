"""Edit a JSON document as text, so everything the edit does not touch stays byte-for-byte.

`JsonDoc` keeps the parsed value and the text side by side. Each edit (replace
a value, insert a member, rename a key) changes the value and splices new text
into the old at the span it came from, formatted in the file's own style
(indent unit, inline or expanded arrays and small objects, escaped or raw
non-ASCII). `finish()` checks that the text parses back to the value, in the
same key order, and re-serialises in the detected style if it ever does not.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any

from cogtui.core.files.sourcemap import skip_json_value

PathT = tuple[str | int, ...]

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_NON_ASCII_ESCAPE = re.compile(r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})")


class JsonEditError(Exception):
    """The text could not be scanned or edited; the caller re-serialises instead."""


@dataclass
class Span:
    kind: str  # "object", "array" or "scalar"
    start: int
    end: int  # exclusive
    members: list[tuple[str, int, int, Span]] = field(default_factory=list)  # key, key start, key end, value
    items: list[Span] = field(default_factory=list)


def scan(text: str) -> Span:
    span, _end = _value(text, _skip(text, 0), 0)
    return span


def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]


def _key(quoted: str) -> str:
    return json.loads(quoted) if "\\" in quoted else quoted[1:-1]


def _skip_value(text: str, i: int) -> int:
    try:
        return skip_json_value(text, i)
    except ValueError as exc:
        raise JsonEditError(str(exc)) from None


def _members(text: str, i: int) -> list[tuple[str, int, int, int, int]]:
    """(key, key start, key end, value start, value end) of the object at i."""
    out = []
    j = _skip(text, i + 1)
    while text[j : j + 1] == '"':
        m = _STRING.match(text, j)
        if m is None:
            raise JsonEditError("unterminated string")
        k = _skip(text, m.end())
        v = _skip(text, k + 1)
        end = _skip_value(text, v)
        out.append((_key(m.group()), m.start(), m.end(), v, end))
        j = _skip(text, end)
        if text[j : j + 1] == ",":
            j = _skip(text, j + 1)
    return out


def _locate(text: str, path: PathT) -> tuple[int, int]:
    """(start, end) of the value at `path`, walking only along it."""
    i = _skip(text, 0)
    for part in path:
        ch = text[i : i + 1]
        if ch == "{":
            found = [m for m in _members(text, i) if m[0] == part]
            if not found:
                raise JsonEditError(f"no member {part!r}")
            i = found[-1][3]  # json.loads keeps the last of duplicated keys
        elif ch == "[" and isinstance(part, int):
            j, n = _skip(text, i + 1), 0
            while n < part and text[j : j + 1] not in ("]", ""):
                j = _skip(text, _skip_value(text, j))
                if text[j : j + 1] == ",":
                    j = _skip(text, j + 1)
                n += 1
            if text[j : j + 1] in ("]", ""):
                raise JsonEditError(f"no item {part}")
            i = j
        else:
            raise JsonEditError(f"cannot descend into {part!r}")
    return i, _skip_value(text, i)


def _value(text: str, i: int, depth: int) -> tuple[Span, int]:
    if depth > 200:
        raise JsonEditError("nested too deeply")
    ch = text[i : i + 1]
    if ch == "{":
        node = Span("object", i, i)
        j = _skip(text, i + 1)
        while text[j : j + 1] == '"':
            m = _STRING.match(text, j)
            if m is None:
                raise JsonEditError("unterminated string")
            key = _key(m.group())
            k = _skip(text, m.end())
            if text[k : k + 1] != ":":
                raise JsonEditError("expected ':'")
            value, j = _value(text, _skip(text, k + 1), depth + 1)
            node.members.append((key, m.start(), m.end(), value))
            j = _skip(text, j)
            if text[j : j + 1] == ",":
                j = _skip(text, j + 1)
        if text[j : j + 1] != "}":
            raise JsonEditError("expected '}'")
        node.end = j + 1
        return node, j + 1
    if ch == "[":
        node = Span("array", i, i)
        j = _skip(text, i + 1)
        while text[j : j + 1] not in ("]", ""):
            item, j = _value(text, j, depth + 1)
            node.items.append(item)
            j = _skip(text, j)
            if text[j : j + 1] == ",":
                j = _skip(text, j + 1)
        if text[j : j + 1] != "]":
            raise JsonEditError("expected ']'")
        node.end = j + 1
        return node, j + 1
    m = _STRING.match(text, i) if ch == '"' else _SCALAR.match(text, i)
    if m is None:
        raise JsonEditError(f"unexpected character at {i}")
    return Span("scalar", i, m.end()), m.end()


# ---------------------------------------------------------------- style


@dataclass(frozen=True)
class JsonStyle:
    indent: str = "  "
    ensure_ascii: bool = False
    inline_scalar_arrays: bool = False
    inline_leaf_objects: bool = False
    pad_brackets: bool = False  # "[ 1, 2 ]" rather than "[1, 2]"
    pad_braces: bool = True  # "{ "a": 1 }" rather than {"a": 1}

    def dumps(self, value: Any, level: str = "") -> str:
        """`value` as text whose first line starts at `level` indentation (continuation lines carry it)."""
        if isinstance(value, dict):
            if not value:
                return "{}"
            if self.inline_leaf_objects and _is_leaf(value):
                return self.inline(value)
            inner = level + self.indent
            body = ",\n".join(f"{inner}{self.scalar(k)}: {self.dumps(v, inner)}" for k, v in value.items())
            return "{\n" + body + "\n" + level + "}"
        if isinstance(value, list):
            if not value:
                return "[]"
            if self.inline_scalar_arrays and all(not isinstance(v, (dict, list)) for v in value):
                return self.inline(value)
            inner = level + self.indent
            body = ",\n".join(f"{inner}{self.dumps(v, inner)}" for v in value)
            return "[\n" + body + "\n" + level + "]"
        return self.scalar(value)

    def inline(self, value: Any) -> str:
        if isinstance(value, dict):
            if not value:
                return "{}"
            pad = " " if self.pad_braces else ""
            return "{" + pad + ", ".join(f"{self.scalar(k)}: {self.inline(v)}" for k, v in value.items()) + pad + "}"
        if isinstance(value, list):
            if not value:
                return "[]"
            pad = " " if self.pad_brackets else ""
            return "[" + pad + ", ".join(self.inline(v) for v in value) + pad + "]"
        return self.scalar(value)

    def scalar(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=self.ensure_ascii)


def _is_leaf(value: dict[str, Any]) -> bool:
    return len(value) <= 4 and all(not isinstance(v, (dict, list)) for v in value.values())


def detect_style(text: str, root: Span) -> JsonStyle:
    indent = "  "
    first = root.members[0] if root.kind == "object" and root.members else None
    if first is not None:
        line_start = text.rfind("\n", 0, first[1]) + 1
        lead = text[line_start : first[1]]
        if line_start > 0 and lead.strip() == "":
            indent = lead or "  "
    arrays = {"inline": 0, "multi": 0, "pad": 0}
    leaves = {"inline": 0, "multi": 0, "pad": 0}

    def visit(node: Span) -> None:
        one_line = "\n" not in text[node.start : node.end]
        if node.kind == "array" and node.items and all(i.kind == "scalar" for i in node.items):
            arrays["inline" if one_line else "multi"] += 1
            arrays["pad"] += one_line and text[node.start + 1 : node.start + 2] == " "
        if (
            node.kind == "object"
            and node.members
            and len(node.members) <= 4
            and all(m[3].kind == "scalar" for m in node.members)
        ):
            leaves["inline" if one_line else "multi"] += 1
            leaves["pad"] += one_line and text[node.start + 1 : node.start + 2] == " "
        for m in node.members:
            visit(m[3])
        for item in node.items:
            visit(item)

    visit(root)
    raw_non_ascii = any(ord(c) > 127 for c in text)
    return JsonStyle(
        indent=indent,
        ensure_ascii=bool(_NON_ASCII_ESCAPE.search(text)) and not raw_non_ascii,
        inline_scalar_arrays=arrays["inline"] > arrays["multi"],
        inline_leaf_objects=leaves["inline"] > leaves["multi"],
        pad_brackets=arrays["pad"] * 2 > arrays["inline"],
        pad_braces=leaves["pad"] * 2 >= leaves["inline"] if leaves["inline"] else True,
    )


# ---------------------------------------------------------------- the document


class JsonDoc:
    """A JSON object document edited in place. Paths are tuples of keys and indices."""

    def __init__(self, text: str, value: Any | None = None, style: JsonStyle | None = None) -> None:
        self.text = text
        self.value = copy.deepcopy(value) if value is not None else json.loads(text)
        self.broken = False  # set when a text edit failed; finish() then re-serialises
        if style is None:
            try:
                style = detect_style(text, scan(text))
            except (JsonEditError, RecursionError):
                self.broken = True
                style = JsonStyle()
        self.style = style
        self.final_newline = text.endswith("\n")

    @classmethod
    def new(cls, value: Any, style: JsonStyle) -> JsonDoc:
        return cls(style.dumps(value) + "\n", value, style)

    # ------------------------------------------------------------ reading

    def get(self, path: PathT) -> Any:
        node = self.value
        for part in path:
            node = node[part]
        return node

    def has(self, path: PathT) -> bool:
        try:
            self.get(path)
        except (KeyError, IndexError, TypeError):
            return False
        return True

    def _line_indent(self, offset: int) -> str:
        start = self.text.rfind("\n", 0, offset) + 1
        lead = self.text[start:offset]
        return lead if lead.strip() == "" else re.match(r"[ \t]*", lead).group()  # type: ignore[union-attr]

    # ------------------------------------------------------------ editing

    def _edit(self, apply_text: Any) -> None:
        if self.broken:
            return
        try:
            apply_text()
        except (JsonEditError, RecursionError, ValueError, KeyError, IndexError):
            self.broken = True

    def replace(self, path: PathT, value: Any) -> None:
        """Set the value at an existing path."""
        parent = self.get(path[:-1])
        parent[path[-1]] = copy.deepcopy(value)

        def text_edit() -> None:
            start, end = _locate(self.text, path)
            one_line = "\n" not in self.text[start:end]
            new = self.style.inline(value) if one_line else self.style.dumps(value, self._line_indent(start))
            self.text = self.text[:start] + new + self.text[end:]

        self._edit(text_edit)

    def rename(self, path: PathT, new_key: str) -> None:
        """Rename the member at `path` (keeping its place)."""
        parent = self.get(path[:-1])
        items = [(new_key if k == path[-1] else k, v) for k, v in parent.items()]
        parent.clear()
        parent.update(items)

        def text_edit() -> None:
            start, _ = _locate(self.text, path[:-1])
            member = [m for m in _members(self.text, start) if m[0] == path[-1]][-1]
            self.text = self.text[: member[1]] + self.style.scalar(new_key) + self.text[member[2] :]

        self._edit(text_edit)

    def insert(
        self, obj_path: PathT, key: str, value: Any, before: str | None = None, after: str | None = None
    ) -> None:
        """Add a member to the object at `obj_path`: before or after a sibling, else last."""
        obj = self.get(obj_path)
        keys = list(obj)
        if before in obj:
            index = keys.index(before)
        elif after in obj:
            index = keys.index(after) + 1
        else:
            index = len(keys)
        items = list(obj.items())
        items.insert(index, (key, copy.deepcopy(value)))
        obj.clear()
        obj.update(items)

        def text_edit() -> None:
            start, end = _locate(self.text, obj_path)
            members = _members(self.text, start)
            inline = "\n" not in self.text[start:end] and (bool(members) or obj_path != ())
            if members:
                member_indent = self._line_indent(members[0][1])
            else:
                member_indent = self._line_indent(start) + self.style.indent
            body = self.style.inline(value) if inline else self.style.dumps(value, member_indent)
            member = f"{self.style.scalar(key)}: {body}"
            sep = " " if inline else "\n" + member_indent
            if not members:
                inner = member if inline else f"\n{member_indent}{member}\n{self._line_indent(start)}"
                self.text = self.text[: start + 1] + inner + self.text[end - 1 :]
            elif index < len(members):
                at = members[index][1]
                self.text = self.text[:at] + member + "," + sep + self.text[at:]
            else:
                at = members[-1][4]
                self.text = self.text[:at] + "," + sep + member + self.text[at:]

        self._edit(text_edit)

    # ------------------------------------------------------------ result

    def finish(self) -> tuple[str, bool]:
        """(text, reformatted): the edited text, or the whole value re-serialised if the edits went wrong."""
        if not self.broken:
            try:
                back = json.loads(self.text)
            except ValueError:
                back = None
            if back is not None and json.dumps(back, sort_keys=False) == json.dumps(self.value, sort_keys=False):
                return self.text, False
        text = self.style.dumps(self.value)
        return text + ("\n" if self.final_newline else ""), True
