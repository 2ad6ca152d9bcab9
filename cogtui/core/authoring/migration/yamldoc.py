"""Edit a YAML manifest as text, one top-level block at a time.

A block is a top-level key with its value, the comment lines directly above
it and the blank or column-0 comment lines after it. Edits replace a block's
key-and-value lines or insert a new block after another, so every other line
(comments, key order, unknown fields, quoting) is kept as written. The parsed
value of the result is checked against the value the edits meant to produce;
if they ever disagree, the manifest is re-dumped instead (and the caller says
so in the plan's notes).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from cogtui.core.files.sourcemap import ParseFailure, parse_yaml

# Where new top-level keys go: after the latest present key that precedes them here (SPEC-v2.2 §1.4, v2.5 §2.2).
ORDER = (
    "name",
    "version",
    "responsibility",
    "tier",
    "schema_strictness",
    "excludes",
    "policies",
    "constraints",
    "tools",
    "overflow",
    "enums",
    "failure",
    "runtime_requirements",
    "io",
    "compat",
    "tests",
    "response",
    "modalities",
)
_PLAIN_UNSAFE = re.compile(r"^[\s\-?:,\[\]{}#&*!|>'\"%@`]|:\s|\s#|:$|\s$|\n")


# ---------------------------------------------------------------- emitting


@lru_cache(maxsize=1024)
def _plain_ok(text: str) -> bool:
    if not text or _PLAIN_UNSAFE.search(text):
        return False
    try:
        return bool(yaml.safe_load(f"k: {text}") == {"k": text})
    except yaml.YAMLError:
        return False


def yaml_scalar(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    text = str(value)
    # A JSON string is a valid YAML double-quoted scalar.
    return text if _plain_ok(text) else json.dumps(text, ensure_ascii=False)


def emit(key: str, value: Any, unit: str = "  ", level: int = 0) -> list[str]:
    """Block-style lines for `key: value`; lists of scalars below the top level are written in flow style."""
    pad = unit * level
    head = f"{pad}{yaml_scalar(key)}:"
    if isinstance(value, dict):
        if not value:
            return [head + " {}"]
        out = [head]
        for k, v in value.items():
            out += emit(str(k), v, unit, level + 1)
        return out
    if isinstance(value, list):
        if not value:
            return [head + " []"]
        if all(not isinstance(v, (dict, list)) for v in value):
            if level > 0:
                return [f"{head} [{', '.join(yaml_scalar(v) for v in value)}]"]
            return [head] + [f"{pad}{unit}- {yaml_scalar(v)}" for v in value]
        dumped = yaml.safe_dump(
            {key: value}, sort_keys=False, allow_unicode=True, default_flow_style=False, indent=len(unit) or 2
        )
        return [pad + line for line in dumped.rstrip("\n").split("\n")]
    return [f"{head} {yaml_scalar(value)}"]


def with_comment(content: str, comment: str | None, column: int | None) -> str:
    """A line with a trailing comment, at the comment's old column when the content still fits before it."""
    if not comment:
        return content
    if column is not None and len(content) < column:
        return content.ljust(column) + comment
    return f"{content}  {comment}"


# ---------------------------------------------------------------- reading entries


@dataclass(frozen=True)
class Entry:
    """One `key: value` of a block mapping, with the comments around it."""

    key: str
    value: Any
    lines: tuple[str, ...]  # the entry as written (key line through value end)
    comment: str | None = None  # trailing comment of a one-line entry
    comment_column: int | None = None
    leading: tuple[str, ...] = ()  # comment lines directly above the entry
    one_line: bool = True


@dataclass
class Block:
    key: str
    key_line: int
    content_end: int  # last line of the key and its value (inclusive)
    lead_start: int
    node: Any = field(repr=False, default=None)


def mapping_entries(lines: list[str], node: Any, value: dict[str, Any]) -> list[Entry] | None:
    """The entries of a block-style mapping node; None when the node is not one (flow style, or not a mapping)."""
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        return None
    out: list[Entry] = []
    prev_end = node.start_mark.line - 1
    pairs = node.value
    for index, (k, v) in enumerate(pairs):
        if not isinstance(k, yaml.ScalarNode):
            return None
        k_line = k.start_mark.line
        if isinstance(v, yaml.ScalarNode) or (isinstance(v, (yaml.MappingNode, yaml.SequenceNode)) and v.flow_style):
            end_line = v.end_mark.line
            one_line = end_line == k_line
        else:
            nxt = pairs[index + 1][0].start_mark.line if index + 1 < len(pairs) else node.end_mark.line
            end_line = min(nxt - 1, len(lines) - 1)
            one_line = False
        while end_line > k_line and (not lines[end_line].strip() or lines[end_line].lstrip().startswith("#")):
            end_line -= 1
        leading = [ln for ln in lines[prev_end + 1 : k_line] if ln.strip().startswith("#")]
        comment = column = None
        if one_line:
            rest = lines[k_line][v.end_mark.column :]
            if rest.strip().startswith("#"):
                column = v.end_mark.column + (len(rest) - len(rest.lstrip()))
                comment = rest.strip()
        out.append(
            Entry(
                str(k.value),
                value.get(k.value),
                tuple(lines[k_line : end_line + 1]),
                comment,
                column,
                tuple(leading),
                one_line,
            )
        )
        prev_end = end_line
    return out


def header_comment(line: str) -> str | None:
    """The comment after `key:` on a block's first line, if any."""
    m = re.match(r"^[^#]*?:\s+(#.*)$", line)
    return m.group(1) if m else None


# ---------------------------------------------------------------- the document


class YamlDoc:
    """A YAML document whose top level is a block mapping, edited block by block."""

    def __init__(self, text_lf: str, path: Path) -> None:
        self.path = path
        self.final_newline = text_lf.endswith("\n") or not text_lf
        self.lines = text_lf.split("\n")
        if text_lf.endswith("\n"):
            self.lines.pop()
        self.editable = True
        self._nodes_stale = False
        self.node: Any = None
        self.value: dict[str, Any] = {}
        self.blocks: list[Block] = []
        self._refresh()
        self.expected: list[tuple[str, Any]] = list(self.value.items())

    # ------------------------------------------------------------ parsing

    def _refresh(self) -> None:
        self._nodes_stale = False
        try:
            src = parse_yaml("\n".join(self.lines) + "\n", self.path, yaml_nodes=True)
        except ParseFailure:
            self.editable = False
            return
        node = self.node = src.node
        self.value = src.value if isinstance(src.value, dict) else {}
        self.blocks = []
        if node is None:
            return
        if not isinstance(node, yaml.MappingNode) or node.flow_style:
            self.editable = False
            return
        key_lines = [k.start_mark.line for k, _ in node.value]
        if any(k.start_mark.column != 0 or not isinstance(k, yaml.ScalarNode) for k, _ in node.value):
            self.editable = False
            return
        prev_end = -1
        for i, (k, v) in enumerate(node.value):
            nxt = key_lines[i + 1] if i + 1 < len(key_lines) else len(self.lines)
            end = nxt - 1
            while end > key_lines[i] and (not self.lines[end].strip() or self.lines[end].startswith("#")):
                end -= 1
            lead = key_lines[i]
            while lead - 1 > prev_end and self.lines[lead - 1].startswith("#"):
                lead -= 1
            self.blocks.append(Block(str(k.value), key_lines[i], end, lead, v))
            prev_end = end

    def block(self, key: str) -> Block | None:
        return next((b for b in reversed(self.blocks) if b.key == key), None)

    @property
    def indent_unit(self) -> str:
        for b in self.blocks:
            for line in self.lines[b.key_line + 1 : b.content_end + 1]:
                m = re.match(r"^( +)\S", line)
                if m and not line.lstrip().startswith("#"):
                    return m.group(1)
        return "  "

    @property
    def blank_separated(self) -> bool:
        return any(b.lead_start > 0 and not self.lines[b.lead_start - 1].strip() for b in self.blocks[1:])

    def _fresh_nodes(self) -> None:
        if self._nodes_stale and self.editable:
            self._refresh()

    def entries(self, key: str) -> list[Entry] | None:
        self._fresh_nodes()
        b = self.block(key)
        value = self.value.get(key)
        if b is None or not isinstance(value, dict):
            return None
        return mapping_entries(self.lines, b.node, value)

    def root_entries(self) -> list[Entry] | None:
        """The entries of the top-level mapping itself (a flat file such as v0 constraints.yaml)."""
        self._fresh_nodes()
        return mapping_entries(self.lines, self.node, self.value) if self.editable and self.node is not None else None

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.expected)

    # ------------------------------------------------------------ editing

    def _anchor(self, key: str) -> str | None:
        if key not in ORDER:
            return None
        before = set(ORDER[: ORDER.index(key)])
        present = [b for b in self.blocks if b.key in before]
        return max(present, key=lambda b: b.key_line).key if present else None

    def set_block(self, key: str, value: Any, lines: list[str] | None = None) -> None:
        """Replace `key`'s block (keeping the comments above and below it), or insert it where ORDER puts it."""
        lines = lines if lines is not None else emit(key, value, self.indent_unit)
        if self.has(key):
            self.replace_block(key, [(key, value, lines)])
        else:
            self.insert_blocks([(key, value, lines)])

    def insert_blocks(self, parts: list[tuple[str, Any, list[str]]], tight: bool = False) -> None:
        """Insert new blocks together where ORDER puts the first; `tight` leaves no blank line between them."""
        anchor = self._anchor(parts[0][0])
        keys = [k for k, _ in self.expected]
        pos = keys.index(anchor) + 1 if anchor in keys else len(keys)
        self.expected[pos:pos] = [(k, copy.deepcopy(v)) for k, v, _ in parts]
        if not self.editable:
            return
        sep = [""] if self.blank_separated else []
        if anchor is not None:
            at = self.block(anchor).content_end + 1  # type: ignore[union-attr]
        else:
            at = len(self.lines)
            while at > 0 and not self.lines[at - 1].strip():
                at -= 1
        new: list[str] = []
        for i, (_, _, lines) in enumerate(parts):
            new += ([] if tight and i else sep) + lines
        if at == 0:
            new = new[len(sep) :]
        self.lines[at:at] = new
        self._shift_after_insert(at, new, parts)

    def _shift_after_insert(self, at: int, new: list[str], parts: list[tuple[str, Any, list[str]]]) -> None:
        """Update block positions for lines inserted at `at` without re-parsing (finish() re-parses to check)."""
        n = len(new)
        for b in self.blocks:
            if b.lead_start >= at:
                b.key_line, b.content_end, b.lead_start = b.key_line + n, b.content_end + n, b.lead_start + n
        index = sum(1 for b in self.blocks if b.lead_start < at)
        line = at
        added: list[Block] = []
        offsets = iter(range(len(new)))
        for key, value, lines in parts:
            for i in offsets:  # the block starts at its first line in `new`
                if new[i : i + len(lines)] == lines:
                    line = at + i
                    break
            added.append(Block(key, line, line + len(lines) - 1, line, None))
            self.value[key] = copy.deepcopy(value)
        self.blocks[index:index] = added
        self._nodes_stale = True  # node marks still hold the old line numbers

    def replace_block(self, key: str, parts: list[tuple[str, Any, list[str]]]) -> None:
        """Replace `key: value` by one or more blocks (e.g. constraints by policies and constraints)."""
        keys = [k for k, _ in self.expected]
        pos = keys.index(key)
        self.expected[pos : pos + 1] = [(k, copy.deepcopy(v)) for k, v, _ in parts]
        if not self.editable:
            return
        b = self.block(key)
        if b is None:
            self.editable = False
            return
        sep = [""] if self.blank_separated else []
        new: list[str] = []
        for i, (_, _, lines) in enumerate(parts):
            new += (sep if i else []) + lines
        self.lines[b.key_line : b.content_end + 1] = new
        self._refresh()

    # ------------------------------------------------------------ result

    def finish(self) -> tuple[str, bool]:
        """(text, reformatted). Re-dumps the whole mapping if the text edits did not give the intended value."""
        expected = dict(self.expected)
        if self.editable:
            text = "\n".join(self.lines) + ("\n" if self.final_newline else "")
            try:
                back = parse_yaml(text, self.path).value
            except ParseFailure:
                back = None
            if isinstance(back, dict) and back == expected and list(back) == list(expected):
                return text, False
        dumped = yaml.safe_dump(expected, sort_keys=False, allow_unicode=True, default_flow_style=False)
        return dumped, True
