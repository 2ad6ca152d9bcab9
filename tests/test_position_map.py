"""The position map (core/files/positions.py): every value's position as the path-walking locator it replaced
gave it, the ranges of values and keys, and the path at a position (what a language server asks)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from modkit import pos

from cogtui.core.files.positions import JsonPositions
from cogtui.core.files.sourcemap import parse_json, parse_yaml

P = Path("/virtual/file.json")

# ---------------------------------------------------------------- the oracle: the locator the map replaced

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_STRUCT = re.compile(r'["\[\]{}]')


def end_of(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where `pattern`, which matches at every place the oracle asks, ends when it matches at `at`."""
    m = pattern.match(text, at)
    assert m is not None
    return m.end()


def _skip(text: str, i: int) -> int:
    ch = text[i : i + 1]
    if ch == '"':
        return end_of(_STRING, text, i)
    if ch in ("{", "["):
        depth, at = 0, i
        while True:
            m = _STRUCT.search(text, at)
            assert m is not None
            if m.group() == '"':
                at = end_of(_STRING, text, m.start())
                continue
            depth += 1 if m.group() in "[{" else -1
            at = m.end()
            if depth == 0:
                return at
    return end_of(_SCALAR, text, i)


def oracle(text: str, parts: Sequence[Any], key: bool) -> tuple[int, int]:
    """The path-walking locator of JSON text that rescanned the file for each question (json_scan.json_locate
    until issue 31), kept here as the reference the map must agree with."""
    ws = lambda at: end_of(_WS, text, at)  # noqa: E731
    i = ws(0)
    for index, part in enumerate(parts):
        last, ch, found = index == len(parts) - 1, text[i : i + 1], None
        if ch == "{":
            j = ws(i + 1)
            while text[j : j + 1] == '"':
                m = _STRING.match(text, j)
                assert m is not None
                k_start, j = j, ws(ws(m.end()) + 1)
                if json.loads(m.group()) == str(part):
                    found = k_start if (last and key) else j
                j = ws(_skip(text, j))
                if text[j : j + 1] == ",":
                    j = ws(j + 1)
        elif ch == "[" and isinstance(part, int):
            j, n = ws(i + 1), 0
            while text[j : j + 1] not in ("]", ""):
                if n == part:
                    found = j
                    break
                j = ws(_skip(text, j))
                if text[j : j + 1] == ",":
                    j = ws(j + 1)
                n += 1
        if found is None:
            break
        i = found
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


KEYS = st.text(alphabet='ab"\\{}[],: é中\n\t/\u2028', max_size=5)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False), KEYS
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=25
)
LAYOUTS = st.sampled_from(
    [
        {"indent": None},
        {"indent": 2},
        {"indent": "\t"},
        {"indent": 1, "separators": (",", ":")},
        {"indent": None, "separators": (" , ", " :  ")},
    ]
)


@settings(max_examples=150, deadline=None)
@given(value=VALUES, layout=LAYOUTS, ascii_only=st.booleans(), crlf=st.booleans(), lead=st.sampled_from(["", "  \n"]))
def test_json_positions_agree_with_the_old_locator(
    value: Any, layout: dict[str, Any], ascii_only: bool, crlf: bool, lead: str
) -> None:
    text = lead + json.dumps(value, ensure_ascii=ascii_only, **layout)
    if crlf:
        text = text.replace("\n", "\r\n")
    src = parse_json(text, P)
    for where in paths(value):
        for asked in (where, (*where, "missing"), (*where, 0), (*where, 10**6)):
            for key in (False, True):
                assert src.locate(asked, key) == oracle(text, asked, key), (text, asked, key)


def test_a_repeated_key_is_its_last_occurrence_as_json_keeps_it() -> None:
    text = '{"a": {"x": 1}, "b": 2, "a": {"y": [3]}}'
    positions = JsonPositions(text)
    for asked in (("a",), ("a", "y", 0), ("a", "x"), ("a", "y", 5)):
        for key in (False, True):
            assert positions.position(asked, key) == oracle(text, asked, key)
    assert positions.position(("a", "x")) == pos(text, '{"y"')  # not the first `a`'s member


# ---------------------------------------------------------------- ranges and the path at a position


def _slice(text: str, span: tuple[tuple[int, int], tuple[int, int]]) -> str:
    lines = text.split("\n")
    (line, col), (end_line, end_col) = span
    if line == end_line:
        return lines[line - 1][col - 1 : end_col - 1]
    return "\n".join([lines[line - 1][col - 1 :], *lines[line : end_line - 1], lines[end_line - 1][: end_col - 1]])


JSON_DOC = """{
  "name": "demo",
  "list": [1, {"deep": [true, null]}, "x\\"y"],
  "empty": {}
}"""


def test_json_ranges_cover_each_value_and_key() -> None:
    src = parse_json(JSON_DOC, P)
    for where in paths(src.value):
        value_range = src.positions.value_range(where)
        assert value_range is not None
        assert json.loads(_slice(JSON_DOC, value_range)) == _at(src.value, where)
        key_range = src.positions.key_range(where)
        if where and isinstance(where[-1], str):
            assert key_range is not None and json.loads(_slice(JSON_DOC, key_range)) == where[-1]
        else:
            assert key_range is None
    assert src.positions.value_range(("list", 7)) is None and src.positions.key_range(("nope",)) is None


def _at(value: Any, where: tuple[Any, ...]) -> Any:
    for part in where:
        value = value[part]
    return value


@pytest.mark.parametrize(
    ("needle", "path"),
    [
        ('"demo"', ("name",)),
        ("name", ("name",)),  # on the key: the path of its value
        ("[1,", ("list",)),
        ("1,", ("list", 0)),
        ("true", ("list", 1, "deep", 0)),
        ("null", ("list", 1, "deep", 1)),
        ('y"', ("list", 2)),
        ("{}", ("empty",)),
        ("{\n", ()),
    ],
)
def test_json_pointer_at_a_position(needle: str, path: tuple[Any, ...]) -> None:
    src = parse_json(JSON_DOC, P)
    assert src.positions.pointer_at(*pos(JSON_DOC, needle)) == path


def test_json_pointer_outside_the_document_is_the_root_or_nothing() -> None:
    positions = parse_json(JSON_DOC, P).positions
    assert positions.pointer_at(99, 1) == () and positions.pointer_at(5, 50) == ()


YAML_BLOCK = """\
name: demo   # a comment
list:
  - first
  - key: value
    flow: [a, bb]
last: 'quoted'
"""
YAML_RICH = YAML_BLOCK + "anchor: &a {x: 1}\nalias: *a\nblock: |\n  text\n"


@pytest.mark.parametrize("text", [YAML_BLOCK, YAML_RICH], ids=["block reader", "PyYAML"])
def test_yaml_ranges_and_pointer(text: str) -> None:
    src = parse_yaml(text, Path("m.yaml"))
    assert (src.node is not None) and (type(src.node).__name__ == "BlockNode") == (text is YAML_BLOCK)
    positions = src.positions
    assert _slice(text, positions.value_range(("name",)) or ((0, 0), (0, 0))) == "demo"
    assert _slice(text, positions.key_range(("list", 1, "flow")) or ((0, 0), (0, 0))) == "flow"
    assert _slice(text, positions.value_range(("list", 1, "flow")) or ((0, 0), (0, 0))) == "[a, bb]"
    assert _slice(text, positions.value_range(("list", 1, "flow", 1)) or ((0, 0), (0, 0))) == "bb"
    assert _slice(text, positions.value_range(("last",)) or ((0, 0), (0, 0))) == "'quoted'"
    assert positions.pointer_at(*pos(text, "bb")) == ("list", 1, "flow", 1)
    assert positions.pointer_at(*pos(text, "value")) == ("list", 1, "key")
    assert positions.pointer_at(*pos(text, "key:")) == ("list", 1, "key")
    assert positions.pointer_at(*pos(text, "first")) == ("list", 0)
    assert positions.key_range(("list", 0)) is None and positions.value_range(("nope",)) is None


def test_yaml_pointer_through_an_alias_and_with_frontmatter_lines() -> None:
    src = parse_yaml(YAML_RICH, Path("m.yaml"))
    assert src.positions.pointer_at(*pos(YAML_RICH, "x: 1")) == ("anchor", "x")
    shifted = parse_yaml(YAML_BLOCK, Path("m.md"), line_offset=1)
    line, col = pos(YAML_BLOCK, "bb")
    assert shifted.positions.pointer_at(line + 1, col) == ("list", 1, "flow", 1)
    assert shifted.positions.value_range(("name",)) == ((2, 7), (2, 11))


def test_yaml_keys_that_are_not_strings_are_found_by_their_value() -> None:
    text = "codes:\n  0x7b: hex\n  124: dec\n  ~: nothing\n  yes: truth\n  1.5: float\n"
    src = parse_yaml(text, Path("m.yaml"))
    assert src.locate(("codes", 123), key=True) == pos(text, "0x7b")  # the key whose value is 123
    assert src.locate(("codes", 124), key=True) == pos(text, "124:")
    assert src.locate(("codes", "0x7b"), key=True) == pos(text, "0x7b")
    assert src.locate(("codes", None), key=True) == pos(text, "~:")
    assert src.locate(("codes", True), key=True) == pos(text, "yes:")
    assert src.locate(("codes", 1.5), key=True) == pos(text, "1.5:")
    assert src.locate(("codes", "124"), key=True) == pos(text, "124:")  # a string matches the key's text
    unhashable = ("codes", ["unhashable"])  # a path part no mapping key can be, given on purpose
    assert src.locate(unhashable, key=True) == pos(text, "0x7b")  # type: ignore[arg-type]  # no such key: the mapping
    assert src.written(("codes", None), key=True) == "~"
