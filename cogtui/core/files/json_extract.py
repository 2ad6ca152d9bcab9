"""Find the JSON object in what a model said: raw JSON, a code fence, or prose around it.

A real JSON decoder (`raw_decode`) does the matching, so quotes and braces
inside strings never confuse it. When several objects appear, the largest
wins (prose such as "an empty {} here" must not beat the answer). An answer
cut short is no answer: the complete objects nested inside it are not
candidates, so the runner asks again instead of validating a fragment.

Only standard JSON counts (docs/spec-decisions.md RUN-10): `NaN`, `Infinity`,
`-Infinity` and numbers that overflow a double (`1e999`) are what Python's
json module accepts but no JSON parser downstream would. An answer holding
one is no answer either (the corrective retry asks again), and neither are
the objects nested inside it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|jsonc)?[ \t]*\r?\n(.*?)```", re.S)
MAX_CANDIDATES = 500  # bound the scan of pathological prose
_MAX_INT_DIGITS = 4300  # sys.int_info.default_max_str_digits


class NonFiniteNumber(ValueError):
    """The text holds NaN, Infinity or a number too large for a double: not standard JSON."""


class _Decoder:
    """A JSON decoder that notes, instead of accepting silently, every non-finite number."""

    def __init__(self) -> None:
        self.bad = False
        self._dec = json.JSONDecoder(parse_constant=self._constant, parse_float=self._float, parse_int=self._int)

    def _constant(self, name: str) -> None:
        self.bad = True
        return None

    def _float(self, text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            self.bad = True
        return value

    def _int(self, text: str) -> int:
        # Python refuses ints of more than 4300 digits with a ValueError, which would make the scan
        # skip to an object nested inside the answer and take that for the answer: such
        # a number is noted like a non-finite one, so the whole answer is refused instead.
        if len(text) > _MAX_INT_DIGITS:
            self.bad = True
            return 0
        return int(text)

    def decode(self, text: str) -> tuple[Any, bool]:
        """(value, bad); raises ValueError (JSONDecodeError) or RecursionError like json.loads."""
        self.bad = False
        return self._dec.decode(text), self.bad

    def raw_decode(self, text: str, pos: int) -> tuple[Any, int, bool]:
        self.bad = False
        value, end = self._dec.raw_decode(text, pos)
        return value, end, self.bad


def loads_finite(text: str) -> Any:
    """`json.loads` for standard JSON only: NaN, Infinity and overflowing numbers raise NonFiniteNumber."""
    value, bad = _Decoder().decode(text)
    if bad:
        raise NonFiniteNumber("NaN, Infinity and numbers beyond a double are not JSON")
    return value


def extract_json(text: str) -> dict[str, Any] | None:
    if not isinstance(text, str):
        return None
    dec = _Decoder()
    stripped = text.strip().lstrip("\ufeff")
    try:
        value, bad = dec.decode(stripped)
        if isinstance(value, dict):
            return None if bad else value
    except (ValueError, RecursionError):
        pass
    for match in _FENCE.finditer(text):
        try:
            value, bad = dec.decode(match.group(1))
        except (ValueError, RecursionError):
            value, bad = None, False
        if isinstance(value, dict):
            return None if bad else value
        # A "```" inside a JSON string ends the regex's match early, so decode from
        # the fence's start rather than only inside what the regex matched.
        found, rejected = _largest_object(text[match.start(1) :], dec)
        if found is not None or rejected:
            return found
    return _largest_object(text, dec)[0]


def _largest_object(text: str, dec: _Decoder) -> tuple[dict[str, Any] | None, bool]:
    """(the largest complete object, or None; whether the largest was rejected for a non-finite number)."""
    best: tuple[int, dict[str, Any] | None] | None = None  # a None value: the largest had NaN/Infinity
    pos = text.find("{")
    tries = 0
    while pos != -1 and tries < MAX_CANDIDATES:
        tries += 1
        try:
            value, end, bad = dec.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if _runs_off_the_end(text, exc):
                # An object cut short (say, at max_tokens) spans to the end of the text, so
                # every complete object after `pos` is a fragment nested inside it, not an answer.
                if best is None or len(text) - pos > best[0]:
                    return None, False
                break
            pos = text.find("{", pos + 1)
            continue
        except (ValueError, RecursionError):
            pos = text.find("{", pos + 1)
            continue
        if isinstance(value, dict) and (best is None or end - pos > best[0]):
            best = (end - pos, None if bad else value)
        pos = text.find("{", end)  # objects nested inside this one are smaller
    if best is None:
        return None, False
    return best[1], best[1] is None


def _runs_off_the_end(text: str, exc: json.JSONDecodeError) -> bool:
    """The decoder needed more text: the value was truncated, not malformed."""
    return exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
