"""The core's answers as the protocol's types: positions in the client's units, diagnostics with their code's link,
and paths as URIs. Text from a module goes to the client with its control characters shown escaped
(`terminal_text.visible`): an editor may draw a diagnostic in a terminal (Neovim, Helix)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from cogtui.core.assist.checked import Located, Point
from cogtui.core.diagnostics import Severity
from cogtui.core.files.terminal_text import visible

SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
SOURCE = "cogn"


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def path_of(uri: str) -> Path | None:
    """The absolute path a `file:` URI names; None for any other scheme (an untitled buffer, a remote file)."""
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    return Path(fs).absolute() if fs else None


class Lines:
    """A text's lines, and columns converted between code points (the core's) and the client's units."""

    def __init__(self, text: str | None, encoding: str) -> None:
        self.rows = (text or "").split("\n")
        self.encoding = encoding
        self._ascii: dict[int, bool] = {}

    def row(self, line: int) -> str:
        return self.rows[line] if 0 <= line < len(self.rows) else ""

    def _plain(self, line: int) -> bool:
        known = self._ascii.get(line)
        if known is None:
            known = self._ascii[line] = self.row(line).isascii()
        return known

    def to_client(self, point: Point) -> types.Position:
        line, column = point
        if self.encoding == types.PositionEncodingKind.Utf32 or self._plain(line):
            return types.Position(line=line, character=column)
        head = self.row(line)[:column]
        if self.encoding == types.PositionEncodingKind.Utf8:
            units = len(head.encode("utf-8", "surrogatepass"))
        else:
            units = len(head) + sum(1 for ch in head if ord(ch) > 0xFFFF)
        return types.Position(line=line, character=units)

    def from_client(self, position: types.Position) -> Point:
        """The code point column of a client position (past the end of the line: its end)."""
        line, units = position.line, position.character
        if self.encoding == types.PositionEncodingKind.Utf32 or self._plain(line):
            return line, min(units, len(self.row(line)))
        counted = 0
        for index, ch in enumerate(self.row(line)):
            if counted >= units:
                return line, index
            if self.encoding == types.PositionEncodingKind.Utf8:
                counted += len(ch.encode("utf-8", "surrogatepass"))
            else:
                counted += 2 if ord(ch) > 0xFFFF else 1
        return line, len(self.row(line))

    def range(self, start: Point, end: Point) -> types.Range:
        return types.Range(start=self.to_client(start), end=self.to_client(end))


def diagnostic(located: Located, lines: Lines, href: str | None) -> types.Diagnostic:
    d = located.diagnostic
    message = visible(d.message) + (f"\n{visible(d.hint)}" if d.hint else "")
    return types.Diagnostic(
        range=lines.range(located.start, located.end),
        message=message,
        severity=SEVERITY[d.severity],
        code=d.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
    )
