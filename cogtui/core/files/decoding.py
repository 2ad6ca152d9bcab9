"""Bytes to text, as every module file is read: UTF-8 (with or without BOM) or BOM-marked UTF-16.

Apart from sourcemap.py, so that a reader of one file that needs no locating (a theme at the TUI's start, a
baseline, an input file) does not import the YAML and JSON locating machinery with it.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from cogtui.core.diagnostics import diag
from cogtui.core.files.confined import ParseFailure


def decode_bytes(raw: bytes, path: Path) -> str:
    """UTF-8 (with or without BOM) or BOM-marked UTF-16; anything else is a P005 diagnostic."""
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[3:]
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ParseFailure(diag("P005", f"invalid UTF-16: {exc.reason}", path, 1, 1)) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        from cogtui.core.files.json_scan import offset_to_position

        head = raw[: exc.start].decode("utf-8", errors="replace")
        line, col = offset_to_position(head, len(head))
        raise ParseFailure(
            diag(
                "P005",
                f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                path,
                line,
                col,
                hint="Save the file as UTF-8.",
            )
        ) from None
