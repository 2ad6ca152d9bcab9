"""Text from modules, models or history, made safe for a terminal.

A module name, a description, a model's answer or a history row may hold
escape sequences (ESC [ ... that move the cursor, retitle the window, or write
to the clipboard), 8-bit C1 controls, bidirectional overrides that reorder
what the user sees, or lone surrogates that the terminal's encoder refuses.
`visible` shows every such character as a visible escape (`\\x1b`, `\\u202e`),
so the text is still readable and nothing reaches the terminal raw.
`terminal_json` does the same for JSON output, staying valid JSON.

Every CLI output path (cli/output.py) and the TUI widgets that render such
text call these; there is no other sanitiser. `holds_unsafe` and
`without_unsafe` serve the TUI's terminal guard (cogtui/tui/terminal_guard.py),
which every rendered line passes on its way to the terminal.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

# C0 controls but tab and newline; DEL; C1 controls; bidi embeddings/overrides/isolates and marks
# that can hide or reorder text; line/paragraph separators; BOM/zero-width no-break; lone surrogates.
UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
UNSAFE_LINE = "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
# In JSON text, C0 controls are already escaped by json.dumps; the rest must be escaped as \uXXXX.
UNSAFE_JSON = "[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
# The same classes within ASCII, for ASCII text (most of it): the full classes are slower to compile, so each
# is compiled the first time text outside ASCII comes by, not in every process.
_ASCII = {UNSAFE: re.compile("[\x00-\x08\x0b-\x1f\x7f]"), UNSAFE_LINE: re.compile("[\x00-\x1f\x7f]")}
_ASCII[UNSAFE_JSON] = re.compile("\x7f")


def _pattern(char_class: str, text: str) -> re.Pattern[str]:
    return _ASCII[char_class] if text.isascii() else _compiled(char_class)


@cache
def _compiled(char_class: str) -> re.Pattern[str]:
    return re.compile(char_class)


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    code = ord(ch)
    if ch == "\r":
        return "\\r"
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, single_line: bool = False) -> str:
    """`text` with control, escape and invisible-reordering characters shown escaped.

    Newlines and tabs are kept unless `single_line` (table cells, one-line labels).
    """
    if not isinstance(text, str):
        text = str(text)
    pattern = _pattern(UNSAFE_LINE if single_line else UNSAFE, text)
    return pattern.sub(_escape, text) if pattern.search(text) else text


def control_characters(text: str) -> list[str]:
    """The distinct characters `visible(text)` would escape, each visibly escaped, in order of first appearance."""
    return list(dict.fromkeys(_escape(match) for match in _pattern(UNSAFE, text).finditer(text)))


def holds_unsafe(text: str) -> bool:
    """Whether `visible(text, single_line=True)` would escape anything in `text`."""
    return _pattern(UNSAFE_LINE, text).search(text) is not None


def without_unsafe(text: str) -> str:
    """`text` with every character `visible(text, single_line=True)` would escape removed.

    For text already laid out in terminal cells: each of these characters is zero cells wide, so
    removing them keeps the layout, where escaping them would widen the line.
    """
    pattern = _pattern(UNSAFE_LINE, text)
    return pattern.sub("", text) if pattern.search(text) else text


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def terminal_json(value: Any, **kwargs: Any) -> str:
    """json.dumps(value, ensure_ascii=False, **kwargs), with nothing a terminal would act on.

    Lone surrogates (which no encoder writes) and C1/bidi characters become \\uXXXX escapes,
    which are valid JSON and decode to the same string.
    """
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    pattern = _pattern(UNSAFE_JSON, text)
    return pattern.sub(_json_escape, text) if pattern.search(text) else text
