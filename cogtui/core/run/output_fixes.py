"""Opt-in fixes of model output beyond the spec's repair pass (SPEC-v2.2 §4.1; docs/spec-decisions.md ENV-10).

The repair pass proper fills missing meta fields, truncates explain and
normalises enum case and whitespace. Anything more changes what the model
said, so it happens only when the user asks for it by name (config
`output_fixes:`, `cogn run --fix NAME`), never under `--strict`, and never for
a module with `schema_strictness: high`. Whenever a fix acts, the envelope's
`meta.warnings` and the run's history say so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

CONFIDENCE_CLAMP = "confidence_clamp"  # 1.7 -> 1.0, -0.3 -> 0.0 (finite numbers only)
CONFIDENCE_TEXT = "confidence_text"  # "0.85" and "85%" -> 0.85 (finite, then judged like any number)
ENUM_HYPHENS = "enum_hyphens"  # "request-changes" -> request_changes
CORRECTIVE_RETRY = "corrective_retry"  # one more model call when the answer is not JSON

FIXES: dict[str, str] = {
    CONFIDENCE_CLAMP: "clamp a finite meta.confidence outside [0, 1] into the range",
    CONFIDENCE_TEXT: 'read a meta.confidence written as text ("0.85", "85%")',
    ENUM_HYPHENS: "match enum values whose words are joined by hyphens (request-changes)",
    CORRECTIVE_RETRY: "ask the model once more when its answer is not JSON (a second model call)",
}


def parse_fixes(names: Iterable[Any]) -> tuple[frozenset[str], list[str]]:
    """(known fix names, problems). `all` means every fix; unknown names are reported, not guessed."""
    chosen: set[str] = set()
    problems: list[str] = []
    for raw in names:
        for name in str(raw).replace(",", " ").split():
            if name == "all":
                chosen.update(FIXES)
            elif name in FIXES:
                chosen.add(name)
            else:
                problems.append(f"unknown output fix {name!r} (known: all, {', '.join(FIXES)})")
    return frozenset(chosen), problems


def effective_fixes(requested: frozenset[str], strictness: str, strict: bool) -> frozenset[str]:
    """No fix under --strict or for a module whose schema_strictness is high."""
    return frozenset() if strict or strictness == "high" else requested


def confidence_from_text(value: str) -> float | None:
    """`"0.85"` or `"85%"` as a finite number, else None (`"NaN"`, `"1e999"` and `"inf"` are not numbers)."""
    text = value.strip()
    percent = text.endswith("%")
    try:
        number = float(text.rstrip("%").strip())
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    return number / 100 if percent else number
