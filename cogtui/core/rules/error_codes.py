"""The error-code taxonomy of ../shared/spec/error-codes.md, as data.

Every failure the runtime or the checker reports names one of these codes.
"""

from __future__ import annotations

import re
from typing import Literal

from cogtui.core.records import record

Recoverable = Literal["yes", "no", "maybe"]


@record
class ErrorCode:
    """An error code of the spec's table: its name, whether it is recoverable, and what it means."""

    code: str
    name: str
    recoverable: Recoverable
    summary: str

    @property
    def layer(self) -> int:
        """1 input, 2 processing, 3 output, 4 runtime."""
        return int(self.code[1])


def _table(rows: str) -> dict[str, ErrorCode]:
    table: dict[str, ErrorCode] = {}
    for line in rows.strip().splitlines():
        code, name, rec, summary = (part.strip() for part in line.split("|"))
        table[code] = ErrorCode(code, name, rec, summary)  # type: ignore[arg-type]
    return table


ERROR_CODES: dict[str, ErrorCode] = _table(
    """
E1000 | PARSE_ERROR | no | JSON parsing failed
E1001 | INVALID_INPUT | yes | input does not match schema
E1002 | MISSING_REQUIRED_FIELD | yes | a required input field is missing
E1003 | TYPE_MISMATCH | yes | an input field has the wrong type
E1004 | UNSUPPORTED_VALUE | maybe | an input value is not supported
E1005 | INPUT_TOO_LARGE | yes | input is over max_input_tokens
E1006 | INVALID_REFERENCE | yes | a reference in the input does not resolve
E1010 | UNSUPPORTED_MEDIA_TYPE | no | the module does not accept this media type
E1011 | MEDIA_TOO_LARGE | yes | media is over its size limit
E1012 | MEDIA_FETCH_FAILED | maybe | media could not be fetched from its URL
E1013 | MEDIA_DECODE_FAILED | no | base64 media could not be decoded
E2001 | LOW_CONFIDENCE | yes | confidence is below the tier's threshold
E2002 | TIMEOUT | maybe | processing timed out
E2003 | TOKEN_LIMIT | yes | the model ran out of tokens
E2004 | NO_ACTION_POSSIBLE | no | nothing can be done for this input
E2005 | SEMANTIC_CONFLICT | maybe | the request conflicts with the module's contract
E2006 | AMBIGUOUS_INPUT | yes | the input is ambiguous
E2007 | INSUFFICIENT_CONTEXT | yes | the input lacks context
E2010 | STREAM_INTERRUPTED | yes | the stream was interrupted
E2011 | STREAM_TIMEOUT | yes | the stream timed out
E3001 | OUTPUT_SCHEMA_VIOLATION | no | output does not match the schema
E3002 | PARTIAL_RESULT | maybe | only part of the result is available
E3003 | MISSING_RATIONALE | no | output has no rationale
E3004 | OVERFLOW_LIMIT | no | too many insights
E3005 | INVALID_ENUM | no | an enum value is not allowed
E3006 | CONSTRAINT_VIOLATION | no | output breaks a module constraint
E4000 | INTERNAL_ERROR | no | an unexpected runtime error
E4001 | PROVIDER_UNAVAILABLE | yes | the provider cannot be reached
E4002 | RATE_LIMITED | yes | the provider rate-limited the request
E4003 | CONTEXT_OVERFLOW | maybe | the prompt is over the model's context
E4004 | CIRCULAR_DEPENDENCY | no | subagent calls form a cycle
E4005 | MAX_DEPTH_EXCEEDED | no | subagent calls are nested too deep
E4006 | MODULE_NOT_FOUND | yes | the module is not installed
E4007 | PERMISSION_DENIED | no | a policy blocks the action
E4010 | STREAMING_NOT_SUPPORTED | no | the runtime cannot stream
E4011 | MULTIMODAL_NOT_SUPPORTED | no | the runtime or model cannot take media
"""
)

LEGACY_CODES: dict[str, str] = {
    "PARSE_ERROR": "E1000",
    "INVALID_INPUT": "E1001",
    "UNSUPPORTED_LANGUAGE": "E1004",
    "NO_SIMPLIFICATION_POSSIBLE": "E2004",
    "BEHAVIOR_CHANGE_REQUIRED": "E2005",
    "SCHEMA_VALIDATION_FAILED": "E3001",
    "INTERNAL_ERROR": "E4000",
    # Not in the legacy table but named in SPEC-v2.2 §5.1.
    "MODULE_NOT_FOUND": "E4006",
}

_NUMERIC = re.compile(r"^E[1-9][0-9]{3}$")
_LEGACY = re.compile(r"^[A-Z][A-Z0-9_]*$")


def is_module_code(code: str) -> bool:
    """Codes E5000-E9999 belong to modules (declared under `error_codes:`)."""
    return bool(_NUMERIC.match(code)) and code[1] in "56789"


def normalize_code(code: str) -> str:
    """Map a legacy string code to its numeric form; anything else is returned as is."""
    return LEGACY_CODES.get(code, code)


def is_wellformed_code(code: object) -> bool:
    """What an envelope may carry in error.code: E-codes or UPPER_SNAKE legacy strings."""
    return isinstance(code, str) and bool(_NUMERIC.match(code) or _LEGACY.match(code))


def recoverable(code: str) -> bool:
    """The `recoverable` flag for an error envelope: "maybe" counts as recoverable."""
    entry = ERROR_CODES.get(normalize_code(code))
    return entry is not None and entry.recoverable != "no"


def legacy_name(code: str) -> str | None:
    """The legacy string of a numeric code in the mapping table (E1001 -> INVALID_INPUT), if it has one."""
    return next((name for name, num in LEGACY_CODES.items() if num == code), None)


def error_meta(code: str, explain: str) -> dict[str, object]:
    """The meta block of a failure the runtime makes: confidence 0.0, risk high, explain from the message (ENV-13).

    error-codes.md allows 0.0-0.5 and medium for some E2 codes; those are for a model that judges its own
    failure. A failure the runtime reports claims no confidence at all.
    """
    text = " ".join(explain.split()) or normalize_code(code)
    return {"confidence": 0.0, "risk": "high", "explain": text[:280]}
