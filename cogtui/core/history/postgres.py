"""The run history in a PostgreSQL database shared by a team: psycopg 3 and a connection pool.

Imported only when the history location is a `postgresql://` URL, so the
headless CLI never loads psycopg otherwise. Connections are autocommit; every
use is an explicit transaction: writes in READ COMMITTED (each run's inserts
are one transaction, so concurrent writers never lose or half-write a run),
reads in REPEATABLE READ READ ONLY (one snapshot per aggregate, like SQLite's).
PostgreSQL text cannot hold U+0000: it is stored as U+FFFD (HIST-2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from cogtui.core.history.backend import POSTGRESQL, Tx
from cogtui.core.history.location import redact, scrub
from cogtui.core.history.postgres_errors import describe, refuses, server_words
from cogtui.core.history.records import HistoryConfigError, HistoryError, RunRecord

CONNECT_TIMEOUT_S = 10
POOL_MAX = 4
# pg_advisory_xact_lock key for migrations: any constant; this one is "cogtui" in ASCII.
SCHEMA_LOCK = 0x636F6774756900


def _placeholders(sql: str) -> str:
    return sql.replace("?", "%s")  # no statement of ours holds a literal ? or %


class PostgresTx:
    dialect = POSTGRESQL

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.cur = conn.cursor()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.cur.execute(_placeholders(sql), tuple(params))
        return self.cur.fetchall() if self.cur.description is not None else []

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.cur.execute(_placeholders(sql), tuple(params))

    def many(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        self.cur.executemany(_placeholders(sql), params)

    def insert_id(self, sql: str, params: Sequence[Any]) -> int:
        self.cur.execute(_placeholders(sql) + " RETURNING id", tuple(params))
        row = self.cur.fetchone()
        assert row is not None
        return int(row[0])

    def schema_version(self) -> int:
        # Whether cogtui_schema exists is read from pg_class with this statement's snapshot, not through
        # to_regclass: that asks the server's per-connection name cache, which keeps "no such table" from
        # before the schema lock was granted (a cache is refreshed when a table is locked, not when an advisory
        # lock is). A process that waited while another created the tables then saw version 0 and created
        # them again ("relation runs already exists").
        self.cur.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relname = 'cogtui_schema' AND n.nspname = ANY (current_schemas(false)))"
        )
        exists = self.cur.fetchone()
        if not exists or not exists[0]:
            return 0
        self.cur.execute("SELECT MAX(version) FROM cogtui_schema")
        row = self.cur.fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def set_schema_version(self, version: int) -> None:
        self.cur.execute("CREATE TABLE IF NOT EXISTS cogtui_schema (version INTEGER NOT NULL)")
        self.cur.execute("DELETE FROM cogtui_schema")
        self.cur.execute("INSERT INTO cogtui_schema (version) VALUES (%s)", (version,))

    def lock_schema(self) -> None:
        self.cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))


def without_nul(value: Any) -> Any:
    """The value with U+0000 in every string (and key) replaced by U+FFFD."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [without_nul(v) for v in value]
    return value


TEXT_FIELDS = ("module", "module_version", "module_format", "provider", "model", "args", "session_id")


# Raised while connecting, psycopg's plain ProgrammingError (no server's SQLSTATE subclass) is the URL itself:
# it could not be parsed.
BAD_URL_ADVICE = (
    "check the URL's form: postgresql://USER@HOST:PORT/DATABASE (COGTUI_HISTORY_URL or history.url in config.yaml)"
)


class PostgresBackend:
    dialect = POSTGRESQL

    def __init__(self, url: str) -> None:
        self.where: Path | str = redact(url)
        self.url = url
        # One direct connection first: a wrong host, database or password fails here,
        # with the server's own words, instead of as a pool timeout later.
        psycopg.connect(
            url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, fallback_application_name="cogtui"
        ).close()
        self.pool: ConnectionPool[psycopg.Connection[Any]] | None = ConnectionPool(
            url,
            min_size=1,
            max_size=POOL_MAX,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S, "fallback_application_name": "cogtui"},
            timeout=CONNECT_TIMEOUT_S,
            name="cogtui-history",
            open=True,
            # A pooled connection is checked as it is handed out: one the server ended since (a restart,
            # pg_terminate_backend, an idle timeout) is replaced, instead of failing the next run's record.
            check=ConnectionPool.check_connection,
        )

    @contextmanager
    def transaction(self, write: bool) -> Iterator[Tx]:
        if self.pool is None:
            raise psycopg.InterfaceError("history is closed")
        with self.pool.connection() as conn, conn.transaction():
            if not write:
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield PostgresTx(conn)

    def schema_version(self) -> int:
        with self.transaction(write=False) as tx:
            return tx.schema_version()

    def storable(self, run: RunRecord) -> RunRecord:
        changes: dict[str, Any] = {f: without_nul(getattr(run, f)) for f in TEXT_FIELDS}
        return dataclasses.replace(
            run,
            **changes,
            input=without_nul(run.input),
            envelope=without_nul(run.envelope),
            usage=without_nul(run.usage),
            input_digest=run.input_hash,  # the digest of what was given, NULs and all
        )

    def errors(self) -> tuple[type[BaseException], ...]:
        return (psycopg.Error, OSError)

    def describe(self, exc: BaseException) -> str:
        return describe(exc, self.url)

    def refuses(self, exc: BaseException) -> bool:
        return refuses(exc)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def open_postgres(url: str) -> PostgresBackend:
    try:
        return PostgresBackend(url)
    except (psycopg.Error, OSError) as exc:
        where = redact(url)
        if type(exc) is psycopg.ProgrammingError:  # no SQLSTATE: libpq could not read the URL
            message = scrub(f"cannot open run history {where}: {server_words(exc)}; ", url) + BAD_URL_ADVICE
            raise HistoryConfigError(where, message) from exc
        raise HistoryError(where, f"cannot open run history {where}: {describe(exc, url)}") from exc
