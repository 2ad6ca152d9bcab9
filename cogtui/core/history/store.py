"""Run history: every module run, recorded in SQLite, and the insights it produced.

One file (`paths.history_path()`), stdlib sqlite3 in WAL mode so the TUI can
read while a `cogn run` in another terminal writes. Each run is written in one
transaction with rows derived from its envelope (`data` on success,
`partial_data` on failure): `insights`, one per `extensions.insights` item
(SPEC-v2.2 §3.4), and `custom_enums`, one per `{custom, reason}` object (§3.5)
outside `extensions`. They exist so "which suggested mappings keep coming
back?" is a GROUP BY over an index, not json.loads of 100,000 envelopes.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from cogtui.core.rules.envelope_rules import PathT, custom_enum_values, insights_of
from cogtui.core.settings import locations as paths

OUTCOMES = ("ok", "error", "interrupted")
# Long enough for a TUI and a `cogn run` loop writing at once (each write is
# well under a millisecond), short enough that a stuck process is reported.
BUSY_TIMEOUT_MS = 10_000
MAX_REASONS = 5


class HistoryError(Exception):
    """The history file cannot be used; the message names the file and what to do."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


def canonical_json(value: Any) -> str:
    # default=str: an input holding a non-JSON value (a Path, a datetime) is
    # still recorded, as its text, rather than failing the run's bookkeeping.
    return _encodable(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str))


def _dumps(value: Any) -> str:
    return _encodable(json.dumps(value, ensure_ascii=False, default=str))


def _encodable(text: str) -> str:
    """Text SQLite and UTF-8 can store: lone surrogates (from JSON \\udXXX or undecodable file names)
    become the JSON escape \\udXXX, which decodes back to the same string."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _plain(value: Any) -> Any:
    """A text column's value with lone surrogates replaced (a module folder named with invalid UTF-8)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
    return value


def iso_utc(ts: float) -> str:
    """Epoch seconds as ISO-8601 UTC with milliseconds, e.g. 2024-05-01T12:00:00.000Z."""
    try:
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, ValueError, OSError, TypeError):
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

    @property
    def input_hash(self) -> str:
        """Same input, same hash: lets the UI group re-runs of one input."""
        return hashlib.sha256(canonical_json(self.input).encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def error_code(self) -> str | None:
        if not isinstance(self.envelope, dict) or self.envelope.get("ok") is True:
            return None
        err = self.envelope.get("error")
        code = err.get("code") if isinstance(err, dict) else None
        return code if isinstance(code, str) else None


def _text(value: Any) -> str | None:
    # Models put odd things in string slots; keep them readable, not dropped.
    return value if value is None or isinstance(value, str) else _dumps(value)


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
    `extensions`."""
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


SCHEMA_V1 = [
    # JSON columns (input, envelope, usage) are TEXT written with ensure_ascii=False.
    # error_code is denormalised from the envelope so failures can be filtered in SQL.
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY, module TEXT NOT NULL, module_version TEXT, module_format TEXT,
        provider TEXT NOT NULL, model TEXT, input TEXT NOT NULL, input_hash TEXT NOT NULL, args TEXT,
        envelope TEXT NOT NULL, error_code TEXT, started_at REAL NOT NULL, ttfc_ms REAL, total_ms REAL,
        usage TEXT, outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'error', 'interrupted')), session_id TEXT)""",
    # Newest-first listing, overall and per module; the implicit rowid suffix
    # makes `ORDER BY started_at DESC, id DESC` an index walk.
    "CREATE INDEX runs_by_module_time ON runs(module, started_at)",
    "CREATE INDEX runs_by_time ON runs(started_at)",
    # ts is the run's started_at; suggested_mapping is NULL when the insight has none.
    """CREATE TABLE insights (
        id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        module TEXT NOT NULL, ts REAL NOT NULL, suggested_mapping TEXT, text TEXT NOT NULL, evidence TEXT)""",
    # Covers the aggregation (GROUP BY module, mapping with MIN/MAX ts), with or
    # without a module filter, and per-module "latest examples" lookups.
    "CREATE INDEX insights_by_module ON insights(module, suggested_mapping, ts)",
    # Latest examples of one mapping across all modules: a LIMIT walk, no sort.
    "CREATE INDEX insights_by_mapping ON insights(suggested_mapping, ts)",
    "CREATE INDEX insights_by_run ON insights(run_id)",  # get-by-run and ON DELETE CASCADE
    # field is the dotted path (issues[].category), value the custom string.
    """CREATE TABLE custom_enums (
        id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        module TEXT NOT NULL, ts REAL NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, reason TEXT)""",
    "CREATE INDEX custom_enums_by_value ON custom_enums(module, field, value, reason)",  # covering
    "CREATE INDEX custom_enums_by_run ON custom_enums(run_id)",
]


def _create_v1(conn: sqlite3.Connection) -> None:
    for statement in SCHEMA_V1:
        conn.execute(statement)


SCHEMA_VERSION = 1
# MIGRATIONS[n] takes a database at user_version n to n + 1 (0 is a new file).
# A later schema change appends a step here; steps run inside one transaction.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _create_v1}

RUN_COLUMNS = (
    "module, module_version, module_format, provider, model, input, args, envelope, "
    "started_at, ttfc_ms, total_ms, usage, outcome, session_id, id"
)
INSERT_RUN = (
    "INSERT INTO runs (module, module_version, module_format, provider, model, input, input_hash, args, "
    "envelope, error_code, started_at, ttfc_ms, total_ms, usage, outcome, session_id) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_INSIGHT = (
    "INSERT INTO insights (run_id, module, ts, suggested_mapping, text, evidence) VALUES (?, ?, ?, ?, ?, ?)"
)
INSERT_ENUM = "INSERT INTO custom_enums (run_id, module, ts, field, value, reason) VALUES (?, ?, ?, ?, ?, ?)"


def _prepare(run: RunRecord) -> tuple[tuple[Any, ...], Rows, Rows]:
    """Serialise before the transaction, so the write lock is held only for inserts."""
    if run.outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {run.outcome!r}")
    row = (
        _plain(run.module),
        _plain(run.module_version),
        _plain(run.module_format),
        _plain(run.provider),
        _plain(run.model),
        canonical_json(run.input),
        run.input_hash,
        _plain(run.args),
        _dumps(run.envelope),
        _plain(run.error_code),
        float(run.started_at),
        run.ttfc_ms,
        run.total_ms,
        None if run.usage is None else _dumps(run.usage),
        run.outcome,
        _plain(run.session_id),
    )
    insights, enums = derived_rows(run.envelope)
    return (row, [tuple(_plain(c) for c in r) for r in insights], [tuple(_plain(c) for c in r) for r in enums])


class CorruptRow(ValueError):
    """A stored row that cannot be read back (damaged JSON, a blob, a wrong type): skipped with a warning."""


def _cell_json(value: Any, column: str) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise CorruptRow(f"{column} holds a blob, not JSON text")
    if not isinstance(value, str):
        raise CorruptRow(f"{column} holds a {type(value).__name__}, not JSON text")
    try:
        return json.loads(value)
    except RecursionError:
        raise CorruptRow(f"{column} is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, an over-long integer
        raise CorruptRow(f"{column} is not valid JSON ({str(exc)[:80]})") from None


def _cell(value: Any, column: str, *types: type) -> Any:
    if value is not None and not isinstance(value, types):
        raise CorruptRow(f"{column} holds a {type(value).__name__}")
    return value


def _record_of(row: tuple[Any, ...]) -> RunRecord:
    """The run of a row; CorruptRow when a cell is damaged (history readers skip it with a warning)."""
    # RUN_COLUMNS lists the columns in RunRecord's field order; three hold JSON.
    (module, version, fmt, provider, model, input_json, args, envelope_json, *rest) = row
    started_at, ttfc_ms, total_ms, usage_json, outcome, session_id, rid = rest
    if not isinstance(module, str) or not isinstance(started_at, (int, float)):
        raise CorruptRow(f"run {rid}: module or started_at is damaged")
    envelope = _cell_json(envelope_json, "envelope")
    if not isinstance(envelope, dict):
        raise CorruptRow(f"run {rid}: envelope is not an object")
    return RunRecord(
        module,
        _cell(version, "module_version", str),
        _cell(fmt, "module_format", str),
        _cell(provider, "provider", str),
        _cell(model, "model", str),
        _cell_json(input_json, "input"),
        _cell(args, "args", str),
        envelope,
        started_at,
        _cell(ttfc_ms, "ttfc_ms", int, float),
        _cell(total_ms, "total_ms", int, float),
        None if usage_json is None else _cell_json(usage_json, "usage"),
        _cell(outcome, "outcome", str),
        _cell(session_id, "session_id", str),
        rid,
    )


def _records(rows: list[Any], skipped: list[str]) -> list[RunRecord]:
    out = []
    for row in rows:
        try:
            out.append(_record_of(row))
        except CorruptRow as exc:
            skipped.append(f"run {row[-1]} skipped: {exc}")
    return out


def _text_cell(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


_NO_SPACE = ("SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_SHMSIZE", "SQLITE_IOERR_TRUNCATE")


def _advice(path: Path, exc: BaseException) -> str:
    text = str(exc).lower()
    name = str(getattr(exc, "sqlite_errorname", ""))
    if name.startswith(_NO_SPACE) or "disk is full" in text or getattr(exc, "errno", None) in (28, 27):
        # ENOSPC, EFBIG, SQLite's own "full": the file is fine, the disk is not (issue 11).
        return (
            f"the disk holding {path.parent} is full (or a file size limit was reached); free some space, "
            "or set COGTUI_DATA_DIR to a folder on another disk. Nothing already recorded was lost"
        )
    if "locked" in text or "busy" in text:
        return "another cogtui process is holding it; try again, or close the other process"
    if "readonly" in text or "unable to open" in text or isinstance(exc, OSError):
        return f"check that {path.parent} is writable, or set COGTUI_DATA_DIR to another folder"
    if isinstance(exc, (sqlite3.ProgrammingError, sqlite3.InterfaceError)):
        return "this is a cogtui bug (used after close, or a RunRecord field of the wrong type); please report it"
    return f"the file is damaged or is not a cogtui history; move it aside (mv {path} {path}.corrupt) and cogtui will start a new one"


PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",  # first: the others may have to wait
    # WAL: readers never block the writer. NORMAL: a commit survives a killed
    # process (what we guard against); fsync happens at checkpoints only.
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
)


@contextmanager
def _transaction(conn: sqlite3.Connection, write: bool = True) -> Iterator[sqlite3.Connection]:
    # A write takes the lock up front (IMMEDIATE), so a concurrent writer waits
    # on busy_timeout instead of failing on a read-to-write upgrade. A read
    # pins one WAL snapshot, so an aggregate and its examples agree even while
    # another process commits; it has nothing to keep, hence ROLLBACK.
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield conn
        conn.execute("COMMIT" if write else "ROLLBACK")
    except BaseException:
        if conn.in_transaction:  # also when COMMIT itself failed: never leave it open
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the error that got us here is the one worth reporting
        raise


def _where(module: str | None) -> tuple[str, list[Any]]:
    return ("WHERE module = ?", [module]) if module is not None else ("", [])


def _examples(conn: sqlite3.Connection, mapping: str | None, module: str | None, n: int) -> list[dict[str, Any]]:
    """The latest `n` insights of one mapping: an index walk backwards over ts, no sort.
    (`= ?` / `IS NULL` rather than `IS ?` so the planner always sees an equality.)"""
    if n <= 0:
        return []
    cond, params = ("suggested_mapping IS NULL", []) if mapping is None else ("suggested_mapping = ?", [mapping])
    if module is not None:
        cond, params = cond + " AND module = ?", [*params, module]
    rows = conn.execute(
        f"SELECT text, evidence, module, ts FROM insights WHERE {cond} ORDER BY ts DESC, id DESC LIMIT ?", [*params, n]
    )
    return [
        {"text": _text_cell(t), "evidence": _text_cell(e), "module": _text_cell(m), "ts": iso_utc(_number(ts))}
        for t, e, m, ts in rows
    ]


def _custom_enums(rows: list[tuple[str, str, str, str | None, int]]) -> list[dict[str, Any]]:
    """Roll (module, field, value, reason, count) rows up to one entry per value."""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in rows:
        mod, field, value = (_text_cell(c) or "" for c in row[:3])
        reason = _text_cell(row[3])
        n = row[4]
        g = groups.setdefault((mod, field, value), {"count": 0, "reasons": []})
        g["count"] += n
        if reason is not None:
            g["reasons"].append((reason, n))
    ordered = sorted(groups.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    return [
        {
            "module": mod,
            "field": field,
            "value": value,
            "count": g["count"],
            "reasons": [r for r, _ in sorted(g["reasons"], key=lambda rn: (-rn[1], rn[0]))[:MAX_REASONS]],
        }
        for (mod, field, value), g in ordered
    ]


class History:
    """The run history in one SQLite file. Safe to share between threads (one lock)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        # The TUI records from worker threads; sqlite3 connections are not
        # thread-safe by themselves, so every use goes through this lock.
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self.skipped: list[str] = []  # warnings for damaged rows the readers skipped
        with self._guard("open"):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN IMMEDIATE / COMMIT ourselves,
            # so a transaction is exactly what record() says it is.
            self._conn = sqlite3.connect(
                str(self.path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
            try:
                for pragma in PRAGMAS:
                    self._conn.execute(pragma).fetchall()
                self._migrate(self._conn)
            except BaseException:
                self._conn.close()
                self._conn = None
                raise

    @classmethod
    def open_default(cls) -> History:
        return cls(paths.history_path())

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:  # refuse before writing anything
            raise HistoryError(
                self.path,
                f"run history {self.path} was written by a newer cogtui "
                f"(schema {version}, this one reads {SCHEMA_VERSION}); upgrade cogtui, "
                "or set COGTUI_DATA_DIR to use another history",
            )
        if version == SCHEMA_VERSION:
            return
        with _transaction(conn):
            # Re-read under the write lock: another process may have just migrated.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            while version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
            conn.execute(f"PRAGMA user_version = {version}")

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """Turn sqlite3's exceptions into a HistoryError that names the file and a fix."""
        try:
            yield
        except HistoryError:
            raise
        except (sqlite3.Error, OSError) as exc:
            raise HistoryError(
                self.path, f"cannot {action} run history {self.path}: {exc}; " + _advice(self.path, exc)
            ) from exc

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise sqlite3.ProgrammingError("history is closed")
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> History:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def record(self, run: RunRecord) -> int:
        """Store one run with its insight and custom-enum rows, all or nothing. Returns its id."""
        return self.record_many([run])[0]

    def record_many(self, runs: Iterable[RunRecord]) -> list[int]:
        """Store several runs in one transaction (imports, benchmarks). `run.id` is ignored."""
        batch = [(run.module, float(run.started_at), _prepare(run)) for run in runs]
        ids: list[int] = []
        with self._lock, self._guard("write to"), _transaction(self._db) as conn:
            for module, ts, (row, insights, enums) in batch:
                rid = conn.execute(INSERT_RUN, row).lastrowid
                assert rid is not None
                if insights:
                    conn.executemany(INSERT_INSIGHT, [(rid, module, ts, *i) for i in insights])
                if enums:
                    conn.executemany(INSERT_ENUM, [(rid, module, ts, *e) for e in enums])
                ids.append(rid)
        return ids

    @contextmanager
    def _snapshot(self, action: str = "read") -> Iterator[sqlite3.Connection]:
        with self._lock, self._guard(action), _transaction(self._db, write=False) as conn:
            yield conn

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        with self._snapshot() as conn:
            return conn.execute(sql, tuple(params)).fetchall()

    def runs(self, module: str | None = None, limit: int = 200, offset: int = 0) -> list[RunRecord]:
        """Newest first (ties: the later-recorded first)."""
        where, params = _where(module)
        rows = self._query(
            f"SELECT {RUN_COLUMNS} FROM runs {where} ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        return _records(rows, self.skipped)

    def get(self, run_id: int) -> RunRecord | None:
        rows = self._query(f"SELECT {RUN_COLUMNS} FROM runs WHERE id = ?", [run_id])
        found = _records(rows, self.skipped)
        return found[0] if found else None

    def count(self, module: str | None = None) -> int:
        where, params = _where(module)
        return int(self._query(f"SELECT COUNT(*) FROM runs {where}", params)[0][0])

    def modules(self) -> list[str]:
        return [r[0] for r in self._query("SELECT DISTINCT module FROM runs ORDER BY module")]

    def insights(self, module: str | None = None, examples: int = 3) -> dict[str, Any]:
        """The `cogn insights --json` document: insights grouped by suggested_mapping
        (null for none), and custom enum values per module and field."""
        where, params = _where(module)
        groups: dict[str | None, dict[str, Any]] = {}
        with self._snapshot("aggregate") as conn:
            # One row per (module, mapping); rolling up across modules in Python
            # is a few hundred steps and lets one covering index serve both filters.
            for mapping, mod, n, first, last in conn.execute(
                f"SELECT suggested_mapping, module, COUNT(*), MIN(ts), MAX(ts) FROM insights {where} "
                "GROUP BY module, suggested_mapping",
                params,
            ):
                # A damaged row (a blob, a text timestamp) is shown as text, never a crash.
                mapping, mod, first, last = _text_cell(mapping), _text_cell(mod), _number(first), _number(last)
                g = groups.setdefault(mapping, {"count": 0, "modules": set(), "first": first, "last": last})
                g["count"] += n
                g["modules"].add(mod)
                g["first"], g["last"] = min(g["first"], first), max(g["last"], last)
            ordered = sorted(groups.items(), key=lambda kv: (-kv[1]["count"], kv[0] is None, kv[0] or ""))
            out = [
                {
                    "suggested_mapping": mapping,
                    "count": g["count"],
                    "modules": sorted(g["modules"]),
                    "examples": _examples(conn, mapping, module, examples),
                    "first_seen": iso_utc(g["first"]),
                    "last_seen": iso_utc(g["last"]),
                }
                for mapping, g in ordered
            ]
            enum_rows = conn.execute(
                "SELECT module, field, value, reason, COUNT(*) FROM custom_enums "
                f"{where} GROUP BY module, field, value, reason",
                params,
            ).fetchall()
        return {"insights": out, "custom_enums": _custom_enums(enum_rows)}

    def insight_timeline(self, module: str | None = None, buckets: int = 30) -> list[tuple[float, int]]:
        """Insight counts in `buckets` equal slices from the first to the last one
        seen: (slice start, count). Empty when there are none. When every insight
        has the same timestamp the slices are 1 s wide and the first holds them all."""
        if buckets < 1:
            raise ValueError("buckets must be at least 1")
        where, params = _where(module)
        with self._snapshot("aggregate") as conn:
            lo, hi = conn.execute(
                f"SELECT MIN(ts), MAX(ts) FROM insights WHERE typeof(ts) IN ('real', 'integer'){where.replace('WHERE', ' AND')}",
                params,
            ).fetchone()
            if lo is None:
                return []
            width = (hi - lo) / buckets if hi > lo else 1.0
            counts = [0] * buckets
            # MIN(..., buckets - 1): the last insight sits exactly on the end edge.
            for b, n in conn.execute(
                f"SELECT MIN(CAST((ts - ?) / ? AS INTEGER), ?) AS b, COUNT(*) FROM insights "
                f"WHERE typeof(ts) IN ('real', 'integer'){where.replace('WHERE', ' AND')} GROUP BY b",
                [lo, width, buckets - 1, *params],
            ):
                counts[max(0, int(b))] += n
        return [(lo + i * width, counts[i]) for i in range(buckets)]
