"""A module checked with an editor's open buffers in place of its files, each diagnostic given a range.

The buffers are laid over the disk (`sourcemap.file_overlay`, as the TUI's editor validates its unsaved tabs) and
the module goes through `check_path`, the one validation `cogn validate` runs: the same codes, messages,
severities and start positions. A range's end is found from the file's position map: the key or value that starts
where the diagnostic does, cut at the end of its first line (an underline under a whole object helps no one);
elsewhere the word that starts there.
"""

from __future__ import annotations

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
        for d in report.diagnostics:
            if d.file is None:
                continue
            path = Path(d.file).absolute()
            if path not in texts:
                texts[path] = _text_of(path, root, module)
            by_file.setdefault(path, []).append(locate(d, _source(module, path), texts[path]))
    return Checked(report, by_file, frozenset(_files_read(module)) | frozenset(by_file), texts)


def locate(d: Diagnostic, source: SourceFile | None, text: str | None) -> Located:
    """`d` with its span: the key or value the position map has starting at its position, else the word there."""
    if d.line is None or text is None:
        return Located(d, (0, 0), (0, 0))
    line, column = d.line, d.column or 1
    start = (line - 1, column - 1)
    lines = text.split("\n")
    row = lines[line - 1] if 0 < line <= len(lines) else ""
    end: Point | None = None
    if source is not None and source.kind in ("yaml", "json"):
        end = _node_end(source, line, column)
    if end is None or end[0] != start[0]:  # none found, or it runs on to later lines: the first line's part
        end = (start[0], _word_end(row, column - 1)) if end is None else (start[0], len(row.rstrip("\r")))
    return Located(d, start, max(end, start))


def _node_end(source: SourceFile, line: int, column: int) -> Point | None:
    positions = source.positions
    try:
        path = positions.pointer_at(line, column)
    except (RecursionError, ValueError, IndexError):  # a map that cannot answer leaves the word's span
        return None
    for found in (positions.key_range(path), positions.value_range(path)):
        if found is not None and found[0] == (line, column):
            (end_line, end_col) = found[1]
            return end_line - 1, end_col - 1
    return None


def _word_end(row: str, start: int) -> int:
    end = start
    while end < len(row) and not row[end].isspace():
        end += 1
    return end if end > start else min(start + 1, len(row.rstrip("\r")))


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
