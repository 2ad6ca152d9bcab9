"""What a PostgreSQL failure means, in words: what happened, the server's own words, and the next step.

A database condition (the server down or unreachable, a database or role that
does not exist, a role without the privileges, a statement timeout, a
connection the server ended) is said as one, never as a cogtui bug; "this is a
cogtui bug" is kept for what only cogtui can get wrong (psycopg refusing how it
was called), with what a report needs. Connection failures come from libpq
without a SQLSTATE, so they are told apart by libpq's own sentences. Every text
passes `scrub` (no password) before it is shown. Imported with psycopg, only
for a PostgreSQL history.
"""

from __future__ import annotations

import getpass
import os
import re

import psycopg
from psycopg import errors as pgerr
from psycopg.conninfo import conninfo_to_dict

from cogtui.core.history.errors import internal_error
from cogtui.core.history.location import scrub

# Where libpq says it tried to connect: `connection to server at "db" (10.0.0.5), port 5432 failed`,
# `connection to server on socket "/run/postgresql/.s.PGSQL.5432" failed`.
_AT = re.compile(r'connection to server at "([^"]+)"(?: \([^)]*\))?, port (\d+) failed')
_SOCKET = re.compile(r'connection to server on socket "([^"]+)" failed')
_UNREACHABLE = (
    "connection refused",
    "no such file or directory",
    "timeout expired",
    "timed out",
    "could not translate host name",
    "failed to resolve host",
    "name or service not known",
    "network is unreachable",
    "no route to host",
    "server closed the connection unexpectedly",
    "couldn't get a connection",  # the pool's timeout: no connection could be made meanwhile
    "the database system is starting up",
    "the database system is shutting down",
    "the database system is in recovery mode",
)
_CONNECTION_LOST = (pgerr.AdminShutdown, pgerr.CrashShutdown, pgerr.CannotConnectNow, pgerr.IdleSessionTimeout)


def server_words(exc: BaseException) -> str:
    """The server's (or libpq's) message on one line, without psycopg's and libpq's prefixes."""
    text = str(exc).strip()
    for prefix in ("connection failed: ", "connection is bad: "):
        text = text.removeprefix(prefix)
    matched = _AT.search(text) or _SOCKET.search(text)
    if matched:
        text = text[matched.end() :].lstrip(": ")
    text = re.sub(r"\b(FATAL|ERROR):\s+", "", text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return ". ".join(line.rstrip(".") for line in lines if line)  # libpq's hint is a line of its own


def _settings(url: str) -> dict[str, str]:
    try:
        return {k: str(v) for k, v in conninfo_to_dict(url).items() if v is not None}
    except psycopg.Error:
        return {}


def server_address(exc: BaseException, url: str) -> str:
    """host:port (or the unix socket) that was tried: libpq's account first, else what the URL says."""
    text = str(exc)
    if m := _AT.search(text):
        return f"{m.group(1)}:{m.group(2)}"
    if m := _SOCKET.search(text):
        return f"the socket {m.group(1)}"
    given = _settings(url)
    host = given.get("host") or os.environ.get("PGHOST") or "localhost"
    port = given.get("port") or os.environ.get("PGPORT") or "5432"
    return f"the socket {host}/.s.PGSQL.{port}" if host.startswith("/") else f"{host}:{port}"


def role_of(url: str) -> str:
    """The role the URL connects as (libpq's default: PGUSER, else the operating-system user)."""
    return _settings(url).get("user") or os.environ.get("PGUSER") or getpass.getuser()


def database_of(url: str) -> str:
    return _settings(url).get("dbname") or os.environ.get("PGDATABASE") or role_of(url)


def _connection_failure(exc: BaseException, url: str) -> str | None:
    """A failure to connect (no SQLSTATE: libpq's words): what happened and what to do, or None."""
    words = server_words(exc)
    lowered = words.lower()
    where = server_address(exc, url)
    if re.search(r'database "[^"]*" does not exist', words):
        return (
            f"the database {database_of(url)} does not exist on {where} ({words}); create it "
            f"(createdb {database_of(url)}) or correct the database name in the URL"
        )
    if re.search(r'role "[^"]*" does not exist|authentication failed|no pg_hba\.conf entry|password', lowered):
        return (
            f"the server at {where} refused the role {role_of(url)} ({words}); check the user name, and that its "
            "password is in PGPASSWORD or ~/.pgpass (never in the URL)"
        )
    if "too many" in lowered and "connections" in lowered:
        return f"the server at {where} has no connection free ({words}); try again, or raise max_connections"
    if any(sign in lowered for sign in _UNREACHABLE):
        return (
            f"the database server is unreachable at {where} ({words}); check that it is running and that this "
            "machine can reach it"
        )
    return None


def refuses(exc: BaseException) -> bool:
    """The server refused the values written (SQLSTATE class 22, a data exception, or 23, a constraint), not
    the write: the same run would be refused again (HIST-7)."""
    return isinstance(exc, (psycopg.DataError, psycopg.IntegrityError))


def describe(exc: BaseException, url: str) -> str:
    """What went wrong, the server's words, and the next step, with the URL's password taken out."""
    return scrub(_describe(exc, url), url)


def _describe(exc: BaseException, url: str) -> str:
    words = server_words(exc)
    role = role_of(url)
    if isinstance(exc, pgerr.InsufficientPrivilege):
        return (
            f"the role {role} lacks a privilege the history needs ({words}); the database owner can grant it: "
            f"GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {role} (the schema the history is in), "
            "and CREATE on that schema the first time and for upgrades"
        )
    if isinstance(exc, pgerr.QueryCanceled):
        return (
            f"the server cancelled the statement ({words}); if a statement_timeout is set for the role or the "
            f"database, give the history more time (ALTER ROLE {role} SET statement_timeout = '30s'), or find what "
            "holds its tables locked"
        )
    if refuses(exc):
        return f"the database refused a value of the run (SQLSTATE {getattr(exc, 'sqlstate', None)}: {words})"
    if isinstance(exc, pgerr.LockNotAvailable):
        return f"a lock the history needed was held too long ({words}); try again once the other session is done"
    if isinstance(exc, _CONNECTION_LOST):
        return (
            f"the server ended the connection ({words}): it was stopped or restarted, or an administrator "
            "ended the session; try again once it is back"
        )
    if isinstance(exc, pgerr.DiskFull):
        return f"the database server's disk is full ({words}); the database administrator must free space"
    if isinstance(exc, pgerr.TooManyConnections):
        return f"the server has no connection free ({words}); try again, or raise max_connections"
    if isinstance(exc, pgerr.DuplicateTable):
        return (
            f"the database already holds a table cogtui did not make ({words}); give the history a database "
            "of its own, or a schema (options=-csearch_path%3Dcogtui in the URL)"
        )
    if isinstance(exc, pgerr.UndefinedTable | pgerr.UndefinedColumn):
        return (
            f"the database is not a cogtui history, or its tables were changed by hand ({words}); point the URL "
            "at the history's database"
        )
    if isinstance(exc, psycopg.OperationalError):
        return _connection_failure(exc, url) or (
            f"the database server failed ({words}); check that it is running and reachable at {server_address(exc, url)}"
        )
    if isinstance(exc, psycopg.DatabaseError) and getattr(exc, "sqlstate", None):
        return f"the database refused the statement (SQLSTATE {exc.sqlstate}: {words}); ask its administrator"
    if isinstance(exc, OSError):
        return f"the connection failed ({exc}); check that the server is reachable at {server_address(exc, url)}"
    return internal_error(exc, f"psycopg {psycopg.__version__}")
