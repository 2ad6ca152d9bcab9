"""A key given twice in one YAML mapping or JSON object is P008, at the repetition (FMT-5).

Python's `json` and PyYAML both keep the last value without a word, so a second
`required: []` in schema.json or a second `tier:` in module.yaml silently
replaced what the author read first. YAML forbids repeated keys; JSON (RFC 8259)
says names SHOULD be unique and leaves the reading to each implementation. The
file is refused as unreadable, like a syntax error: which value the author meant
cannot be known.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import diag
from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.json_scan import first_repeated_key, offset_to_position

_SHOWN_KEY_LIMIT = 60
_HINT = "Keep one of them: the last value silently replaced the first, and other readers may keep either."
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"


def repeated_key(path: Path, shown_key: str, where: str, at: tuple[int, int], first_line: int) -> ParseFailure:
    if len(shown_key) > _SHOWN_KEY_LIMIT:
        shown_key = shown_key[: _SHOWN_KEY_LIMIT - 1] + "…"
    message = f"key {shown_key} appears twice in this {where} (first at line {first_line})"
    return ParseFailure(diag("P008", message, path, at[0], at[1], hint=_HINT))


def repeated_json_key(text: str, path: Path) -> ParseFailure | None:
    """P008 for the first repeated key of `text` (valid JSON that `json` read with a repetition)."""
    found = first_repeated_key(text)
    if found is None:
        return None
    name, first, again = found
    shown = json.dumps(name, ensure_ascii=False)
    return repeated_key(path, shown, "object", offset_to_position(text, again), offset_to_position(text, first)[0])


def check_yaml_keys(top: Any, path: Path, line_offset: int) -> None:
    """Raise P008 at the earliest repeated key of the composed node graph (each distinct node walked once).

    Keys are compared as the values PyYAML builds (so `~` repeats `null`, `0x1` repeats `1`); the keys a
    merge (`<<`) brings in may be overridden, as YAML allows."""
    import yaml

    constructor = yaml.constructor.SafeConstructor()
    earliest: tuple[Any, Any] | None = None  # (first key node, repeated key node)
    seen_nodes: set[int] = set()
    stack = [top]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            keys: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                stack.extend((key_node, value_node))
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                    continue
                identity = _identity(key_node, constructor)
                first = keys.setdefault(identity, key_node)
                if first is not key_node and (
                    earliest is None or key_node.start_mark.index < earliest[1].start_mark.index
                ):
                    earliest = (first, key_node)
    if earliest is not None:
        first, again = earliest
        at = (again.start_mark.line + 1 + line_offset, again.start_mark.column + 1)
        raise repeated_key(path, _as_written(again), "mapping", at, first.start_mark.line + 1 + line_offset)


def _identity(key_node: Any, constructor: Any) -> Any:
    if key_node.tag == _STR_TAG:
        return key_node.value
    import yaml

    try:
        value = constructor.construct_object(key_node)
        hash(value)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):  # PyYAML says so itself when it builds it
        return (key_node.tag, key_node.value)
    return value


def _as_written(key_node: Any) -> str:
    text = str(key_node.value)
    if key_node.style == "'":
        return "'" + text.replace("'", "''") + "'"
    if key_node.style == '"':
        return json.dumps(text, ensure_ascii=False)
    return text
