"""Run history: every module run, recorded in SQLite (the default) or PostgreSQL, and the insights it produced.

`History` is the one API over either backend (`backend.py`, `postgres.py`).
Each run is written in one transaction with rows derived from its envelope's
`data`: `insights`, one per `extensions.insights` item (SPEC-v2.2 §3.4), and
`custom_enums`, one per `{custom, reason}` object (§3.5) outside `extensions`
(see `records.py`). Only runs that passed their contract feed them, since promoting
what a broken answer said would spread it (HIST-1); a failed run's `partial_data`
is only counted as left out (`insight_exclusions`). The
tables and their migrations are in `schema.py`, the aggregations in `aggregate.py`.
Opening a history delivers its outbox (`outbox.py`: the runs kept while it could
not take them); `check` compares the insights totals with a recount (`check.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from cogtui.core.history import aggregate, behind, check, evals, rollups
from cogtui.core.history.backend import Backend, Tx, open_sqlite
from cogtui.core.history.check import CheckReport
from cogtui.core.history.location import HistoryLocation, default_location, parse_location, scrub
from cogtui.core.history.outbox import Delivery, Outbox
from cogtui.core.history.records import (
    JSON_COLUMNS,
    OUTCOMES,
    READ_COLUMNS,
    WRITE_COLUMNS,
    HistoryConfigError,
    HistoryError,
    RunRecord,
    canonical_json,
    decode_run,
    encode_run,
    field_path,
    iso_utc,
)
from cogtui.core.history.schema import SCHEMA_VERSION, migrate

__all__ = [
    "OUTCOMES",
    "SCHEMA_VERSION",
    "History",
    "HistoryConfigError",
    "HistoryError",
    "HistoryLocation",
    "RunRecord",
    "canonical_json",
    "field_path",
    "iso_utc",
]

INSERT_INSIGHT = (
    "INSERT INTO insights (run_id, module, ts, suggested_mapping, text, evidence) VALUES (?, ?, ?, ?, ?, ?)"
)
INSERT_ENUM = "INSERT INTO custom_enums (run_id, module, ts, field, value, reason) VALUES (?, ?, ?, ?, ?, ?)"


def _open_backend(location: HistoryLocation) -> Backend:
    if location.url is not None:
        location.check_driver()
        from cogtui.core.history.postgres import open_postgres  # psycopg only for a PostgreSQL history

        return open_postgres(location.url)
    assert location.path is not None
    return open_sqlite(location.path)


class History:
    """The run history at one location: a SQLite file (a Path, or a path string), a
    `sqlite://` or `postgresql://` URL, or a HistoryLocation. Safe to share between threads."""

    def __init__(self, where: Path | str | HistoryLocation) -> None:
        if isinstance(where, HistoryLocation):
            location = where
        elif isinstance(where, Path):
            location = HistoryLocation(path=where)
        else:
            location = parse_location(where, "history location")
        self.location = location
        self.path: Path | None = location.path  # None for a PostgreSQL history
        self.where = location.display
        self.skipped: list[str] = []  # warnings for damaged rows the readers skipped (docs/security.md)
        self._backend: Backend | None = _open_backend(location)
        dialect = self._backend.dialect
        self._select = ", ".join(dialect.select_json(c) if c in JSON_COLUMNS else c for c in READ_COLUMNS)
        values = ", ".join(dialect.json_param if c in JSON_COLUMNS else "?" for c in WRITE_COLUMNS)
        self._insert_run = f"INSERT INTO runs ({', '.join(WRITE_COLUMNS)}) VALUES ({values})"
        try:
            with self._guard("open"):
                migrate(self._backend)
        except BaseException:
            self.close()
            raise
        # Runs kept while this history could not take them (outbox.py) are stored now that it can.
        self.outbox = Outbox(location)
        self.delivery: Delivery = self.outbox.deliver(self)

    def flush(self) -> Delivery:
        """Deliver the outbox again (`cogn history flush`): what the open left, or what was kept since,
        waiting for another process's delivery to end first. The counts add to what the open delivered."""
        opened = self.delivery
        again = self.outbox.deliver(self, wait=True)
        again.delivered += opened.delivered
        again.already += opened.already
        again.set_aside[:0] = opened.set_aside
        again.refused[:0] = opened.refused
        self.delivery = again
        return again

    @property
    def waiting(self) -> int:
        """Runs still waiting in this history's outbox after the last delivery."""
        return self.delivery.waiting

    @classmethod
    def open_default(cls) -> History:
        """The history `$COGTUI_HISTORY_URL` or config's `history.url` names, else the data folder's file."""
        return cls(default_location())

    @property
    def backend_name(self) -> str:
        return self._live().dialect.name

    def _live(self) -> Backend:
        if self._backend is None:
            raise HistoryError(
                self.where, f"run history {self.where} is closed; this is a cogtui bug, please report it"
            )
        return self._backend

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """Turn the backend's exceptions into a HistoryError that names the store and a fix."""
        backend = self._live()
        try:
            yield
        except HistoryError:
            raise
        except backend.errors() as exc:
            message = f"cannot {action} run history {self.where}: {backend.describe(exc)}"
            if self.location.url is not None:
                message = scrub(message, self.location.url)
            raise HistoryError(self.where, message, refused=backend.refuses(exc)) from exc

    @contextmanager
    def _tx(self, action: str, write: bool) -> Iterator[Tx]:
        with self._guard(action), self._live().transaction(write) as tx:
            yield tx

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None

    def __enter__(self) -> History:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------ writing

    def record(self, run: RunRecord) -> int:
        """Store one run with its insight and custom-enum rows, all or nothing. Returns its id."""
        return self.record_many([run])[0]

    def record_many(self, runs: Iterable[RunRecord], skip_known: bool = False) -> list[int]:
        """Store several runs in one transaction (imports, benchmarks). `run.id` is ignored.
        With skip_known, a run whose key (RunRecord.key) is already stored, or came
        earlier in this batch, is not stored again; its id in the result is 0."""
        backend = self._live()
        stored = [backend.storable(run) for run in runs]
        batch = [(run.module, float(run.started_at), encode_run(run)) for run in stored]
        ids: list[int] = []
        with self._tx("write to", write=True) as tx:
            if skip_known:
                tx.lock_schema()  # one importer at a time decides what is new
            known: set[str] = set()
            totals = rollups.Totals()
            for module, ts, (row, insights, enums) in batch:
                key = row[-1]
                if skip_known and (key in known or tx.rows("SELECT 1 FROM runs WHERE run_digest = ? LIMIT 1", [key])):
                    ids.append(0)
                    continue
                known.add(key)
                rid = tx.insert_id(self._insert_run, row)
                ids.append(rid)
                if not row[WRITE_COLUMNS.index("contract_valid")]:  # insights counted as left out, not stored (HIST-1)
                    totals.exclude(module, insights, enums)
                    continue
                if insights:
                    tx.many(INSERT_INSIGHT, [(rid, module, ts, *i) for i in insights])
                if enums:
                    tx.many(INSERT_ENUM, [(rid, module, ts, *e) for e in enums])
                totals.add(module, ts, insights, enums)
            totals.write(tx)
        return ids

    # ------------------------------------------------------------ evals and the response cache (evals.py)

    def record_eval(self, report: dict[str, Any], per_module: dict[str, tuple[int, int]], started_at: float) -> int:
        """Store an eval's report (its runs are recorded first) with (passed, cases) per module; returns its id."""
        with self._tx("write to", write=True) as tx:
            return evals.record(tx, report, per_module, started_at)

    def eval_report(self, eval_id: int) -> dict[str, Any] | None:
        with self._tx("read", write=False) as tx:
            return evals.report(tx, eval_id)

    def eval_trend(self, module: str, limit: int = 20) -> list[evals.EvalPoint]:
        """The module's last `limit` evals, oldest first: its pass rate over time."""
        with self._tx("read", write=False) as tx:
            return evals.trend(tx, module, limit)

    def store_responses(self, entries: list[tuple[int, str, str]], created_at: float) -> None:
        """Keep recorded runs' model answers for the response cache: (run id, request key, raw answer), one write."""
        if entries:
            with self._tx("write to", write=True) as tx:
                evals.store_responses(tx, entries, created_at)

    def cached_response(self, key: str) -> tuple[int, str] | None:
        """(the run that paid for it, the raw answer) of the newest entry for a request key."""
        with self._tx("read", write=False) as tx:
            return evals.cached_response(tx, key)

    # ------------------------------------------------------------ reading

    def check(self) -> CheckReport:
        """The insights totals against a recount of the rows, in one snapshot (`cogn history check`)."""
        with self._tx("check", write=False) as tx:
            return check.check(tx)

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        with self._tx("read", write=False) as tx:
            return tx.rows(sql, list(params))

    def runs(
        self, module: str | None = None, limit: int = 200, offset: int = 0, since: float | None = None
    ) -> list[RunRecord]:
        """Newest first (ties: the later-recorded first); `since`: started at or after (epoch seconds)."""
        conds: list[str] = [] if module is None else ["module = ?"]
        params: list[Any] = [] if module is None else [module]
        if since is not None:
            conds, params = [*conds, "started_at >= ?"], [*params, float(since)]
        where = f"WHERE {' AND '.join(conds)}" if conds else ""
        rows = self._query(
            f"SELECT {self._select} FROM runs {where} ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        return self._decoded(rows)

    def _decoded(self, rows: list[Any]) -> list[RunRecord]:
        """The rows as runs; a damaged row (bad JSON, too deep, a blob, a wrong type) is skipped with a warning."""
        out = []
        for row in rows:
            try:
                out.append(decode_run(row))
            except (ValueError, TypeError, RecursionError, AttributeError) as exc:
                self._note(f"run {row[READ_COLUMNS.index('id')]} skipped: damaged row ({str(exc)[:80]})")
        return out

    def _note(self, problem: str) -> None:
        if problem not in self.skipped:  # each damaged row said once, however many readers met it
            self.skipped.append(problem)

    def iter_runs(self, module: str | None = None, since: float | None = None, page: int = 1000) -> Iterator[RunRecord]:
        """Every run (or one module's, or those started at or after `since`) in recording order,
        read a page at a time: an export of a million runs never holds them all."""
        conds: list[str] = ["id > ?"]
        params: list[Any] = [0]
        if module is not None:
            conds, params = [*conds, "module = ?"], [*params, module]
        if since is not None:
            conds, params = [*conds, "started_at >= ?"], [*params, float(since)]
        sql = f"SELECT {self._select} FROM runs WHERE {' AND '.join(conds)} ORDER BY id LIMIT ?"
        while True:
            rows = self._query(sql, [*params, page])
            yield from self._decoded(rows)
            if len(rows) < page:
                return
            params[0] = rows[-1][READ_COLUMNS.index("id")]

    def get(self, run_id: int) -> RunRecord | None:
        rows = self._query(f"SELECT {self._select} FROM runs WHERE id = ?", [run_id])
        found = self._decoded(rows)
        return found[0] if found else None

    def count(self, module: str | None = None) -> int:
        where, params = aggregate.where_module(module)
        return int(self._query(f"SELECT COUNT(*) FROM runs {where}", params)[0][0])

    def latest_id(self) -> int:
        """The newest run's id (0 for none): it changes whenever any writer adds a run, and
        costs one index probe, so a screen can poll it to know when to re-read."""
        return int(self._query("SELECT COALESCE(MAX(id), 0) FROM runs")[0][0])

    def modules(self) -> list[str]:
        with self._tx("read", write=False) as tx:
            return aggregate.modules(tx)

    def insights(self, module: str | None = None, examples: int = 3) -> dict[str, Any]:
        """The `cogn insights --json` document: insights grouped by suggested_mapping
        (null for none), custom enum values per module and field, and what runs that
        failed their contract carried, left out of both (`excluded`, HIST-1)."""
        with self._tx("aggregate", write=False) as tx:
            return aggregate.insights(tx, module, examples, self._note)

    def insight_runs(self, mapping: str | None, module: str | None = None, limit: int = 50) -> dict[str, Any]:
        """The insights behind one mapping group, full text, with their runs (behind.py)."""
        with self._tx("read", write=False) as tx:
            return behind.insight_runs(tx, mapping, module, limit, self._note)

    def enum_runs(self, module: str, field: str, value: str, limit: int = 50) -> dict[str, Any]:
        """The uses of one custom enum value, with their reasons and runs (behind.py)."""
        with self._tx("read", write=False) as tx:
            return behind.enum_runs(tx, module, field, value, limit, self._note)

    def insight_timeline(self, module: str | None = None, buckets: int = 30) -> list[tuple[float, int]]:
        """Insight counts in `buckets` equal slices from the first to the last one
        seen: (slice start, count). Empty when there are none. When every insight
        has the same timestamp the slices are 1 s wide and the first holds them all."""
        if buckets < 1:
            raise ValueError("buckets must be at least 1")
        with self._tx("aggregate", write=False) as tx:
            return aggregate.timeline(tx, module, buckets, self._note)
