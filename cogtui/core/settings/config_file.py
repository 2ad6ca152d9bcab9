"""Saving one setting into config.yaml without destroying anything.

The file is edited as text: only the value of the key being set changes (or a
`key: value` line is appended), so comments, key order, quoting and the other
settings stay exactly as the user wrote them. A file that does not parse, is
not a mapping, or cannot be edited so that it reads back as intended is left
untouched and the save is refused with a message saying where and why.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogtui.core.settings.locations import config_file

if TYPE_CHECKING:
    import yaml

# PyYAML and the source maps are imported by the functions that save: loading settings stays cheap.


class SettingNotSaved(ValueError):
    """The setting was not written; the message says why and the file is unchanged."""


def save_setting(key: str, value: Any, path: Path | None = None) -> Path:
    """Set one top-level setting in place; raises SettingNotSaved (file untouched) or OSError."""
    from cogtui.core.files.decoding import decode_bytes
    from cogtui.core.files.sourcemap import ParseFailure

    path = path or config_file()
    # A config.yaml that is a link (to a dotfiles checkout) is written where it leads: the atomic write
    # replaces the file it writes, and would put a plain file in the link's place.
    path = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raw = b""
    encoding = _encoding_of(raw)
    try:
        text = decode_bytes(raw, path) if raw else ""
    except ParseFailure as exc:
        raise SettingNotSaved(f"{path}: {exc.diagnostic.message}; fix it, then choose again") from None
    new_text = with_setting(text, key, value, path)
    from cogtui.core.files.editor_snapshot import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, new_text.encode(encoding))
    return path


def _encoding_of(raw: bytes) -> str:
    """The codec that writes the file back as it was: UTF-8, or with the BOM it had (decode_bytes strips it)."""
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"  # writes a BOM in the machine's order; the text reads back the same
    return "utf-8"


def with_setting(text: str, key: str, value: Any, path: Path) -> str:
    """`text` with top-level `key` set to `value`, every other character kept; SettingNotSaved when impossible."""
    from cogtui.core.files.sourcemap import ParseFailure, parse_yaml

    try:
        current = parse_yaml(text, path).value if text.strip() else None
    except ParseFailure as exc:
        d = exc.diagnostic
        raise SettingNotSaved(f"{path}:{d.line}:{d.column}: {d.message}; fix it, then choose again") from None
    if current is not None and not isinstance(current, dict):
        raise SettingNotSaved(f"{path}:1:1: the config must be a mapping of settings; fix it, then choose again")
    wanted = {**(current or {}), key: value}
    newline = "\r\n" if "\r\n" in text else "\n"
    span = _value_span(text, key) if current and key in current else None
    if span is not None:
        start, end = span
        new_text = text[:start] + _flow(value) + text[end:]
    else:
        sep = "" if not text or text.endswith(("\n", "\r")) else newline
        new_text = f"{text}{sep}{_flow(key)}: {_flow(value)}{newline}"
    try:
        reread = parse_yaml(new_text, path).value
    except ParseFailure:
        reread = None
    if reread != wanted:
        raise SettingNotSaved(
            f"{path}: {key} cannot be changed in place without rewriting your file "
            f"(its layout is unusual); set `{key}: {_flow(value)}` there yourself"
        )
    return new_text


def _value_span(text: str, key: str) -> tuple[int, int] | None:
    """Character offsets of the top-level value of `key`, as written (None when the layout is not understood)."""
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)  # pure Python: marks count characters
    except (yaml.YAMLError, RecursionError):
        return None
    if not isinstance(root, yaml.MappingNode):
        return None
    for key_node, value_node in root.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            if isinstance(value_node, yaml.ScalarNode) and value_node.start_mark.index == value_node.end_mark.index:
                return value_node.start_mark.index, value_node.end_mark.index  # `key:` with nothing after it
            return value_node.start_mark.index, _end_of(value_node)
    return None


def _end_of(node: yaml.Node) -> int:
    """Where a value's own text ends: a block collection's end mark lies after the comments that follow it."""
    import yaml

    if isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style and node.value:
        last = node.value[-1]
        return _end_of(last[1] if isinstance(node, yaml.MappingNode) else last)
    return int(node.end_mark.index)


def _flow(value: Any) -> str:
    """One line of YAML for `value` (flow style for collections)."""
    import yaml

    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, sort_keys=False, width=10**6)
    return dumped.removesuffix("\n...\n").removesuffix("\n")
