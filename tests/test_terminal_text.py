"""The one terminal sanitiser: control and escape characters are shown escaped, nothing reaches a terminal raw."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.files.terminal_text import terminal_json, visible


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # retitle the window
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear the screen
        ("a\rb", "a\\rb"),  # overwrite what was printed
        ("\x9b31m", "\\x9b31m"),  # 8-bit CSI
        ("abc\u202egnp.exe", "abc\\u202egnp.exe"),  # bidi override
        ("x\ud800y", "x\\ud800y"),  # a lone surrogate no encoder writes
        ("tab\tand\nnewline", "tab\tand\nnewline"),  # kept
        ("plain ünïcödé 中文", "plain ünïcödé 中文"),
    ],
)
def test_visible(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_single_line_escapes_newlines_too() -> None:
    assert visible("a\nb\tc", single_line=True) == "a\\nb\\tc"


def test_terminal_json_is_valid_json_with_nothing_raw() -> None:
    value = {"k\x1b": "\x1b[31m\x9b\u202e\ud800\x7f"}
    text = terminal_json(value)
    assert json.loads(text) == value
    assert not any(ch in text for ch in "\x1b\x9b\u202e\ud800\x7f")
    text.encode("utf-8")  # writable


@property_settings(200)
@given(st.text())
def test_nothing_unsafe_survives(text: str) -> None:
    out = visible(text, single_line=True)
    assert all(ch.isprintable() or ch == " " or ord(ch) >= 0xA0 for ch in out if not 0xD800 <= ord(ch) <= 0xDFFF)
    assert not any(0xD800 <= ord(ch) <= 0xDFFF or ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in out)
    assert json.loads(terminal_json(text)) == text


BOUNDARIES = "".join(chr(c) for c in (*range(0x00, 0xA1), 0x61C, 0x200D, 0x200E, 0x2027, 0x2028, 0x202F, 0x2065))
AROUND = st.text(st.sampled_from(BOUNDARIES + "\u2066\u2069\u206a\ufeff\ufffd\ud800\udfff\U0001f600 ab"), max_size=30)


@property_settings(300)
@given(st.one_of(AROUND, st.text(st.characters(max_codepoint=0x7F), max_size=30), st.text(max_size=30)))
def test_ascii_text_takes_a_narrower_class_with_the_same_answers(text: str) -> None:
    """ASCII text is judged with the classes' ASCII part (compiled cheaply); every answer is the full class's."""
    import re

    from cogtui.core.files import terminal_text as tt

    full, line = re.compile(tt.UNSAFE), re.compile(tt.UNSAFE_LINE)

    def escape(m: re.Match[str]) -> str:
        ch = m.group()
        named = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}.get(ch)
        return named or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")

    assert tt.visible(text) == full.sub(escape, text)
    assert tt.visible(text, single_line=True) == line.sub(escape, text)
    assert tt.holds_unsafe(text) == (line.search(text) is not None)
    assert tt.without_unsafe(text) == line.sub("", text)
    assert tt.control_characters(text) == list(dict.fromkeys(escape(m) for m in full.finditer(text)))
    expected_json = re.sub(tt.UNSAFE_JSON, lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))
    assert tt.terminal_json(text) == expected_json
