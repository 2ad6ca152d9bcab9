"""Reading and writing module files byte-faithfully: encoding, BOM and line endings.

A migrated file keeps the style of the file it replaces or came from: a
UTF-8-with-BOM, CRLF MODULE.md becomes a UTF-8-with-BOM, CRLF module.yaml and
prompt.md. Edits work on text with LF line ends; `TextStyle.encode` puts the
file's own line ends and encoding back.
"""

from __future__ import annotations

import codecs
import difflib
import hashlib
from dataclasses import dataclass
from pathlib import Path

from cogtui.core.files.confined import read_confined
from cogtui.core.files.decoding import decode_bytes

_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "utf-8", "UTF-8 with BOM"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)


@dataclass(frozen=True)
class TextStyle:
    """How a file is stored: codec, byte-order mark, line ending."""

    codec: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"

    @property
    def newline_name(self) -> str:
        return "CRLF" if self.newline == "\r\n" else "LF"

    @property
    def label(self) -> str:
        return f"{self.encoding_name}, {self.newline_name}"

    @property
    def encoding_name(self) -> str:
        return next((label for bom, _, label in _BOMS if bom == self.bom and self.bom), "UTF-8")

    def encode(self, text_lf: str) -> bytes:
        """Bytes for LF-normalised text, with this style's line ends and encoding."""
        return self.encode_raw(text_lf.replace("\n", self.newline) if self.newline != "\n" else text_lf)

    def encode_raw(self, text: str) -> bytes:
        """Bytes for text whose line ends are already final (carried verbatim)."""
        return self.bom + text.encode(self.codec)


DEFAULT_STYLE = TextStyle()


@dataclass(frozen=True)
class SourceText:
    """One file as read: its bytes, its decoded text (line ends untouched) and its style."""

    path: Path
    raw: bytes
    text: str  # decoded, BOM removed, line ends as in the file
    style: TextStyle

    @property
    def lf(self) -> str:
        return to_lf(self.text)

    @property
    def mixed_newlines(self) -> bool:
        crlf = self.text.count("\r\n")
        return 0 < crlf < self.text.count("\n")


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def detect_style(raw: bytes, text: str) -> TextStyle:
    codec, bom = "utf-8", b""
    for mark, name, _ in _BOMS:
        if raw.startswith(mark):
            codec, bom = name, mark
            break
    crlf = text.count("\r\n")
    lf_only = text.count("\n") - crlf
    return TextStyle(codec, bom, "\r\n" if crlf and crlf >= lf_only else "\n")


def read_source(path: Path) -> SourceText:
    """Read a file the loader already accepted; raises ParseFailure (a located diagnostic) otherwise."""
    raw = read_confined(path)  # a FIFO, device or loop is refused, never read (docs/security.md)
    text = decode_bytes(raw, path)
    return SourceText(path, raw, text, detect_style(raw, text))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def unified_diff(old_lf: str, new_lf: str, old_name: str, new_name: str) -> str:
    """A unified diff of two LF texts; a missing final newline is marked as git does."""
    old_lines = _diff_lines(old_lf)
    new_lines = _diff_lines(new_lf)
    return "".join(difflib.unified_diff(old_lines, new_lines, old_name, new_name, n=3))


def diff_line_style(line: str, headers: str | None, other: str | None) -> str | None:
    """How a unified diff's line is shown: "add" (+), "remove" (-), "hunk" (@@), `other` for the rest, and
    `headers` for the `---`/`+++` file lines (None: styled as any other - or + line)."""
    if headers is not None and line.startswith(("+++", "---")):
        return headers
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "remove"
    return "hunk" if line.startswith("@@") else other


def _diff_lines(text: str) -> list[str]:
    # Split on "\n" only: str.splitlines would also break at U+2028 and friends.
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1] + "\n\\ No newline at end of file\n")
    return lines
