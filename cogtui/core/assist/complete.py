"""Completion: manifest keys in their section, the values of the fields that have a set of them, `$ref` targets in
a schema file, module names after `@call:`, provider names in cogtui's config.yaml.

The manifest is read line by line (a buffer being typed seldom parses): the section of a line is the nearest key
above it with less indentation, the key of a `key: value` line is what precedes its colon. Keys already present
in that section are not offered again.
"""

from __future__ import annotations

import re
from pathlib import Path

from cogtui.core.assist.documents import Doc, Point, Span, word_at
from cogtui.core.assist.fields import BY_PATH, V1, V22, V25, Field, keys_of
from cogtui.core.assist.refs import local_targets
from cogtui.core.records import record

KEY_LINE = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][\w.-]*)\s*:(.*)$")
MAX_ITEMS = 200


@record
class Item:
    label: str
    kind: str  # field | value | reference | module
    detail: str = ""
    documentation: str = ""
    insert: str = ""  # what is written (the label when empty)
    span: Span | None = None  # the text it replaces


def manifest_format(doc: Doc) -> str:
    if doc.role == "frontmatter":
        return V1
    if doc.source is not None and isinstance(doc.source.value, dict):
        value = doc.source.value
        if "response" in value or "modalities" in value or "error_codes" in value:
            return V25
    return V22


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def section_of(lines: list[str], row: int, indent: int) -> str:
    """The manifest section that a line at `row` indented by `indent` belongs to ("" at the top level)."""
    for above in range(row - 1, -1, -1):
        line = lines[above]
        if not line.strip() or line.lstrip().startswith("#") or line.strip() == "---":
            continue
        if _indent(line) < indent:
            match = KEY_LINE.match(line)
            return match.group(3) if match and _indent(line) == 0 else ""
        if _indent(line) == 0 and indent == 0:
            return ""
    return ""


def _present(lines: list[str], row: int, indent: int) -> set[str]:
    """The keys already written at this indentation in the block around `row`."""
    found: set[str] = set()
    for step in (-1, 1):
        at = row + step
        while 0 <= at < len(lines):
            line = lines[at]
            if line.strip() and not line.lstrip().startswith("#"):
                if _indent(line) < indent or line.strip() == "---":
                    break
                match = KEY_LINE.match(line)
                if match and _indent(line) == indent:
                    found.add(match.group(3))
            at += step
    return found


def _value_items(field: Field, span: Span) -> list[Item]:
    values = list(field.values)
    if not values and field.types == ("boolean",):
        values = [True, False]
    out = []
    for value in values:
        text = str(value).lower() if isinstance(value, bool) else str(value)
        out.append(Item(text, "value", field.path, field.default and f"Default: {field.default}", text, span))
    return out


def manifest_items(doc: Doc, point: Point) -> list[Item]:
    lines = doc.lines
    row, column = point
    line = lines[row] if row < len(lines) else ""
    before = line[:column]
    fmt = manifest_format(doc)
    match = KEY_LINE.match(before)
    if match is not None:  # after `key:`: the field's values
        indent = _indent(line)
        section = section_of(lines, row, indent) if indent else ""
        path = f"{section}.{match.group(3)}" if section else match.group(3)
        field = BY_PATH.get(path)
        start, end = word_at(line, column)
        span = ((row, start), (row, end))
        if field is None:
            return []
        if field.items:  # a list's items: `input: [text, ` or a `- ` line below
            return [Item(str(v), "value", field.path, "", str(v), span) for v in field.items]
        return _value_items(field, span)
    stripped = before.strip()
    if re.match(r"\s*-(\s|$)", before):  # an item of a list field: `  - te`
        indent = _indent(line)
        parent = _parent_key(lines, row, indent)
        field = BY_PATH.get(parent) if parent else None
        start, end = word_at(line, column)
        if field is not None and field.items:
            return [Item(str(v), "value", field.path, "", str(v), ((row, start), (row, end))) for v in field.items]
        return []
    if stripped and not re.fullmatch(r"[\w.-]*", stripped):
        return []
    indent = _indent(line) if line.strip() else len(before)
    section = section_of(lines, row, indent) if indent else ""
    present = _present(lines, row, indent)
    start, end = word_at(line, column)
    span = ((row, start), (row, end))
    out = []
    for field in keys_of(section, fmt):
        if field.name in present:
            continue
        insert = f"{field.name}: " if "object" not in field.types else f"{field.name}:\n{' ' * (indent + 2)}"
        out.append(Item(field.name, "field", " or ".join(field.types), field.meaning(), insert, span))
    return out


def _parent_key(lines: list[str], row: int, indent: int) -> str:
    """The dotted path of the key a `- item` line at `row` belongs to: the nearest key above at most as indented."""
    for above in range(row - 1, -1, -1):
        match = KEY_LINE.match(lines[above])
        key_indent = _indent(lines[above])
        if match is not None and key_indent <= indent and not match.group(2):
            section = section_of(lines, above, key_indent) if key_indent else ""
            return f"{section}.{match.group(3)}" if section else match.group(3)
    return ""


def ref_items(doc: Doc, point: Point) -> list[Item]:
    """`$ref` targets when the cursor is in the string value of a `"$ref"` key."""
    line = doc.line(point[0])
    before = line[: point[1]]
    match = re.search(r'"\$ref"\s*:\s*"([^"]*)$', before)
    if match is None:
        return []
    start = match.start(1)
    end = line.find('"', point[1])
    span = ((point[0], start), (point[0], end if end >= 0 else point[1]))
    value = doc.source.value if doc.source is not None else _closed(doc, point)
    targets = local_targets(value) if value is not None else []
    return [Item(t, "reference", "a place in this file", "", t, span) for t in targets[:MAX_ITEMS]]


def _closed(doc: Doc, point: Point) -> object:
    """The document's value with the string being typed at `point` closed (`"$ref": "#/` -> `"#/"`), or None."""
    import json

    lines = doc.lines
    row = lines[point[0]]
    lines[point[0]] = row[: point[1]] + '"' + row[point[1] :]
    try:
        return json.loads("\n".join(lines))
    except ValueError:
        return None


def call_items(point: Point, line: str, names: list[str]) -> list[Item]:
    """Module names after `@call:`."""
    before = line[: point[1]]
    match = re.search(r"@call:([A-Za-z0-9_.-]*)$", before)
    if match is None:
        return []
    _start, end = word_at(line, point[1], ".")
    span = ((point[0], match.start(1)), (point[0], max(end, point[1])))
    return [Item(name, "module", "a module", "", name, span) for name in names[:MAX_ITEMS]]


def config_items(doc: Doc, point: Point, providers: tuple[str, ...]) -> list[Item]:
    """Provider names after `provider:` in cogtui's config.yaml (or an eval's targets)."""
    line = doc.line(point[0])
    match = re.match(r"^\s*(-\s+)?provider\s*:\s*(\S*)$", line[: point[1]])
    if match is None:
        return []
    start, end = word_at(line, point[1])
    span = ((point[0], start), (point[0], end))
    return [Item(name, "value", "a provider", "", name, span) for name in providers]


def complete(doc: Doc, point: Point, module_names: list[str], providers: tuple[str, ...]) -> list[Item]:
    if doc.role in ("manifest", "frontmatter"):
        if doc.role == "frontmatter" and not _in_frontmatter(doc, point[0]):
            return call_items(point, doc.line(point[0]), module_names)
        return manifest_items(doc, point)
    if doc.role in ("schema", "json"):
        return ref_items(doc, point)
    if doc.role == "prompt":
        return call_items(point, doc.line(point[0]), module_names)
    if Path(doc.path).name == "config.yaml":
        return config_items(doc, point, providers)
    return []


def _in_frontmatter(doc: Doc, row: int) -> bool:
    lines = doc.lines
    if not lines or lines[0].strip() != "---":
        return False
    for n in range(1, len(lines)):
        if lines[n].strip() == "---":
            return 0 < row < n
    return row > 0
