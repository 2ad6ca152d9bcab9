"""Where media sits in a document: the walk over inputs (MediaInput) and generated data (MediaOutput).

Apart from media_rules.py, which judges what is found: a document without media (most envelopes a
validate or a run checks) costs the walk only, not the rules' import (base64, their records).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MEDIA_TYPES = ("url", "base64", "file")
Found = Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]


def is_media_ref(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") in MEDIA_TYPES
        and any(k in value for k in ("url", "data", "path"))
    )


def find_media(value: Any, path: tuple[str | int, ...] = ()) -> Found:
    """Every MediaInput in an input document, with its path."""
    if is_media_ref(value):
        yield path, value
        return
    for child, where in _containers(value, path):
        yield from find_media(child, where)


def find_output_media(value: Any, path: tuple[str | int, ...] = ()) -> Found:
    """Every MediaOutput (an object with a media `type` and a `media_type`) in a data object, with its path."""
    if isinstance(value, dict) and value.get("type") in MEDIA_TYPES and "media_type" in value:
        yield path, value
        return
    for child, where in _containers(value, path):
        yield from find_output_media(child, where)


def _containers(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[Any, tuple[str | int, ...]]]:
    """The objects and arrays directly in `value`, with their paths: only containers are walked into (a scalar is
    no media)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        if isinstance(child, (dict, list)):
            yield child, (*path, key)
