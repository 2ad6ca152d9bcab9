"""Building envelopes: success, and failure with the right E-code, meta and suggestion.

Every failure the runtime produces goes through `failure()`, so each carries
the numeric code, `recoverable` from error-codes.md, an actionable
`suggestion`, and the meta block the spec prescribes for its layer. It is also
the one place API keys are masked: whatever a library or server quoted back
(raw, repr-escaped, JSON-escaped, as bytes) never reaches an envelope, and so
never stdout or the history (AGENTS.md invariant 7).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from cogtui.core.rules.error_codes import LEGACY_CODES, error_meta, normalize_code, recoverable
from cogtui.core.run.providers.registry import secret_variables

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


REDACTED = "[redacted]"
_USERINFO = re.compile(r"(\w+://)[^/@\s]+@")
_UNPRINTABLE = re.compile(r"[^\x20-\x7e]+")


def _key_forms(key: str) -> set[str]:
    """Every way a library may have written `key` into a message."""
    forms = {
        key,
        key.strip(),
        repr(key)[1:-1],
        json.dumps(key)[1:-1],
        json.dumps(key, ensure_ascii=False)[1:-1],
        repr(key.encode("utf-8", "surrogatepass"))[2:-1],
        key.encode("unicode_escape").decode("ascii"),
    }
    # A message may quote only the part before a line break (or a bad character): each printable run counts.
    forms.update(part.strip() for part in _UNPRINTABLE.split(key))
    # Very short values (a local server's dummy key) are left alone: masking them would mangle ordinary words.
    return {form for form in forms if len(form) >= 8}


def _secrets() -> list[str]:
    forms: set[str] = set()
    for var in secret_variables():  # every provider's (providers/registry.py)
        forms |= _key_forms(os.environ.get(var) or "")
    return sorted(forms, key=len, reverse=True)  # longest first, so a form never survives half-masked


def redact_keys(text: str, _forms: list[str] | None = None) -> str:
    """Mask the API keys from the environment (and credentials in URLs), should anything echo one back."""
    text = _USERINFO.sub(r"\1***@", text)  # credentials written into a base URL (https://user:pass@host)
    for form in _secrets() if _forms is None else _forms:
        if form in text:
            text = text.replace(form, REDACTED)
    return text


def redact(value: Any, _forms: list[str] | None = None) -> Any:
    """`redact_keys` over every string in a JSON-like value (dict keys included)."""
    forms = _secrets() if _forms is None else _forms
    if isinstance(value, str):
        return redact_keys(value, forms)
    if isinstance(value, dict):
        return {redact(k, forms): redact(v, forms) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v, forms) for v in value]
    return value


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
    forms = _secrets()
    message = redact_keys(message, forms)
    suggestion = redact_keys(suggestion, forms) if suggestion else None
    explain = redact_keys(explain, forms) if explain else None
    details = redact(details, forms) if details else None
    meta = redact(meta, forms) if meta else None
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


def is_envelope(value: Any) -> bool:
    """A v2.2 envelope (as opposed to a bare v2.1 payload)."""
    return isinstance(value, dict) and (
        isinstance(value.get("ok"), bool) or ("meta" in value and ("data" in value or "error" in value))
    )
