"""A module checked with an editor's open buffers in place of its files, each diagnostic given a range.

The buffers are laid over the disk (`sourcemap.file_overlay`, as the TUI's editor validates its unsaved tabs) and
the module goes through `check_path`, the one validation `cogn validate` runs: the same codes, messages,
severities and start positions. A range's end is the end of the token that starts where
the diagnostic does, read from the text (in linear time: one file's thousands of diagnostics cost one split of its
lines): a quoted string to its closing quote, a YAML plain scalar to its comment, colon or flow delimiter, a JSON
number or literal to its last character, an object or list to the end of its first line (an underline under a
whole object helps no one); elsewhere the word that starts there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.module_folder import is_module_dir
from cogtui.core.files.sourcemap import SourceFile, file_overlay, read_text
from cogtui.core.module.model import Module
from cogtui.core.records import record
from cogtui.core.workspace import ModuleReport, check_path

# How far above a file its module folder may be (tests/cases/x.json is two levels down).
MODULE_DEPTH = 6

Point = tuple[int, int]  # 0-based line and column (code points)


@record
class Located:
    """A diagnostic and the span it covers in its file: 0-based lines and columns counted in code points, the end
    just past the last character (the protocol's positions, before its UTF-16 columns)."""

    diagnostic: Diagnostic
    start: Point
    end: Point


@record
class Checked:
    """A module's report and its diagnostics grouped by file (absolute paths); `files` are the module's files the
    check read, a diagnostic or not, so a client can clear the ones that no longer have any."""

    report: ModuleReport
    by_file: dict[Path, list[Located]]
    files: frozenset[Path]
    texts: dict[Path, str | None]  # each diagnosed file's text as the check read it (for the protocol's columns)


def module_root(path: Path) -> Path | None:
    """The module folder `path` belongs to: the nearest folder at or above it holding a manifest; None when none
    is within MODULE_DEPTH levels."""
    folder = path if not path.suffix and is_module_dir(path) else path.parent
    for _level in range(MODULE_DEPTH):
        if is_module_dir(folder):
            return folder
        if folder.parent == folder:
            return None
        folder = folder.parent
    return None


def check_buffers(root: Path, buffers: Mapping[Path, str]) -> Checked:
    """`root` validated as `cogn validate` does, reading `buffers` (absolute path -> text) instead of the disk."""
    overlay = {Path(p).absolute(): text for p, text in buffers.items()}
    with file_overlay(overlay):
        report = check_path(root.absolute())
        module = report.module
        by_file: dict[Path, list[Located]] = {}
        texts: dict[Path, str | None] = {}
        rows: dict[Path, list[str] | None] = {}
        for d in report.diagnostics:
            if d.file is None:
                continue
            path = Path(d.file).absolute()
            if path not in texts:
                texts[path] = _text_of(path, root, module)
                text = texts[path]
                rows[path] = text.split("\n") if text is not None else None
            by_file.setdefault(path, []).append(locate(d, _source(module, path), texts[path], rows[path]))
    return Checked(report, by_file, frozenset(_files_read(module)) | frozenset(by_file), texts)


def locate(d: Diagnostic, source: SourceFile | None, text: str | None, rows: list[str] | None = None) -> Located:
    """`d` with its span: the token that starts at its position (`rows`: the text's lines, split once per file)."""
    if d.line is None or text is None:
        return Located(d, (0, 0), (0, 0))
    rows = text.split("\n") if rows is None else rows
    line, column = d.line, d.column or 1
    row = rows[line - 1].rstrip("\r") if 0 < line <= len(rows) else ""
    start = (line - 1, min(column - 1, len(row)))
    kind = source.kind if source is not None else "text"
    return Located(d, start, (start[0], token_end(row, start[1], kind)))


PLAIN_END = re.compile(r"\s#|:\s|:$|[,\]}]")  # where a YAML plain scalar (or key) in a line ends
NUMBER = re.compile(r"-?[0-9][0-9.eE+-]*|true|false|null")


def token_end(row: str, at: int, kind: str) -> int:
    """Where the token starting at `at` in `row` ends (just past it), at least one character on when there is one."""
    if at >= len(row):
        return at
    char = row[at]
    if char in "\"'":
        index = at + 1
        while index < len(row):
            if row[index] == "\\" and char == '"':
                index += 2
                continue
            if row[index] == char:
                if char == "'" and row[index + 1 : index + 2] == "'":  # YAML's '' inside single quotes
                    index += 2
                    continue
                return index + 1
            index += 1
        return len(row)
    if char in "{[":
        return len(row.rstrip())
    if kind == "json":
        found = NUMBER.match(row, at)
        return found.end() if found else _word_end(row, at)
    if kind == "yaml":
        stop = PLAIN_END.search(row, at + 1)
        end = stop.start() if stop else len(row)
        return max(len(row[:end].rstrip()), at + 1)
    return _word_end(row, at)


def _word_end(row: str, start: int) -> int:
    end = start
    while end < len(row) and not row[end].isspace():
        end += 1
    return end if end > start else min(start + 1, len(row))


def _source(module: Module | None, path: Path) -> SourceFile | None:
    if module is None:
        return None
    return module.sources.get(path)


def _text_of(path: Path, root: Path, module: Module | None) -> str | None:
    """The text a diagnostic's file had in this check (the buffer, the parse, or the disk through the confined
    layer); None when it cannot be read (missing, outside the module, a FIFO...)."""
    source = _source(module, path)
    if source is not None:
        return source.text
    try:
        return read_text(path, root.absolute())
    except (ParseFailure, OSError, ValueError):  # a refusal (F001-F004, P003, P005) is the diagnostic's subject
        return None


def _files_read(module: Module | None) -> list[Path]:
    if module is None:
        return []
    out = [Path(p).absolute() for p in module.sources]
    for case in (*module.tests, *module.examples):
        for attr in ("input_path", "expected_path", "output_path"):
            value = getattr(case, attr, None)
            if isinstance(value, Path):
                out.append(value.absolute())
    return out
