"""A real PostgreSQL server for tests: initdb in a temp folder, listening only on a unix socket there.

`initdb` and `postgres` refuse to run as root; under root (as in CI) the server
runs as the `postgres` system user (created if missing) through `runuser`. The
binaries come from PATH or the Debian layout (/usr/lib/postgresql/N/bin);
`make test` installs them when neither has them. A server that cannot start
raises: history tests fail, they are never skipped.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg

SERVER_USER = "postgres"


def find_binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    if candidates:
        return candidates[-1]
    raise RuntimeError(
        f"{name} not found on PATH or in /usr/lib/postgresql/*/bin: install PostgreSQL "
        "(make test does: apt-get install postgresql-15)"
    )


def _server_user() -> str | None:
    """None when we are not root (the server runs as us); else a non-root system user."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVER_USER],
            check=True,
            capture_output=True,
        )
    return SERVER_USER


def scratch_parent() -> str | None:
    """Where the server keeps its files: a RAM-backed folder when the machine has one with room to spare (the
    suite creates and drops a database per test, some tests dozens: on disk that cost seconds per worker and
    a long delete at the end), else the default temporary folder."""
    try:
        if os.access("/dev/shm", os.W_OK) and shutil.disk_usage("/dev/shm").free > 4 * 1024**3:
            return "/dev/shm"
    except OSError:
        pass
    return None


class PostgresServer:
    """Start with `start()`, get fresh databases with `new_database()`, stop with `stop()`."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="cogtui-pg-", dir=scratch_parent()))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.user = _server_user()
        self.pg_ctl = find_binary("pg_ctl")
        self.initdb = find_binary("initdb")
        self._names = itertools.count(1)
        self.started = False

    def _run(self, *argv: str) -> None:
        cmd = list(argv) if self.user is None else ["runuser", "-u", self.user, "--", *argv]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.dir)
        if proc.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}\n{log}")

    def start(self) -> PostgresServer:
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self._run(self.initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "-N")
        self.resume()
        return self

    def resume(self) -> None:
        """Start the server (again, after `halt`): its databases are as they were."""
        options = (
            f"-c listen_addresses='' -c unix_socket_directories={self.dir} -c port=5432 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(self.pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")
        self.started = True

    def halt(self) -> None:
        """Stop the server as an administrator would (sessions ended, its socket gone), keeping its databases."""
        self._run(self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")
        self.started = False

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.dir}"

    def new_database(self) -> str:
        """A fresh, empty database's URL. Copied file by file (FILE_COPY), not through the write-ahead log as
        PostgreSQL 15 does by default: less than half the server's CPU per database, and the tests make hundreds of
        scratch databases."""
        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" STRATEGY = FILE_COPY')
        return self.url(name)

    def drop_databases(self, urls: list[str]) -> None:
        """Drop databases made by `new_database` (connections still open to them are ended)."""
        if not urls or not self.started:
            return
        with psycopg.connect(self.url(), autocommit=True) as conn:
            for url in urls:
                name = url.rsplit("/", 1)[1].split("?", 1)[0]
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server for good and remove its files."""
        try:
            if self.started:
                self._run(self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            self.started = False
            shutil.rmtree(self.dir, ignore_errors=True)
