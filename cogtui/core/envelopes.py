"""Building envelopes: success, and failure with the right E-code, meta and suggestion.

Every failure the runtime produces goes through `failure()`, so each carries
the numeric code, `recoverable` from error-codes.md, an actionable
`suggestion`, and the meta block the spec prescribes for its layer.
"""

from __future__ import annotations

from typing import Any

from .errors import ERROR_CODES, LEGACY_CODES, error_meta, normalize_code, recoverable

# Default advice per code; callers pass a more specific suggestion when they have one.
SUGGESTIONS: dict[str, str] = {
    "E1000": "The model did not return JSON. Re-run, or make the prompt's output format stricter.",
    "E1001": "Fix the input so it matches the module's input schema.",
    "E1002": "Add the missing field to the input.",
    "E1003": "Give the field the type the input schema declares.",
    "E1005": "Shorten the input, or raise runtime_requirements.max_input_tokens.",
    "E1006": "Fix the reference in the input.",
    "E1010": "Use a media type the module and the spec accept.",
    "E1011": "Use a smaller file (images 20 MB, audio 25 MB, video 100 MB, PDF 50 MB).",
    "E1012": "Check the URL is public and reachable, or pass the file by path.",
    "E1013": "Re-encode the media as standard base64.",
    "E2001": "Review the result by hand, or run it through a decision-tier module.",
    "E2010": "Re-run; the stream was cut before the final chunk.",
    "E2011": "Re-run, or raise the stream timeout.",
    "E3001": "Compare the partial data with the schema; tighten the prompt or relax the schema.",
    "E3003": "Ask the model for a rationale in the prompt; the module requires one.",
    "E3004": "Lower the number of insights the prompt asks for, or raise overflow.max_items.",
    "E3005": "Use a predefined enum value, or set enums.strategy: extensible.",
    "E3006": "The output broke a module constraint; see error.details.",
    "E4000": "This is a cogtui bug; please report it with the run's input.",
    "E4001": "Check the provider's base URL, your network, and that the service is up.",
    "E4002": "Wait and re-run, or lower the request rate.",
    "E4003": "Shorten the prompt or the input, or pick a model with a larger context.",
    "E4004": "Break the cycle of @call: references between these modules.",
    "E4005": "Flatten the chain of @call: references to at most 5 levels.",
    "E4006": "Check the module name and the search path (cogn list).",
    "E4007": "The module's policies forbid this; change the policy or the input.",
    "E4010": "Use sync mode, or a provider that streams.",
    "E4011": "Use a provider and model with vision, or remove the media input.",
}


def failure(
    code: str,
    message: str,
    *,
    suggestion: str | None = None,
    partial_data: dict[str, Any] | None = None,
    details: dict[str, Any] | None = None,
    explain: str | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    numeric = normalize_code(code)
    err: dict[str, Any] = {
        "code": numeric,
        "message": message,
        "recoverable": recoverable(numeric),
        "suggestion": suggestion or SUGGESTIONS.get(numeric, "See error.details."),
    }
    legacy = next((name for name, num in LEGACY_CODES.items() if num == numeric), None)
    info = dict(details or {})
    if legacy and code != numeric:
        info.setdefault("legacy_code", code)
    elif legacy:
        info.setdefault("legacy_code", legacy)
    if info:
        err["details"] = info
    env: dict[str, Any] = {"ok": False, "meta": meta or error_meta(numeric, explain or message), "error": err}
    if partial_data:
        env["partial_data"] = partial_data
    return env


def success(meta: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "meta": meta, "data": data}


def error_name(code: str) -> str:
    entry = ERROR_CODES.get(normalize_code(code))
    return entry.name if entry else code


def is_envelope(value: Any) -> bool:
    """A v2.2 envelope (as opposed to a bare v2.1 payload)."""
    return isinstance(value, dict) and (
        isinstance(value.get("ok"), bool) or ("meta" in value and ("data" in value or "error" in value))
    )
