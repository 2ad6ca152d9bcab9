"""Parse YAML and JSON while keeping where each value came from.

Diagnostics need 1-based line and column for any node (a manifest field, a
schema keyword, a value in a golden test). Each parsed file carries its
position map (positions.py): YAML's over the composed node tree (safe loader
only), JSON's over the text the C `json` module parsed; each container is
indexed once, when a question first reaches it, so a file without diagnostics
pays nothing extra and one with thousands is not scanned once per diagnostic.

PyYAML is imported only when a file needs it: a YAML file written as JSON is
read by `json` when the two readings cannot differ (yaml_as_json.py), so a
module without YAML syntax never imports it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from cogtui.core.diagnostics import diag
from cogtui.core.files.confined import ParseFailure as ParseFailure  # re-exported: where parsers raise it
from cogtui.core.files.confined import read_confined
from cogtui.core.files.decoding import decode_bytes
from cogtui.core.files.json_scan import KeyCounter, offset_to_position
from cogtui.core.files.json_scan import skip_json_value as skip_json_value  # re-exported: the migration walks JSON
from cogtui.core.files.nesting import TOO_DEEP_HINT, too_deep_message, too_deep_position
from cogtui.core.files.positions import BlockPositions, JsonPositions, PathPart, Position, PositionMap, YamlPositions
from cogtui.core.files.yaml_as_json import json_shaped
from cogtui.core.files.yaml_block import block_yaml
from cogtui.core.files.yaml_bounds import MAX_YAML_CHARS, check_expansion
from cogtui.core.records import field, record

__all__ = ["PathPart", "Position"]  # re-exported: the types of a located path and its answer

Kind = Literal["yaml", "json", "text"]


@record
class SourceFile:
    """One file's text and parsed value; `locate` maps a value path to a position (through `positions`)."""

    path: Path
    text: str
    kind: Kind
    value: Any = None
    line_offset: int = 0  # lines before the parsed region (YAML frontmatter)
    positions: PositionMap = field(default_factory=PositionMap, repr=False, compare=False)

    def locate(self, parts: Sequence[PathPart] = (), key: bool = False) -> Position:
        """Position of the value at `parts` (or of its key), else of the deepest ancestor found."""
        return self.positions.position(parts, key)

    def written(self, parts: Sequence[PathPart] = (), key: bool = False) -> str | None:
        """The text of the YAML scalar at `parts` (or of its key) as the file has it (`2024-01-01`, `~`, `yes`);
        None when no YAML scalar is there. Messages quote a value with it rather than with Python's repr."""
        return self.positions.written(parts, key)

    @property
    def node(self) -> Any:
        """The YAML parser's node tree (PyYAML's, or a BlockNode), None for JSON or text."""
        return self.positions.node


# Unsaved editor buffers, by absolute path: validation "as you type" reads these instead of the disk.
_OVERLAY: ContextVar[dict[Path, str] | None] = ContextVar("cogtui_overlay", default=None)


@contextmanager
def file_overlay(buffers: dict[Path, str]) -> Iterator[None]:
    """Within the block, reading one of these files returns the given text (for this thread/task only)."""
    token = _OVERLAY.set({Path(p).absolute(): t for p, t in buffers.items()})
    try:
        yield
    finally:
        _OVERLAY.reset(token)


def read_text(path: Path, root: Path | None = None) -> str:
    """The decoded text of a file, read through the confined layer (inside `root` when given)."""
    overlay = _OVERLAY.get()
    if overlay:
        text = overlay.get(Path(path).absolute())
        if text is not None:
            return text
    return decode_bytes(read_confined(path, root), path)


# ---------------------------------------------------------------- YAML


# libyaml composes nested collections by C recursion without a depth check: some
# 25,000 nested `[`, `{`, `- ` or `? ` crash the interpreter (SIGSEGV). Nesting
# needs one such character per level (indentation alone grows quadratically), so
# text with few of them is safe for libyaml; the rest goes to the pure-Python
# loader, which stops at the recursion limit with a P001 instead.
_NESTING_CHARS_SAFE = 2000


def _loader_class(text: str) -> type:
    import yaml

    nesting = text.count("[") + text.count("{") + text.count("-") + text.count("?")
    if nesting >= _NESTING_CHARS_SAFE:
        from cogtui.core.files.yaml_loader import LinearSafeLoader  # PyYAML's, in linear time on deep nesting

        return LinearSafeLoader
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: same safe semantics, much faster


def parse_yaml(text: str, path: Path, line_offset: int = 0, yaml_nodes: bool = False) -> SourceFile:
    """The file's value and source map. JSON-shaped text is read by `json`, plain block YAML by
    yaml_block.py (both only where PyYAML could not read it differently), the rest by PyYAML; with
    `yaml_nodes` the map of a YAML file is always PyYAML's node tree (the migration's editor walks it)."""
    if len(text) > MAX_YAML_CHARS:
        raise ParseFailure(
            diag(
                "P007",
                f"YAML document is {len(text):,} characters, over the {MAX_YAML_CHARS:,} limit",
                path,
                1 + line_offset,
                1,
                hint="Keep manifests small; large data belongs in JSON files.",
            )
        )
    if line_offset == 0:  # frontmatter is YAML: a JSON map would count no lines before it
        shaped, value = json_shaped(text)
        if shaped:
            return SourceFile(path, text, "json", value, positions=JsonPositions(text))
    block = None if yaml_nodes else block_yaml(text)
    if block is not None:
        return SourceFile(path, text, "yaml", block[0], line_offset, BlockPositions(block[1], text, line_offset))
    import yaml

    cls = _loader_class(text)
    loader = None
    try:
        # Inside the try: the pure-Python loader checks the characters as it is built (ReaderError).
        loader = cls(text)
        node = loader.get_single_node()
        if node is not None:
            check_expansion(node, path, line_offset)
            from cogtui.core.files.repeated_keys import check_yaml_keys  # with PyYAML only

            check_yaml_keys(node, path, line_offset)
        value = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        from cogtui.core.files.yaml_errors import explain_yaml_error  # only when a file does not parse

        found = explain_yaml_error(exc, text, cls, line_offset)
        raise ParseFailure(
            diag(
                "P001",
                f"YAML syntax error: {found.message}",
                path,
                found.line + 1 + line_offset,
                found.column + 1,
                hint=found.hint,
            )
        ) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, e.g. a control character
        offset = exc.position
        if not issubclass(cls, yaml.SafeLoader):  # libyaml counts UTF-8 bytes, the Python reader characters
            offset = len(text.encode("utf-8", "surrogatepass")[:offset].decode("utf-8", "ignore"))
        line, col = offset_to_position(text, offset)
        raise ParseFailure(
            diag(
                "P001",
                f"YAML error: {exc.reason}",
                path,
                line + line_offset,
                col,
                hint="Remove the control character or quote and escape it.",
            )
        ) from None
    except yaml.YAMLError as exc:
        raise ParseFailure(diag("P001", f"YAML error: {exc}", path, 1 + line_offset, 1)) from None
    except RecursionError:
        line, col = too_deep_position(text, yaml=True)
        raise ParseFailure(
            diag("P001", too_deep_message("YAML"), path, line + line_offset, col, hint=TOO_DEEP_HINT)
        ) from None
    except (ValueError, TypeError, OverflowError) as exc:
        # e.g. a timestamp out of range, or an unhashable mapping key
        raise ParseFailure(diag("P001", f"YAML value error: {exc}", path, 1 + line_offset, 1)) from None
    finally:
        if loader is not None:
            loader.dispose()
    return SourceFile(path, text, "yaml", value, line_offset, YamlPositions(node, line_offset))


# ---------------------------------------------------------------- JSON


def parse_json(text: str, path: Path) -> SourceFile:
    keys = KeyCounter()
    try:
        value = json.loads(text, object_pairs_hook=keys)
    except json.JSONDecodeError as exc:
        raise ParseFailure(
            diag("P002", f"JSON syntax error: {exc.msg}", path, exc.lineno, exc.colno, hint=_json_hint(exc.msg))
        ) from None
    except RecursionError:
        line, col = too_deep_position(text, yaml=False)
        raise ParseFailure(diag("P002", too_deep_message("JSON"), path, line, col, hint=TOO_DEEP_HINT)) from None
    except ValueError as exc:
        # Python refuses integers of more than 4300 digits (sys.int_info.str_digits_check_threshold).
        long_run = _LONG_INT.search(text)
        line, col = offset_to_position(text, long_run.start()) if long_run else (1, 1)
        raise ParseFailure(diag("P002", f"JSON number too large: {exc}", path, line, col)) from None
    if keys.repeated:
        from cogtui.core.files.repeated_keys import repeated_json_key  # only a file with a repetition pays

        failure = repeated_json_key(text, path)
        if failure is not None:
            raise failure
    return SourceFile(path, text, "json", value, positions=JsonPositions(text))


_LONG_INT = re.compile(r"\d{4301,}")


def _json_hint(msg: str) -> str:
    if "property name" in msg:
        return "Keys must be double-quoted; a trailing comma before } is not allowed in JSON."
    if "Extra data" in msg:
        return "The file holds more than one JSON value."
    if "delimiter" in msg:
        return "A comma or colon is missing, or a string is not closed."
    return "Check the JSON syntax near this position."


# ---------------------------------------------------------------- files


# Path.is_file() and friends raise OSError for names the OS refuses (ENAMETOOLONG);
# paths from manifests and the command line can be anything, so these answer False.
def load_file(path: Path, kind: Kind, root: Path | None = None) -> SourceFile:
    """Read (confined to `root`) and parse one file; raises ParseFailure with a located diagnostic."""
    text = read_text(path, root)
    if kind == "yaml":
        return parse_yaml(text, path)
    if kind == "json":
        return parse_json(text, path)
    return SourceFile(path, text, "text", text)


_FENCE = re.compile(r"^---[ \t]*\r?$")
_FENCE_END = re.compile(r"^(---|\.\.\.)[ \t]*\r?$")


def split_frontmatter(text: str) -> tuple[str, str, int] | None:
    """(yaml_text, body, body_first_line) for a Markdown file with --- frontmatter, else None."""
    lines = text.split("\n")
    if not lines or not _FENCE.match(lines[0]):
        return None
    for n in range(1, len(lines)):
        if _FENCE_END.match(lines[n]):
            yaml_text = "\n".join(lines[1:n])
            body = "\n".join(lines[n + 1 :])
            return yaml_text, body, n + 2
    return None
