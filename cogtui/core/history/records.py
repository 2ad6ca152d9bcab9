"""A run as history keeps it, and the one place where it becomes table rows and back.

`encode_run` turns a `RunRecord` into the `runs` row plus the derived
`insights` and `custom_enums` rows; `decode_run` turns a `runs` row back into a
`RunRecord`. Both backends (SQLite and PostgreSQL) store and read exactly these
tuples, so a change to how rows are written or read is made here once.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cogtui.core.rules.envelope_rules import PathT, custom_enum_values, insights_of

OUTCOMES = ("ok", "error", "interrupted")


class HistoryError(Exception):
    """The history cannot be used; the message names the store (a file or a redacted URL) and what to do.

    `refused`: the store refused the values written (a constraint, a value it cannot hold), not the write
    itself; the same run would be refused again, while other runs can still be stored (outbox delivery sets
    such a run aside and goes on, HIST-7)."""

    def __init__(self, path: Path | str, message: str, refused: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.refused = refused


class HistoryConfigError(HistoryError):
    """The history's location cannot be used as configured: a URL cogtui does not read, or the PostgreSQL
    driver (the `postgres` extra) not installed. Nothing can be kept for it: the user must change the setup."""


def _encodable(text: str) -> str:
    """Text SQLite and UTF-8 can store: lone surrogates become the JSON escape \\udXXX (same string decoded)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def canonical_json(value: Any) -> str:
    # default=str: an input holding a non-JSON value (a Path, a datetime) is
    # still recorded, as its text, rather than failing the run's bookkeeping.
    return _encodable(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str))


def dumps(value: Any) -> str:
    return _encodable(json.dumps(value, ensure_ascii=False, default=str))


def digest(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()


def iso_utc(ts: float) -> str:
    """Epoch seconds as ISO-8601 UTC with milliseconds, e.g. 2024-05-01T12:00:00.000Z."""
    try:
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, ValueError, OSError):
        return str(ts)  # a nonsense clock value is shown, not fatal


@dataclass(frozen=True)
class RunRecord:
    """One run as history stores it. There is deliberately no field for
    credentials: whatever the provider needed stays in the environment."""

    module: str
    module_version: str | None
    module_format: str | None
    provider: str
    model: str | None
    input: Any
    args: str | None
    envelope: dict[str, Any]
    started_at: float  # epoch seconds
    ttfc_ms: float | None  # time to first chunk
    total_ms: float | None
    usage: dict[str, int] | None
    outcome: str  # "ok" | "error" | "interrupted"
    session_id: str | None = None
    id: int | None = None  # set when read back
    # The input's digest when the input itself is not known (an imported production
    # envelope carries only its digest); read back from the store for every run.
    input_digest: str | None = field(default=None, compare=False)

    @property
    def input_hash(self) -> str:
        """Same input, same hash: lets the UI group re-runs of one input."""
        return self.input_digest or digest(self.input)

    @property
    def error_code(self) -> str | None:
        if not isinstance(self.envelope, dict) or self.envelope.get("ok") is True:
            return None
        err = self.envelope.get("error")
        code = err.get("code") if isinstance(err, dict) else None
        return code if isinstance(code, str) else None

    @property
    def contract_valid(self) -> bool:
        """The run ended in a success envelope: its data passed the module's contract (the runner
        fails a run whose answer does not; an import takes a success only if it passes the envelope
        rules). Only these runs feed insights and custom enum values (HIST-1)."""
        return self.outcome == "ok" and isinstance(self.envelope, dict) and self.envelope.get("ok") is True

    @property
    def key(self) -> str:
        """What makes two records the same run (import skips a run whose key is stored):
        module, input digest, provider, model, time to the millisecond and the envelope."""
        return run_digest(self.module, self.input_hash, self.provider, self.model, self.started_at, self.envelope)


def run_digest(module: str, input_hash: str, provider: str, model: str | None, started_at: float, envelope: Any) -> str:
    return digest([module, input_hash, provider, model, iso_utc(started_at), envelope])


def _text(value: Any) -> str | None:
    # Models put odd things in string slots; keep them readable, not dropped.
    return value if value is None or isinstance(value, str) else dumps(value)


def field_path(path: PathT) -> str:
    """("issues", 0, "category") -> "issues[].category": every array item is one field."""
    out = ""
    for part in path:
        out += "[]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


Rows = list[tuple[str | None, str, str | None]]


def derived_rows(envelope: Any) -> tuple[Rows, Rows]:
    """What the aggregation needs from one envelope, read from `data` of a success
    or `partial_data` of a failure: (suggested_mapping, text, evidence) for each
    insight object, and (field, value, reason) for each `{custom, reason}` outside
    `extensions`. A failure's rows are not stored: they are counted as excluded (HIST-1)."""
    payload = (
        envelope.get("data" if envelope.get("ok") is True else "partial_data") if isinstance(envelope, dict) else None
    )
    if not isinstance(payload, dict):
        return [], []
    items = insights_of(payload)
    insights: Rows = [
        (_text(it.get("suggested_mapping")), _text(it.get("text")) or "", _text(it.get("evidence")))
        for it in (items if isinstance(items, list) else [])
        if isinstance(it, dict)
    ]
    enums: Rows = [
        (field_path(p), _text(obj.get("custom")) or "", _text(obj.get("reason")))
        for p, obj in custom_enum_values(payload)
        if p[:1] != ("extensions",)
    ]
    return insights, enums


# The `runs` columns as written, in this order (input_hash, error_code, contract_valid and
# run_digest are derived: for filtering and de-duplicating in SQL; run_digest stays last).
WRITE_COLUMNS = (
    "module",
    "module_version",
    "module_format",
    "provider",
    "model",
    "input",
    "input_hash",
    "args",
    "envelope",
    "error_code",
    "started_at",
    "ttfc_ms",
    "total_ms",
    "usage",
    "outcome",
    "session_id",
    "contract_valid",
    "run_digest",
)
JSON_COLUMNS = frozenset({"input", "envelope", "usage"})
# The `runs` columns as read: RunRecord's field order, then the stored input digest.
READ_COLUMNS = (
    "module",
    "module_version",
    "module_format",
    "provider",
    "model",
    "input",
    "args",
    "envelope",
    "started_at",
    "ttfc_ms",
    "total_ms",
    "usage",
    "outcome",
    "session_id",
    "id",
    "input_hash",
)


def _stored_text(value: Any) -> Any:
    """A text column's value as the databases can take it: lone surrogates (a non-UTF-8 byte in `--args` or a
    name, decoded by Python with surrogateescape) as their JSON escape, like the JSON columns' text."""
    return _encodable(value) if isinstance(value, str) else value


def encode_run(run: RunRecord) -> tuple[tuple[Any, ...], Rows, Rows]:
    """The `runs` row (WRITE_COLUMNS, JSON columns as text) and the derived rows.
    Serialised before the transaction, so the write lock is held only for inserts."""
    if run.outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {run.outcome!r}")
    row = (
        _stored_text(run.module),
        _stored_text(run.module_version),
        _stored_text(run.module_format),
        _stored_text(run.provider),
        _stored_text(run.model),
        canonical_json(run.input),
        run.input_hash,
        _stored_text(run.args),
        dumps(run.envelope),
        run.error_code,
        float(run.started_at),
        run.ttfc_ms,
        run.total_ms,
        None if run.usage is None else dumps(run.usage),
        run.outcome,
        _stored_text(run.session_id),
        int(run.contract_valid),
        run.key,
    )
    return (row, *derived_rows(run.envelope))


def _cell(value: Any, name: str, kinds: tuple[type, ...], optional: bool = False) -> Any:
    """A cell of the expected type, else TypeError: SQLite keeps whatever was written into any column."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError(f"{name} holds {type(value).__name__}")
    return value


NUMBER = (int, float)


def decode_run(row: tuple[Any, ...]) -> RunRecord:
    """A `runs` row (READ_COLUMNS, JSON columns as text) as a RunRecord. A damaged cell (bad JSON,
    too deep, a blob, a wrong type, an envelope that is not an object) raises ValueError,
    TypeError or RecursionError: the readers skip the row and say so."""
    (module, version, fmt, provider, model, input_json, args, envelope_json, *rest) = row
    started_at, ttfc_ms, total_ms, usage_json, outcome, session_id, rid, input_hash = rest
    envelope = json.loads(_cell(envelope_json, "envelope", (str, bytes)))
    usage = None if usage_json is None else json.loads(_cell(usage_json, "usage", (str, bytes)))
    if not isinstance(envelope, dict):
        raise TypeError(f"the envelope is {type(envelope).__name__}, not an object")
    if usage is not None and not isinstance(usage, dict):
        raise TypeError(f"usage is {type(usage).__name__}, not an object")
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome {str(outcome)[:20]!r} is not one of {', '.join(OUTCOMES)}")
    return RunRecord(
        _cell(module, "module", (str,)),
        _cell(version, "module_version", (str,), True),
        _cell(fmt, "module_format", (str,), True),
        _cell(provider, "provider", (str,)),
        _cell(model, "model", (str,), True),
        json.loads(_cell(input_json, "input", (str, bytes))),
        _cell(args, "args", (str,), True),
        envelope,
        _cell(started_at, "started_at", NUMBER),
        _cell(ttfc_ms, "ttfc_ms", NUMBER, True),
        _cell(total_ms, "total_ms", NUMBER, True),
        usage,
        outcome,
        _cell(session_id, "session_id", (str,), True),
        rid,
        _cell(input_hash, "input_hash", (str,), True),
    )
