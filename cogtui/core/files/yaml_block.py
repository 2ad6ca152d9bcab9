"""The plain block YAML most manifests are written in, read without PyYAML when the reading cannot differ.

Importing PyYAML (and composing its node tree) would be the largest single cost of a
one-module `cogn validate` (bench/ab_installs.py weighs it). A manifest made only of block mappings
and sequences, one-line plain or simply quoted scalars, one-line flow
sequences of plain scalars and comments is read here, with the same value and
the same positions (line and column of every key and value) as PyYAML's safe
loader gives (tests/test_yaml_block.py compares the two on generated
documents and on every manifest in the repository). Anything else (anchors,
tags, block scalars, multi-line scalars, flow mappings, escapes, timestamps,
YAML 1.1 numbers other than plain decimals, a tab, a character YAML refuses,
an error of any kind) returns None and PyYAML decides, so errors are always
PyYAML's.
"""

from __future__ import annotations

import re
from typing import Any

# The implicit types of YAML 1.1 (PyYAML's resolver): a plain scalar matching one is not a string.
_BOOL = {"yes": True, "Yes": True, "YES": True, "no": False, "No": False, "NO": False}
_BOOL |= {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_BOOL |= {"on": True, "On": True, "ON": True, "off": False, "Off": False, "OFF": False}
_NULL = {"~", "null", "Null", "NULL"}
_INT = re.compile(
    r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_FLOAT = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_TIMESTAMP = re.compile(r"[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt ].*)?")
_NUMBER_START = frozenset("-+.0123456789")
_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_PLAIN_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*")
# Characters that cannot start a plain scalar (or start something this reader leaves to PyYAML).
_INDICATORS = frozenset("?:,[]{}#&*!|>'\"%@`")
# Only \n line breaks and characters PyYAML reads the same everywhere (no NEL, LS, PS, BOM, controls): the
# complement of [\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff], written
# as the few characters it leaves out (the negated class, with its large ranges, is slow to compile).
_UNSUPPORTED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_KEY_LIMIT = 1024  # PyYAML refuses a simple key longer than this
_MAX_DEPTH = 64


class Unsupported(Exception):
    """Outside what this reader reads exactly like PyYAML: PyYAML decides."""


class BlockNode:
    """A node with PyYAML's start mark (0-based line and column): 'map' (value: [(key node, value node)]),
    'seq' (value: [node]) or 'scalar' (value: the scalar's text)."""

    __slots__ = ("column", "kind", "line", "value")

    def __init__(self, kind: str, value: Any, line: int, column: int) -> None:
        self.kind, self.value, self.line, self.column = kind, value, line, column


def block_yaml(text: str) -> tuple[Any, BlockNode] | None:
    """(value, root node) when `text` is block YAML this reader reads exactly as PyYAML would; else None."""
    if _UNSUPPORTED.search(text):
        return None
    if re.search(r"^(?:---|\.\.\.)", text, re.MULTILINE):
        return None  # a document marker (or a scalar starting like one): PyYAML's
    lines = [(n, len(raw) - len(raw.lstrip(" ")), raw) for n, raw in enumerate(text.split("\n"))]
    body = [(n, indent, raw) for n, indent, raw in lines if raw.strip() and not raw.lstrip(" ").startswith("#")]
    if not body or body[0][1] != 0:
        return None
    try:
        reader = _Reader(body)
        value, node = reader.block(0, 0, 0)
        if reader.pos != len(body):
            return None
    except (Unsupported, RecursionError):
        return None
    return value, node


class _Reader:
    def __init__(self, body: list[tuple[int, int, str]]) -> None:
        self.body = body  # (line number, indent, text) of each line holding something
        self.pos = 0

    def block(self, indent: int, column: int, depth: int) -> tuple[Any, BlockNode]:
        """The block (mapping or sequence) whose first line is the current one, at `indent`."""
        if depth > _MAX_DEPTH:
            raise Unsupported
        _n, _indent, raw = self.body[self.pos]
        content = raw[column:]
        if content == "-" or content.startswith("- "):
            return self.sequence(indent, column, depth)
        return self.mapping(indent, column, depth)

    def mapping(self, indent: int, column: int, depth: int) -> tuple[dict[Any, Any], BlockNode]:
        pairs: list[tuple[BlockNode, BlockNode]] = []
        value: dict[Any, Any] = {}
        while self.pos < len(self.body):
            n, line_indent, raw = self.body[self.pos]
            if pairs:  # the first line may be a sequence item's ("- key: value"), whose key is not at its indent
                if line_indent < indent:
                    break
                if line_indent > indent:
                    raise Unsupported
                column = indent
            content = _strip_comment(raw[column:])
            sep = _key_separator(content)
            if sep < 0:
                raise Unsupported
            key_text = content[:sep].rstrip(" ")
            if not key_text or len(key_text) > _KEY_LIMIT or not isinstance(_plain(key_text), str):
                raise Unsupported
            if key_text in value:
                raise Unsupported  # a repeated key: PyYAML's reading says P008 (FMT-5)
            key_node = BlockNode("scalar", key_text, n, column)
            rest = content[sep + 1 :]
            self.pos += 1
            if rest.strip(" "):
                start = column + sep + 1 + (len(rest) - len(rest.lstrip(" ")))
                item, node = _scalar_or_flow(rest.strip(" "), n, start)
                self.no_continuation(indent)
            else:
                item, node = self.nested(indent, depth, same_indent_sequence=True)
            pairs.append((key_node, node))
            value[key_text] = item
        first = pairs[0][0]
        return value, BlockNode("map", pairs, first.line, first.column)

    def sequence(self, indent: int, column: int, depth: int) -> tuple[list[Any], BlockNode]:
        first_line, first_column = self.body[self.pos][0], column
        items: list[Any] = []
        nodes: list[BlockNode] = []
        while self.pos < len(self.body):
            n, line_indent, raw = self.body[self.pos]
            if nodes:
                if line_indent < indent:
                    break
                if line_indent > indent:
                    raise Unsupported
                column = indent
            content = raw[column:]
            if not (content == "-" or content.startswith("- ")):
                if nodes and line_indent == indent:
                    break  # a key after a sequence written at its key's indent ("key:" / "- a" / "next: 1")
                raise Unsupported
            rest = _strip_comment(content[1:])
            inner = rest.strip(" ")
            if not inner:
                self.pos += 1
                item, node = self.nested(indent, depth, same_indent_sequence=False)
            elif inner.startswith("-"):
                raise Unsupported  # a sequence in a sequence on one line, or a plain scalar starting with -
            elif _key_separator(inner) >= 0:
                start = column + 1 + (len(rest) - len(rest.lstrip(" ")))
                item, node = self.mapping(start, start, depth + 1)  # "- key: value": a mapping at its key
            else:
                start = column + 1 + (len(rest) - len(rest.lstrip(" ")))
                self.pos += 1
                item, node = _scalar_or_flow(inner, n, start)
                self.no_continuation(indent)
            items.append(item)
            nodes.append(node)
        return items, BlockNode("seq", nodes, first_line, first_column)

    def nested(self, indent: int, depth: int, same_indent_sequence: bool) -> tuple[Any, BlockNode]:
        """The value on the lines after `key:` or `-`: a more indented block, or (after a key) a sequence at
        the key's own indent."""
        if self.pos >= len(self.body):
            raise Unsupported  # an empty value: null, at a mark this reader does not reproduce
        _n, line_indent, raw = self.body[self.pos]
        item_here = raw[indent:] == "-" or raw[indent:].startswith("- ")
        if line_indent < indent or (line_indent == indent and not (same_indent_sequence and item_here)):
            raise Unsupported
        return self.block(line_indent, line_indent, depth + 1)

    def no_continuation(self, indent: int) -> None:
        """A more indented line after a one-line value would continue it (a multi-line scalar): not read here."""
        if self.pos < len(self.body) and self.body[self.pos][1] > indent:
            raise Unsupported


def _strip_comment(content: str) -> str:
    """The text before a comment (` #`); quoted text holding `#` or quotes is left to PyYAML."""
    cut = content.find(" #")
    if cut >= 0:
        content = content[:cut]
    return content.rstrip(" ")


def _key_separator(content: str) -> int:
    """Index of the `:` that ends a plain key (`: ` or a final `:`), else -1."""
    if not content or content[0] in _INDICATORS or content.startswith("- ") or content == "-":
        return -1
    at = content.find(": ")
    if at < 0 and content.endswith(":"):
        at = len(content) - 1
    return at


def _scalar_or_flow(text: str, line: int, column: int) -> tuple[Any, BlockNode]:
    if text.startswith("["):
        return _flow_sequence(text, line, column)
    return _scalar(text, line, column), BlockNode("scalar", text, line, column)


def _scalar(text: str, line: int, column: int) -> Any:
    if text[0] == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise Unsupported
        return inner.replace("''", "'")
    if text[0] == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            raise Unsupported
        return inner
    if ": " in text or text.endswith(":") or " #" in text or "\t" in text:
        raise Unsupported
    return _plain(text)


def _plain(text: str) -> Any:
    """A one-line plain scalar's value under YAML 1.1 (PyYAML's resolver), or Unsupported."""
    if text[0] in _INDICATORS or (text[0] == "-" and (len(text) == 1 or text[1] == " ")):
        raise Unsupported
    if text in _BOOL:
        return _BOOL[text]
    if text in _NULL:
        return None
    if text in ("<<", "="):
        raise Unsupported
    if text[0] not in _NUMBER_START:  # YAML 1.1 numbers and timestamps start with a digit, a sign or a dot
        return text
    if _INT.fullmatch(text):
        if _PLAIN_INT.fullmatch(text) and not (len(text.lstrip("+-")) > 1 and text.lstrip("+-")[0] == "0"):
            return int(text)
        raise Unsupported
    if _FLOAT.fullmatch(text):
        if _PLAIN_FLOAT.fullmatch(text):
            return float(text)
        raise Unsupported
    if _TIMESTAMP.fullmatch(text):
        raise Unsupported
    return text


def _flow_sequence(text: str, line: int, column: int) -> tuple[list[Any], BlockNode]:
    """`[a, b]` of plain scalars on one line; anything richer is PyYAML's."""
    if not text.endswith("]") or any(c in text[1:-1] for c in "[]{}'\"#&*!|>%@`?"):
        raise Unsupported
    items: list[Any] = []
    nodes: list[BlockNode] = []
    inner = text[1:-1]
    if inner.strip():
        offset = column + 1
        for piece in inner.split(","):
            item = piece.strip(" ")
            if not item or ":" in item:
                raise Unsupported
            at = offset + (len(piece) - len(piece.lstrip(" ")))
            items.append(_plain(item))
            nodes.append(BlockNode("scalar", item, line, at))
            offset += len(piece) + 1
    return items, BlockNode("seq", nodes, line, column)
