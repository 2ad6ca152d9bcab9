"""sourcemap: 1-based positions of values and keys in YAML and JSON, frontmatter offsets, syntax errors."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
import yaml
from modkit import pos

from cogtui.core.files.decoding import decode_bytes
from cogtui.core.files.json_scan import offset_to_position
from cogtui.core.files.sourcemap import ParseFailure, load_file, parse_json, parse_yaml, split_frontmatter

P = Path("/virtual/file")

YAML_DOC = """\
# a comment first
name: demo
nested:
  inner:
    deep: value-deep
  list:
    - first
    - key: in-item
      other: 42
    - [flow-a, flow-b]
flow: {x: 1, y: flow-y}
block: |
  line one
  line two
quoted: "a: b"
"""


@pytest.mark.parametrize(
    ("parts", "key", "needle", "after"),
    [
        ((), False, "name:", ()),  # the root mapping starts at its first key, after the comment
        (("name",), False, "demo", ()),
        (("name",), True, "name", ()),
        (("nested", "inner", "deep"), False, "value-deep", ()),
        (("nested", "inner", "deep"), True, "deep:", ()),
        (("nested", "list", 0), False, "first", ("list:",)),
        (("nested", "list", 1), False, "key: in-item", ()),
        (("nested", "list", 1, "other"), False, "42", ()),
        (("nested", "list", 1, "other"), True, "other", ()),
        (("nested", "list", 2, 1), False, "flow-b", ()),
        (("flow", "y"), False, "flow-y", ()),
        (("flow", "y"), True, "y:", ("flow:",)),
        (("block",), False, "|", ()),
        (("quoted",), False, '"a: b"', ()),
    ],
)
def test_yaml_positions(parts: tuple[str | int, ...], key: bool, needle: str, after: tuple[str, ...]) -> None:
    src = parse_yaml(YAML_DOC, P)
    assert src.locate(parts, key=key) == pos(YAML_DOC, needle, *after)


def test_yaml_missing_path_falls_back_to_deepest_ancestor() -> None:
    src = parse_yaml(YAML_DOC, P)
    assert src.locate(("nested", "inner", "nope")) == pos(YAML_DOC, "deep:")  # the `inner` mapping
    assert src.locate(("nested", "list", 99)) == pos(YAML_DOC, "- first")
    assert src.locate(("name", "x")) == pos(YAML_DOC, "demo")


def test_yaml_line_offset_shifts_lines_only() -> None:
    src = parse_yaml("a: 1\nb:\n  c: here\n", P, line_offset=4)
    assert src.locate(("b", "c")) == (3 + 4, 6)


def test_yaml_unicode_columns_count_characters() -> None:
    text = "desc: 日本語 😀\nlist: [é, 😀, target]\n"
    src = parse_yaml(text, P)
    assert src.locate(("list", 2)) == pos(text, "target")


def test_yaml_crlf_positions() -> None:
    text = "a: 1\r\nb:\r\n  c: here\r\n"
    assert parse_yaml(text, P).locate(("b", "c")) == (3, 6)


JSON_DOC = r"""{
  "a\"}": "x]}{[\"",
  "b": [ "[", {"c": "}", "d": [1, [2, 3], {"e\\": null}]} ],
	"tab": {"k\u0041y": "unicode-key"},
  "f": {"g": {}},
  "sameval": "b",
  "last": true
}"""


@pytest.mark.parametrize(
    ("parts", "key", "needle", "after"),
    [
        ((), False, "{", ()),
        (('a"}',), False, r'"x]}{[\""', ()),
        (('a"}',), True, r'"a\"}"', ()),
        (("b",), False, "[", ('"b": ',)),
        (("b", 0), False, '"["', ()),
        (("b", 1), False, '{"c"', ()),
        (("b", 1, "d"), False, "[1", ()),
        (("b", 1, "d", 1, 1), False, "3", ("[2, ",)),
        (("b", 1, "d", 2), False, '{"e', ()),
        (("b", 1, "d", 2, "e\\"), False, "null", ()),
        (("b", 1, "d", 2, "e\\"), True, r'"e\\"', ()),
        (("tab", "kAy"), False, '"unicode-key"', ()),
        (("tab", "kAy"), True, r'"k\u0041y"', ()),
        (("f", "g"), False, "{}", ()),
        (("sameval",), True, '"sameval"', ()),
        (("last",), False, "true", ()),
    ],
)
def test_json_positions(parts: tuple[str | int, ...], key: bool, needle: str, after: tuple[str, ...]) -> None:
    assert json.loads(JSON_DOC)  # the document itself is valid JSON
    src = parse_json(JSON_DOC, P)
    assert src.locate(parts, key=key) == pos(JSON_DOC, needle, *after)


def test_json_missing_path_falls_back_to_deepest_ancestor() -> None:
    src = parse_json(JSON_DOC, P)
    assert src.locate(("f", "g", "h")) == pos(JSON_DOC, "{}")
    assert src.locate(("b", 7)) == pos(JSON_DOC, "[", '"b": ')
    assert src.locate(("nope", "x")) == (1, 1)


def test_json_crlf_and_scalar_root() -> None:
    text = '{\r\n  "x": {\r\n    "y": 7\r\n  }\r\n}\r\n'
    assert parse_json(text, P).locate(("x", "y")) == (3, 10)
    assert parse_json("  42", P).locate(()) == (1, 3)


# ---------------------------------------------------------------- frontmatter


def test_split_frontmatter() -> None:
    text = "---\nname: x\nversion: 1.0.0\n---\n# Body\nline\n"
    parts = split_frontmatter(text)
    assert parts is not None
    yaml_text, body, body_line = parts
    assert yaml_text == "name: x\nversion: 1.0.0"
    assert body == "# Body\nline\n"
    assert body_line == 5
    assert text.split("\n")[body_line - 1] == "# Body"


def test_split_frontmatter_variants() -> None:
    assert split_frontmatter("# no frontmatter\n") is None
    assert split_frontmatter("---\nname: x\n") is None  # never closed
    assert split_frontmatter("---\r\nname: x\r\n...\r\nbody") is not None  # CRLF and the '...' end marker
    assert split_frontmatter("\n---\nname: x\n---\n") is None  # must start on the first line


def test_frontmatter_positions_are_file_lines(tmp_path: Path) -> None:
    text = "---\nname: x\nversion: '1.0'\nlist:\n  - a\n  - target\n---\nbody\n"
    parts = split_frontmatter(text)
    assert parts is not None
    yaml_text, _, _ = parts
    src = parse_yaml(yaml_text, P, line_offset=1)
    assert src.locate(("version",)) == pos(text, "'1.0'")
    assert src.locate(("list", 1)) == pos(text, "target")


def test_frontmatter_syntax_error_line_is_a_file_line() -> None:
    text = "---\nname: x\nbad: : :\n---\n"
    parts = split_frontmatter(text)
    assert parts is not None
    yaml_text, _, _ = parts
    with pytest.raises(ParseFailure) as info:
        parse_yaml(yaml_text, P, line_offset=1)
    d = info.value.diagnostic
    assert d.code == "P001" and d.line == 3  # line 3 of the file, line 2 of the frontmatter


# ---------------------------------------------------------------- syntax errors


def _yaml_mark(text: str) -> tuple[int, int]:
    try:
        yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        assert mark is not None
        return mark.line + 1, mark.column + 1
    raise AssertionError("no YAML error")


@pytest.mark.parametrize(
    "text",
    [
        "name: mod\n\tversion: 1\n",  # a tab
        "a: b: c\n",  # an unquoted ': '
        "x: 1\ny: *undefined\n",
        "- a\nb: c\n",
    ],
)
def test_yaml_syntax_errors_use_the_parser_position(text: str) -> None:
    # Where the parser stops is where these problems are; tests/test_yaml_errors.py has the ones it is not.
    with pytest.raises(ParseFailure) as info:
        parse_yaml(text, P)
    d = info.value.diagnostic
    assert d.code == "P001" and d.file == P
    assert (d.line, d.column) == _yaml_mark(text)
    assert d.hint


def test_yaml_tab_hint() -> None:
    with pytest.raises(ParseFailure) as info:
        parse_yaml("a: 1\n\tb: 2\n", P)
    assert "tab" in info.value.diagnostic.hint


def test_yaml_python_tags_are_refused(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    text = f"name: !!python/object/apply:os.system ['touch {marker}']\n"
    with pytest.raises(ParseFailure) as info:
        parse_yaml(text, P)
    assert info.value.diagnostic.code == "P001"
    assert (info.value.diagnostic.line, info.value.diagnostic.column) == pos(text, "!!python")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("[" * 100_000, (1, 200)),
        ("- " * 50_000 + "x", (1, 399)),
        ("? " * 50_000 + "x", (1, 399)),
        ("a: " + "{x: " * 40_000, (1, 800)),
        ("# [[[[ a comment's brackets do not count\na: 1\nb:\n  c: " + "[" * 5000 + "]" * 5000 + "\n", (4, 204)),
        ("a: '[[[[['\nb: " + "[" * 5000 + "]" * 5000 + "\n", (2, 203)),  # nor a quoted string's
    ],
    ids=["flow-seq", "block-seq", "complex-key", "flow-map", "after-a-comment", "after-a-string"],
)
def test_yaml_deep_nesting_is_a_diagnostic_where_it_passes_200_levels(text: str, position: tuple[int, int]) -> None:
    # libyaml alone segfaults on these; the parser must turn them into P001, located where the nesting passes
    # 200 levels (the enclosing block lines count: `b:` at the top is one level, `c:` under it two).
    with pytest.raises(ParseFailure) as info:
        parse_yaml(text, P)
    d = info.value.diagnostic
    assert (d.code, d.message) == ("P001", "YAML nested too deeply: over 200 levels here")
    assert (d.line, d.column) == position


@pytest.mark.parametrize("prefix", ["", "[" * 2500 + "]" * 2500 + "\n"], ids=["libyaml", "pure-python"])
def test_yaml_control_character_position(prefix: str) -> None:
    # Both loaders refuse control characters; the position counts characters, not UTF-8 bytes.
    text = prefix + "a: 1\nb: éé😀\x01y\n"
    with pytest.raises(ParseFailure) as info:
        parse_yaml(text, P)
    d = info.value.diagnostic
    assert (d.code, d.line, d.column) == ("P001", *pos(text, "\x01"))


def test_yaml_moderate_nesting_still_parses() -> None:
    text = "a: " + "[" * 500 + "]" * 500 + "\n"
    assert parse_yaml(text, P).value is not None


@pytest.mark.parametrize(
    "text",
    ['{"a": 1,}', "{'a': 1}", '{"a": 1} {"b": 2}', '{\n  "a": 1\n  "b": 2\n}', "[1, 2", '{"a": "unterminated}', ""],
)
def test_json_syntax_errors_use_the_parser_position(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(ParseFailure) as info:
        parse_json(text, P)
    d = info.value.diagnostic
    assert d.code == "P002" and d.file == P
    assert (d.line, d.column) == (expected.value.lineno, expected.value.colno)


def test_json_deep_nesting_is_a_diagnostic_where_it_passes_200_levels() -> None:
    text = '{\n  "a": "[[[[ a string\'s brackets do not count",\n  "b": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ParseFailure) as info:
        parse_json(text, P)
    d = info.value.diagnostic
    assert (d.code, d.message, d.line, d.column) == ("P002", "JSON nested too deeply: over 200 levels here", 3, 207)


# ---------------------------------------------------------------- bytes and files


def test_decode_bytes_encodings() -> None:
    text = "name: é\n"
    assert decode_bytes(text.encode(), P) == text
    assert decode_bytes(codecs.BOM_UTF8 + text.encode(), P) == text
    assert decode_bytes(text.encode("utf-16"), P) == text  # with its BOM
    assert decode_bytes(codecs.BOM_UTF16_BE + text.encode("utf-16-be"), P) == text
    assert decode_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"), P) == text


def test_decode_bytes_invalid_utf8_position() -> None:
    raw = "line one\nab日".encode() + b"\xc3\x28 rest\n"
    with pytest.raises(ParseFailure) as info:
        decode_bytes(raw, P)
    d = info.value.diagnostic
    assert (d.code, d.line, d.column) == ("P005", 2, 4)
    assert "0xc3" in d.message


def test_decode_bytes_invalid_utf8_on_first_byte() -> None:
    with pytest.raises(ParseFailure) as info:
        decode_bytes(b"\x80abc", P)
    assert (info.value.diagnostic.line, info.value.diagnostic.column) == (1, 1)


def test_decode_bytes_truncated_utf16() -> None:
    with pytest.raises(ParseFailure) as info:
        decode_bytes(codecs.BOM_UTF16_LE + b"a\x00b", P)
    assert info.value.diagnostic.code == "P005"


def test_load_file_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ParseFailure) as info:
        load_file(tmp_path / "nope.json", "json")
    d = info.value.diagnostic
    assert (d.code, d.line, d.column) == ("P003", None, None)
    with pytest.raises(ParseFailure) as info:
        load_file(tmp_path, "json")
    assert info.value.diagnostic.code == "P003"


def test_load_file_bom_keeps_positions(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    text = '{\n  "a": {"b": 5}\n}'
    target.write_bytes(codecs.BOM_UTF8 + text.encode())
    src = load_file(target, "json")
    assert src.locate(("a", "b")) == pos(text, "5")
    target.write_bytes(text.encode("utf-16"))
    assert load_file(target, "json").locate(("a", "b")) == pos(text, "5")


def test_offset_to_position() -> None:
    text = "ab\ncd\n\nef"
    assert offset_to_position(text, 0) == (1, 1)
    assert offset_to_position(text, 4) == (2, 2)
    assert offset_to_position(text, 6) == (3, 1)
    assert offset_to_position(text, 8) == (4, 2)
