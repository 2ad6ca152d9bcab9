"""Find the JSON object in what a model said: raw JSON, a code fence, or prose around it.

A real JSON decoder (`raw_decode`) does the matching, so quotes and braces
inside strings never confuse it. When several objects appear, the largest
wins (prose such as "an empty {} here" must not beat the answer). An answer
cut short is no answer: the complete objects nested inside it are not
candidates, so the runner asks again instead of validating a fragment.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|jsonc)?[ \t]*\r?\n(.*?)```", re.S)
_DECODER = json.JSONDecoder()
MAX_CANDIDATES = 500  # bound the scan of pathological prose


def extract_json(text: str) -> dict[str, Any] | None:
    if not isinstance(text, str):
        return None
    stripped = text.strip().lstrip("\ufeff")
    try:
        value = json.loads(stripped)
        if isinstance(value, dict):
            return value
    except (ValueError, RecursionError):
        pass
    for match in _FENCE.finditer(text):
        try:
            value = json.loads(match.group(1))
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
        # A "```" inside a JSON string ends the regex's match early, so decode from
        # the fence's start rather than only inside what the regex matched.
        found = _largest_object(text[match.start(1):])
        if found is not None:
            return found
    return _largest_object(text)


def _largest_object(text: str) -> dict[str, Any] | None:
    best: tuple[int, dict[str, Any]] | None = None
    pos = text.find("{")
    tries = 0
    while pos != -1 and tries < MAX_CANDIDATES:
        tries += 1
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if _runs_off_the_end(text, exc):
                # An object cut short (say, at max_tokens) spans to the end of the text, so
                # every complete object after `pos` is a fragment nested inside it, not an answer.
                if best is None or len(text) - pos > best[0]:
                    return None
                break
            pos = text.find("{", pos + 1)
            continue
        except (ValueError, RecursionError):
            pos = text.find("{", pos + 1)
            continue
        if isinstance(value, dict) and (best is None or end - pos > best[0]):
            best = (end - pos, value)
        pos = text.find("{", end)  # objects nested inside this one are smaller
    return best[1] if best else None


def _runs_off_the_end(text: str, exc: json.JSONDecodeError) -> bool:
    """The decoder needed more text: the value was truncated, not malformed."""
    return exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
