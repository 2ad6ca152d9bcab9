"""Runs in and out of the history as NDJSON: one JSON object per line, one run per object.

A line (what `cogn history export` writes, and what `import` reads; production
runtimes that follow the spec can write the same):

    {"module": "code-reviewer", "input_digest": "<sha256 of the canonical input JSON>",
     "provider": "anthropic", "model": "claude-…", "time": "2026-11-25T07:00:00.000Z",
     "envelope": {...}, "input": {...}, "outcome": "ok", "module_version": "1.2.0",
     "module_format": "v2.2", "args": null, "ttfc_ms": 120.0, "total_ms": 900.0,
     "usage": {"input_tokens": 1, "output_tokens": 2}, "session_id": null}

Required: `module`, `provider`, `time` (ISO-8601, or epoch seconds), `envelope`
(which must pass the envelope rules), and `input_digest` or `input` (both:
they must agree). `model` may be null; `module`, `provider` and `model` are
taken from the envelope when the line leaves them out. Unknown keys are
ignored. Import skips a run already stored (same RunRecord.key), so importing
a file twice changes nothing the second time.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from cogtui.core.files.terminal_text import terminal_json
from cogtui.core.history.records import OUTCOMES, RunRecord, digest, iso_utc
from cogtui.core.history.store import History
from cogtui.core.rules.envelope_rules import check_envelope

MAX_LINE_BYTES = 16 * 1024 * 1024
BATCH = 500
HEX64 = re.compile(r"[0-9a-f]{64}")


class BadLine(ValueError):
    """One line that cannot be imported; the message says why."""


LATEST_EPOCH = 253_402_300_799  # 9999-12-31T23:59:59Z: the last time ISO-8601 (and the export) can write


def parse_time(value: Any) -> float:
    """ISO-8601 (a zone-less time is UTC; a date alone is its midnight UTC) or epoch seconds (a number, or
    text of one: `--since 1764000000`), from 1970 to the year 9999: what an export can write back."""
    if isinstance(value, str) and _is_number(value.strip()):
        value = float(value.strip())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value) and 0 <= value <= LATEST_EPOCH:
            return float(value)
        raise BadLine(f"time {value!r} is not epoch seconds between 1970 and the year 9999")
    if not isinstance(value, str):
        raise BadLine("time must be an ISO-8601 string (2026-11-25T07:00:00Z) or epoch seconds")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise BadLine(f"time {value[:40]!r} is not ISO-8601 (e.g. 2026-11-25T07:00:00Z)") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


NO_INPUT_DIGEST = digest(None)  # a run whose input really was null; any other digest with no input was imported


def to_line(run: RunRecord) -> dict[str, Any]:
    line = _line_of(run)
    if run.input is None and run.input_hash != NO_INPUT_DIGEST:  # imported with its digest only: never stored
        del line["input"]
    return line


def _line_of(run: RunRecord) -> dict[str, Any]:
    return {
        "module": run.module,
        "input_digest": run.input_hash,
        "provider": run.provider,
        "model": run.model,
        "time": iso_utc(run.started_at),
        "envelope": run.envelope,
        "input": run.input,
        "outcome": run.outcome,
        "module_version": run.module_version,
        "module_format": run.module_format,
        "args": run.args,
        "ttfc_ms": run.ttfc_ms,
        "total_ms": run.total_ms,
        "usage": run.usage,
        "session_id": run.session_id,
    }


def export_runs(history: History, out: IO[str], module: str | None = None, since: float | None = None) -> int:
    """Write the runs as NDJSON, in the order they were recorded; returns how many.

    Lone surrogates (which no encoder writes), C1 controls and bidi overrides are written as JSON escapes:
    the same strings once decoded, and nothing a terminal acts on."""
    n = 0
    for run in history.iter_runs(module, since):
        out.write(terminal_json(to_line(run), separators=(",", ":"), allow_nan=False) + "\n")
        n += 1
    return n


def _reject_constant(name: str) -> Any:
    raise BadLine(f"{name} is not JSON")


def _optional(line: dict[str, Any], key: str, kinds: tuple[type, ...], what: str) -> Any:
    value = line.get(key)
    if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
        raise BadLine(f"{key} must be {what} or null")
    return value


def _name(line: dict[str, Any], envelope: dict[str, Any], key: str, required: bool) -> Any:
    value = line.get(key, envelope.get(key))
    if required and not (isinstance(value, str) and value.strip()):
        raise BadLine(f"{key} is required (a non-empty string)")
    if value is not None and not isinstance(value, str):
        raise BadLine(f"{key} must be a string")
    return value


def parse_line(text: str) -> RunRecord:
    """One NDJSON line as a RunRecord, or BadLine saying what is wrong with it."""
    try:
        line = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(line, dict):
        raise BadLine("a line must be a JSON object with module, input_digest, provider, model, time and envelope")
    envelope = line.get("envelope")
    if not isinstance(envelope, dict):
        raise BadLine("envelope is required (a JSON object)")
    violations = check_envelope(envelope)
    if violations:
        shown = "; ".join(f"{v.code} at {v.to_json()['path']}: {v.message}" for v in violations[:3])
        more = f" (and {len(violations) - 3} more)" if len(violations) > 3 else ""
        raise BadLine(f"the envelope breaks the envelope rules: {shown}{more}")
    if "time" not in line:
        raise BadLine("time is required (ISO-8601, e.g. 2026-11-25T07:00:00Z)")
    given = line.get("input_digest")
    if given is not None and not (isinstance(given, str) and HEX64.fullmatch(given)):
        raise BadLine("input_digest must be 64 lowercase hex digits (SHA-256 of the canonical input JSON)")
    if "input" in line and given is not None and digest(line["input"]) != given:
        raise BadLine("input_digest does not match input")
    if "input" not in line and given is None:
        raise BadLine("input_digest is required (or the input itself)")
    outcome = line.get("outcome", "ok" if envelope.get("ok") is True else "error")
    if outcome not in OUTCOMES or (outcome == "ok") != (envelope.get("ok") is True):
        raise BadLine(f"outcome must be one of {', '.join(OUTCOMES)} and agree with envelope.ok")
    usage = _optional(line, "usage", (dict,), "an object of token counts")
    if usage is not None and not all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values()):
        raise BadLine("usage must hold whole numbers")
    return RunRecord(
        module=_name(line, envelope, "module", required=True),
        module_version=_optional(line, "module_version", (str,), "a string"),
        module_format=_optional(line, "module_format", (str,), "a string"),
        provider=_name(line, envelope, "provider", required=True),
        model=_name(line, envelope, "model", required=False),
        input=line.get("input"),
        args=_optional(line, "args", (str,), "a string"),
        envelope=envelope,
        started_at=parse_time(line["time"]),
        ttfc_ms=_optional(line, "ttfc_ms", (int, float), "a number"),
        total_ms=_optional(line, "total_ms", (int, float), "a number"),
        usage=usage,
        outcome=outcome,
        session_id=_optional(line, "session_id", (str,), "a string"),
        input_digest=given if given is not None else None,
    )


@dataclass
class ImportReport:
    imported: int = 0
    duplicates: int = 0
    bad: list[tuple[int, str]] = field(default_factory=list)  # (1-based line number, why)

    def to_json(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "duplicates": self.duplicates,
            "bad_lines": [{"line": n, "error": why} for n, why in self.bad],
        }


def read_lines(stream: IO[bytes]) -> Iterator[tuple[int, str | BadLine]]:
    """(line number, text or why it is unreadable) for each non-blank line; lines are bounded in size."""
    for number, raw in enumerate(iter(lambda: stream.readline(MAX_LINE_BYTES + 1), b""), start=1):
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the oversized line
                raw = stream.readline(MAX_LINE_BYTES)
            yield number, BadLine(f"longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield number, BadLine(f"not UTF-8 (byte {exc.start + 1})")
            continue
        if text.strip():
            yield number, text


def import_runs(history: History, stream: IO[bytes]) -> ImportReport:
    """Validate every line, store the good ones (in batches, skipping runs already stored), report the rest."""
    report = ImportReport()
    batch: list[RunRecord] = []

    def flush() -> None:
        ids = history.record_many(batch, skip_known=True)
        report.imported += sum(1 for i in ids if i)
        report.duplicates += sum(1 for i in ids if not i)
        batch.clear()

    for number, text in read_lines(stream):
        try:
            if isinstance(text, BadLine):
                raise text
            batch.append(parse_line(text))
        except BadLine as exc:
            report.bad.append((number, str(exc)))
            continue
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    return report
