"""Twenty `cogn run` processes at once on a history that needs migrating (a fresh store, or one a schema version
behind), on PostgreSQL and SQLite: every run is recorded once, none is kept waiting, and the schema is current.

On PostgreSQL the test holds the migration lock itself until all twenty processes wait on it (seen in the
server's pg_locks), so every one of them has found the store behind before the first migrates: the race the
lock and the re-check inside it must win, every time, not only when the processes happen to collide.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from history_kit import cogn_env, is_postgres, raw, schema_version, store_behind

from cogtui.core.history.postgres import SCHEMA_LOCK
from cogtui.core.history.schema import SCHEMA_VERSION

REPO = Path(__file__).resolve().parent.parent
MODULES = REPO / "modules"
CASE = MODULES / "code-reviewer" / "tests" / "case1.input.json"
AT_ONCE = 20
NewStore = Callable[[], str]


def start_runs(env: dict[str, str], count: int) -> list[subprocess.Popen[str]]:
    argv = [sys.executable, "-m", "cogtui.cli", "--path", str(MODULES), "run", "code-reviewer", "--input", str(CASE)]
    return [
        subprocess.Popen([*argv, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(count)
    ]


def finish(procs: list[subprocess.Popen[str]]) -> list[str]:
    """Each process's stderr once it ended; every one exited 0."""
    errors = []
    for proc in procs:
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
        errors.append(stderr)
    return errors


def until(condition: Callable[[], bool], what: str, procs: list[subprocess.Popen[str]]) -> None:
    """Wait for a state of the server, failing (with the processes' words) if one of them ended first."""
    deadline = time.monotonic() + 300
    while not condition():
        ended = [p for p in procs if p.poll() is not None]
        if ended:
            pytest.fail(f"a run ended before {what}: exit {ended[0].returncode}: {ended[0].communicate()[1]}")
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.02)


@contextmanager
def migration_lock_held(location: str) -> Iterator[Callable[[], int]]:
    """Hold cogtui's migration lock on a PostgreSQL store; yields how many sessions are waiting for it."""
    with psycopg.connect(location, autocommit=True) as gate:
        gate.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))

        def waiting() -> int:
            row = gate.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                "WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()"
            ).fetchone()
            return int(row[0]) if row else 0

        try:
            yield waiting
        finally:
            gate.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


def twenty_first_runs(tmp_path: Path, location: str) -> list[str]:
    env = cogn_env(tmp_path, location)
    if not is_postgres(location):
        return finish(start_runs(env, AT_ONCE))
    with migration_lock_held(location) as waiting:
        procs = start_runs(env, AT_ONCE)
        until(lambda: waiting() == AT_ONCE, f"{AT_ONCE} runs waiting on the migration lock", procs)
    return finish(procs)


def assert_all_recorded(tmp_path: Path, location: str, errors: list[str], before: int) -> None:
    assert not any(errors), errors[:3]  # no run was left unrecorded (and nothing blamed cogtui)
    assert raw(location, "SELECT COUNT(*) FROM runs") == [(before + AT_ONCE,)]
    assert raw(location, "SELECT COUNT(DISTINCT run_digest) FROM runs") == [(before + AT_ONCE,)]
    assert schema_version(location) == SCHEMA_VERSION
    if is_postgres(location):
        assert raw(location, "SELECT COUNT(*) FROM cogtui_schema") == [(1,)]


@pytest.fixture
def fresh_location(new_store: NewStore, tmp_path: Path) -> str:
    location = new_store()
    return location if is_postgres(location) else str(tmp_path / "team" / "history.sqlite3")


def test_twenty_first_runs_on_a_fresh_store(fresh_location: str, tmp_path: Path) -> None:
    errors = twenty_first_runs(tmp_path, fresh_location)
    assert_all_recorded(tmp_path, fresh_location, errors, before=0)


def test_twenty_first_runs_on_a_store_one_version_behind(fresh_location: str, tmp_path: Path) -> None:
    store_behind(fresh_location, runs=2)
    assert schema_version(fresh_location) == SCHEMA_VERSION - 1
    errors = twenty_first_runs(tmp_path, fresh_location)
    assert_all_recorded(tmp_path, fresh_location, errors, before=2)
    valid: Any = raw(fresh_location, "SELECT COUNT(*) FROM runs WHERE contract_valid = 1")
    assert valid == [(AT_ONCE + 2,)]  # the step to this version ran once, over the old runs too
