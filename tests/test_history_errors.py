"""A history error says what the database did, in its words, and the next step; "this is a cogtui bug" only for
cogtui's own misuse of its driver, with what a report needs. (Faults while running: test_history_faults.py.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from history_kit import raw

from cogtui.core.history.backend import sqlite_advice
from cogtui.core.history.postgres_errors import describe, server_address, server_words
from cogtui.core.history.store import History, HistoryError


def opening(url: str) -> str:
    with pytest.raises(HistoryError) as info:
        History(url)
    return str(info.value)


def test_a_database_that_does_not_exist(pg_server: Any) -> None:
    text = opening(pg_server.url("nosuchdb"))
    assert f"the database nosuchdb does not exist on the socket {pg_server.dir}/.s.PGSQL.5432" in text
    assert '(database "nosuchdb" does not exist); create it (createdb nosuchdb)' in text and "bug" not in text


def test_a_role_that_does_not_exist(pg_server: Any) -> None:
    text = opening(pg_server.url().replace("postgres@", "nobody:pw@"))
    assert 'refused the role nobody (role "nobody" does not exist); check the user name' in text
    assert "PGPASSWORD or ~/.pgpass" in text and ":pw@" not in text and "bug" not in text


def test_a_table_that_is_not_cogtuis(pg_server: Any) -> None:
    url = pg_server.new_database()
    raw(url, "CREATE TABLE runs (x int)")
    text = opening(url)
    assert 'the database already holds a table cogtui did not make (relation "runs" already exists)' in text
    assert "a database of its own, or a schema (options=-csearch_path%3Dcogtui in the URL)" in text
    assert raw(url, "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'insights'") == [(0,)]
    pg_server.drop_databases([url])


def test_libpq_words_and_address() -> None:
    exc = psycopg.OperationalError(
        'connection failed: connection to server at "db.internal" (10.0.0.5), port 6432 failed: FATAL:  '
        'too many connections for role "ann"'
    )
    assert server_words(exc) == 'too many connections for role "ann"'
    assert server_address(exc, "postgresql://ann@db.internal:6432/team") == "db.internal:6432"
    assert server_address(psycopg.OperationalError("x"), "postgresql://ann@db.internal/team") == "db.internal:5432"
    assert "has no connection free" in describe(exc, "postgresql://ann:s3cret@db.internal:6432/team")


def test_only_cogtuis_own_misuse_is_called_a_bug(tmp_path: Path) -> None:
    text = describe(psycopg.InterfaceError("the connection is closed"), "postgresql://ann:s3cret@db/team")
    assert text.startswith("this is a cogtui bug (psycopg.InterfaceError: the connection is closed)")
    assert f"psycopg {psycopg.__version__}" in text and "Python 3." in text and "s3cret" not in text
    closed = sqlite_advice(tmp_path / "h.db", sqlite3.ProgrammingError("Cannot operate on a closed database."))
    assert closed.startswith("this is a cogtui bug (sqlite3.ProgrammingError: Cannot operate on a closed database.)")
    assert f"SQLite {sqlite3.sqlite_version}" in closed
    for condition in (psycopg.errors.UndefinedTable("relation runs does not exist"), psycopg.OperationalError("x")):
        assert "cogtui bug" not in describe(condition, "postgresql://ann@db/team")
