"""A YAML file written as JSON, read by `json` when PyYAML could not read it differently.

The loader then never imports PyYAML for a module without YAML syntax.
"""

from __future__ import annotations

import json
import re
from typing import Any

# JSON is YAML's flow style. Text that starts with { or [ and has none of what YAML 1.1 reads differently from
# JSON (an escaped surrogate, which libyaml refuses and JSON pairs; an exponent: `1e5` is a string in YAML 1.1;
# a tab, a line break other than \n, a key broken over lines, a character YAML refuses or takes as a line
# break) gets the same value from `json` (tests/test_yaml_as_json.py compares the two on generated documents).
_JSON_START = re.compile(r"[ \n]*[{\[]")
_NOT_JSON_SHAPED = re.compile(
    r'\\u[dD][89a-fA-F]|[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]|"\s*\n\s*:'
)
_YAML_KEY_LIMIT = 1024  # PyYAML refuses a simple key longer than this


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity: strings to YAML


def _plain_float(literal: str) -> float:
    if "e" in literal or "E" in literal:
        raise ValueError(literal)  # YAML 1.1 reads 1e5 (and 1.5e5) as a string
    return float(literal)


def _checked_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if any(len(k) > _YAML_KEY_LIMIT for k, _ in pairs):
        raise ValueError("key too long for YAML")
    built = dict(pairs)
    if len(built) < len(pairs):
        raise ValueError("a repeated key")  # PyYAML's reading says P008 (FMT-5)
    return built


def json_shaped(text: str) -> tuple[bool, Any]:
    """(True, value) when `text` is JSON that YAML would read as the same value; else (False, None)."""
    if not _JSON_START.match(text) or _NOT_JSON_SHAPED.search(text):
        return False, None
    try:
        return True, json.loads(
            text, parse_float=_plain_float, parse_constant=_no_constant, object_pairs_hook=_checked_pairs
        )
    except (ValueError, RecursionError):  # not JSON after all, or nested deeper than json goes: YAML decides
        return False, None
