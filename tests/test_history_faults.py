"""Faults of a team's PostgreSQL history, on a real server the tests stop, restart and constrain: the server
stopped before a run and between a run's start and its record, restarted, the pooled connection terminated, a
role without INSERT, a statement_timeout. Whatever happened, the run's command ends as it would have, the
message says what the database did and what to do, and after recovery every run is in the database exactly
once and `cogn history check` finds the insights totals equal to a recount of the rows.

The tests wait on states (the server's pg_stat_activity, a request reaching the scripted model server), never
on time. Stopping the server is this xdist worker's own server: every test here starts it again as it ends.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import cli_json
import psycopg
import pytest
from history_kit import insight, raw, run, with_insights

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from rtkit import ANTHROPIC_KEY, MODULES, cli_env, cogn, golden, model_answer

from cogtui.core.history.location import parse_location
from cogtui.core.history.outbox import Outbox
from cogtui.core.history.run_record import Recorded, record_run
from cogtui.core.history.store import History, RunRecord

CASE = str(MODULES / "code-reviewer" / "tests" / "case1.input.json")


@pytest.fixture
def team(pg_server: Any, tmp_path: Path) -> Iterator[str]:
    """A fresh team database on this worker's server; the server runs again at the end, whatever happened."""
    url = pg_server.new_database()
    try:
        yield url
    finally:
        if not pg_server.started:
            pg_server.resume()
        pg_server.drop_databases([url])


@contextmanager
def stopped(pg_server: Any) -> Iterator[None]:
    pg_server.halt()
    try:
        yield
    finally:
        pg_server.resume()


def env_for(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    return cli_env(tmp_path, COGTUI_HISTORY_URL=url, **extra)


def cogn_run(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", CASE, "--json", env=env)
    assert proc.returncode == 0 and cli_json.envelope(proc.stdout)["ok"] is True, proc.stderr
    return proc


def assert_kept(stderr: str, outbox: Outbox, *said: str) -> None:
    """The run's warning: not recorded, kept where, the database's words; never a cogtui bug, no password."""
    assert "the run was not recorded" in stderr and f"It is kept in {outbox.path}" in stderr, stderr
    assert "cogtui bug" not in stderr and "Traceback" not in stderr, stderr
    for words in said:
        assert words in stderr, stderr


def exactly_once(tmp_path: Path, env: dict[str, str], url: str, count: int) -> None:
    """`count` runs, each once; nothing waiting; `cogn history check` agrees with a recount."""
    assert raw(url, "SELECT COUNT(*), COUNT(DISTINCT run_digest) FROM runs") == [(count, count)]
    checked = cogn(tmp_path, "history", "check", "--json", env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = cli_json.document(checked.stdout, "history check")["summary"]
    assert report["agrees"] and report["runs"] == count and report["waiting"] == 0, report
    assert report["totals_compared"] > 0  # the runs carried insights: there were totals to recount


def insightful(i: int) -> RunRecord:
    return run("faults", with_insights(insight("risk.level", f"n{i}"), tag={"custom": "odd", "reason": "r"}), 1e9 + i)


def stopped_while_the_model_answers(
    llm_server: Any, pg_server: Any, env: dict[str, str], *args: str
) -> tuple[int, str, str]:
    """`cogn ARGS --provider anthropic --json` as a process; once its first model request arrives, the database
    server stops, then the model answers: the command records into a history that has gone away."""
    return while_the_model_answers(llm_server, env, args, meanwhile=lambda: stopped(pg_server))


@contextmanager
def resumed(pg_server: Any) -> Iterator[None]:
    pg_server.resume()
    yield


def while_the_model_answers(
    llm_server: Any,
    env: dict[str, str],
    args: tuple[str, ...],
    meanwhile: Callable[[], AbstractContextManager[None]],
    before: Callable[[], None] = lambda: None,
) -> tuple[int, str, str]:
    """`cogn ARGS --provider anthropic --json` as a process, started after `before()`; once its first model
    request arrives, the model answers within `meanwhile()` (the database stopped, or started again)."""
    arrived, answer = threading.Event(), threading.Event()
    reply = json.dumps(model_answer(golden("code-reviewer")[1]))

    def respond(_: Any) -> str:
        arrived.set()
        answer.wait(timeout=120)
        return reply

    llm_server.respond_with(respond)
    argv = [sys.executable, "-m", "cogtui.cli", "--path", str(MODULES), *args, "--provider", "anthropic", "--json"]
    before()
    proc = subprocess.Popen(argv, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert arrived.wait(timeout=120), "the command never asked the model"
        with meanwhile():
            answer.set()
            out, err = proc.communicate(timeout=120)
    finally:
        answer.set()
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err


def test_the_server_stopped_before_a_run(team: str, pg_server: Any, tmp_path: Path) -> None:
    env = env_for(tmp_path, team)
    outbox = Outbox(parse_location(team), tmp_path / "data" / "outbox")
    cogn_run(tmp_path, env)  # the schema exists and one run is in
    with stopped(pg_server):
        for _ in range(2):
            proc = cogn_run(tmp_path, env)
            assert_kept(proc.stderr, outbox, f"the database server is unreachable at the socket {pg_server.dir}/")
        listing = cogn(tmp_path, "history", env=env)
        assert listing.returncode == 2 and f"2 runs waiting in {outbox.path}" in listing.stderr, listing.stderr
    listing = cogn(tmp_path, "history", "--json", env=env)  # the next open delivers them
    assert listing.returncode == 0 and len(cli_json.document(listing.stdout, "history")["items"]) == 3, listing.stderr
    assert f"2 runs kept in {outbox.path} were recorded" in listing.stderr
    assert not outbox.path.exists()
    exactly_once(tmp_path, env, team, 3)


def test_the_server_stopped_between_a_runs_start_and_its_record(
    team: str, pg_server: Any, tmp_path: Path, llm_server: Any
) -> None:
    """The model is answering when the database goes away: the run still ends 0, and is kept."""
    env = env_for(tmp_path, team, ANTHROPIC_API_KEY=ANTHROPIC_KEY, ANTHROPIC_BASE_URL=llm_server.base_url)
    code, out, err = stopped_while_the_model_answers(
        llm_server, pg_server, env, "run", "code-reviewer", "--input", CASE
    )
    assert code == 0 and cli_json.envelope(out)["ok"] is True, err
    outbox = Outbox(parse_location(team), tmp_path / "data" / "outbox")
    assert_kept(err, outbox, "the database server is unreachable at")
    flushed = cogn(tmp_path, "history", "flush", env=env)
    assert flushed.returncode == 0 and "1 kept run recorded" in flushed.stdout, flushed.stdout + flushed.stderr
    exactly_once(tmp_path, env, team, 1)


def test_a_restarted_server(team: str, pg_server: Any, tmp_path: Path, data_dir: Path) -> None:
    """A process that holds the history open across a restart (the TUI, a long eval) records on a new connection;
    what was recorded during the restart was kept, and is delivered by that same process."""
    location = parse_location(team)
    with History(location) as history:
        history.record(insightful(0))
        with stopped(pg_server):
            kept = record_run(insightful(1), location)
            assert kept.kept is not None and kept.waiting == 1
        history.record(insightful(2))  # the pooled connection died with the server: a new one is used
        delivery = history.flush()
        assert (delivery.delivered, delivery.waiting) == (1, 0)
    exactly_once(tmp_path, env_for(tmp_path, team, COGTUI_DATA_DIR=str(data_dir)), team, 3)


def _cogtui_sessions(url: str, state: str | None = None) -> list[int]:
    sql = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'cogtui'"
    if state == "waiting on a lock":
        sql += " AND wait_event_type = 'Lock'"
    return [pid for (pid,) in raw(url, sql)]


def _terminate(url: str, pids: list[int]) -> None:
    for pid in pids:
        raw(url, "SELECT pg_terminate_backend(?)", (pid,))


@contextmanager
def runs_locked(url: str) -> Iterator[None]:
    """Hold the runs table so that a record's INSERT waits (readers are not held)."""
    with psycopg.connect(url) as conn:
        conn.execute("LOCK TABLE runs IN EXCLUSIVE MODE")
        yield
        conn.rollback()


def recording(run_: RunRecord, url: str) -> tuple[threading.Thread, list[Recorded]]:
    done: list[Recorded] = []
    thread = threading.Thread(target=lambda: done.append(record_run(run_, parse_location(url))))
    thread.start()
    return thread, done


def until(condition: Callable[[], bool], what: str) -> None:
    import time

    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def test_pg_terminate_backend_on_the_pooled_connection(team: str, tmp_path: Path, data_dir: Path) -> None:
    location = parse_location(team)
    with History(location) as history:
        history.record(insightful(0))
        _terminate(team, _cogtui_sessions(team))  # idle in the pool: replaced when next handed out
        history.record(insightful(1))
    # Killed while it writes: the record fails, the run is kept, and the next open delivers it.
    with runs_locked(team):
        thread, done = recording(insightful(2), team)
        until(lambda: bool(_cogtui_sessions(team, "waiting on a lock")), "the record to wait on the runs table")
        _terminate(team, _cogtui_sessions(team, "waiting on a lock"))
        thread.join(timeout=120)
    (kept,) = done
    assert kept.kept is not None and "the server ended the connection" in (kept.warning() or ""), kept.warning()
    assert "terminating connection due to administrator command" in (kept.warning() or "")
    with History(location) as history:
        assert history.delivery.delivered == 1
    exactly_once(tmp_path, env_for(tmp_path, team, COGTUI_DATA_DIR=str(data_dir)), team, 3)


def test_a_role_without_insert(team: str, tmp_path: Path, data_dir: Path) -> None:
    role = f"reader_{team.rsplit('/', 1)[1].split('?')[0]}"
    with History(team) as history:  # the owner made the schema
        history.record(insightful(0))
    raw(team, f'CREATE ROLE "{role}" LOGIN')
    raw(team, f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')
    as_reader = team.replace("postgresql://postgres@", f"postgresql://{role}@")
    env = env_for(tmp_path, as_reader)
    outbox = Outbox(parse_location(as_reader), tmp_path / "data" / "outbox")
    proc = cogn_run(tmp_path, env)
    assert_kept(proc.stderr, outbox, f"the role {role} lacks a privilege the history needs (permission denied for")
    assert f"GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {role}" in proc.stderr
    listing = cogn(tmp_path, "history", "--json", env=env)  # reading still works, and says a run waits, and why
    assert listing.returncode == 0 and cli_json.document(listing.stdout, "history")["summary"]["waiting"] == 1, (
        listing.stderr
    )
    assert f"1 run waiting in {outbox.path}" in listing.stderr and "permission denied" in listing.stderr
    raw(team, f'GRANT INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO "{role}"')
    flushed = cogn(tmp_path, "history", "flush", "--json", env=env)
    assert flushed.returncode == 0, flushed.stdout + flushed.stderr
    flushed_doc = cli_json.document(flushed.stdout, "history flush")
    assert flushed_doc["items"] == []
    assert flushed_doc["summary"] | {"outbox": None} == {
        "history": as_reader,
        "outbox": None,
        "recorded": 1,
        "already_stored": 0,
        "set_aside": 0,
        "set_aside_file": None,
        "waiting": 0,
        "problem": None,
    }
    exactly_once(tmp_path, env, team, 2)


def test_a_statement_timeout(team: str, tmp_path: Path, data_dir: Path) -> None:
    """The role's statement_timeout cancels a record held up by a lock: kept, said, delivered once it is free."""
    with History(team) as history:
        history.record(insightful(0))
    impatient = team + "&options=-c%20statement_timeout%3D200"
    with runs_locked(team):
        recorded = record_run(insightful(1), parse_location(impatient))
    warning = recorded.warning() or ""
    assert (
        recorded.kept is not None
        and "the server cancelled the statement (canceling statement due to statement timeout)" in warning
    )
    assert "statement_timeout = '30s'" in warning and "cogtui bug" not in warning
    with History(impatient) as history:  # the same history, however its URL's options are spelled
        assert history.delivery.delivered == 1
    exactly_once(tmp_path, env_for(tmp_path, team, COGTUI_DATA_DIR=str(data_dir)), team, 2)


def test_an_eval_whose_history_stops_before_it_records_keeps_its_runs(
    team: str, pg_server: Any, tmp_path: Path, llm_server: Any
) -> None:
    """The history opened as the eval started, and is gone when its runs are recorded: they are kept (the eval's
    own report is not: it is printed, and its runs are what the history is built from)."""
    env = env_for(tmp_path, team, ANTHROPIC_API_KEY=ANTHROPIC_KEY, ANTHROPIC_BASE_URL=llm_server.base_url)
    code, out, err = stopped_while_the_model_answers(llm_server, pg_server, env, "eval", "code-reviewer")
    assert code in (0, 1) and len(cli_json.document(out, "eval")["items"]) == 3, err
    outbox = Outbox(parse_location(team), tmp_path / "data" / "outbox")
    assert f"the eval was not recorded: cannot write to run history {team}" in err, err
    assert f"its 3 runs are kept in {outbox.path}" in err and "cogtui bug" not in err
    flushed = cogn(tmp_path, "history", "flush", env=env)
    assert flushed.returncode == 0 and "3 kept runs recorded" in flushed.stdout, flushed.stdout + flushed.stderr
    exactly_once(tmp_path, env, team, 3)


def test_an_eval_that_cannot_open_its_history_keeps_its_runs(team: str, pg_server: Any, tmp_path: Path) -> None:
    """The server is down for the whole eval: the runs, which cannot be recorded, are kept, as `cogn run` keeps
    one, and the next open records them (HIST-8)."""
    env = env_for(tmp_path, team)
    outbox = Outbox(parse_location(team), tmp_path / "data" / "outbox")
    with stopped(pg_server):
        proc = cogn(tmp_path, "eval", "code-reviewer", "--json", env=env)
    assert proc.returncode == 0 and len(cli_json.document(proc.stdout, "eval")["items"]) == 3, proc.stderr
    assert "the database server is unreachable at" in proc.stderr and "cogtui bug" not in proc.stderr, proc.stderr
    assert f"its 3 runs are kept in {outbox.path}" in proc.stderr, proc.stderr
    assert outbox.waiting() == 3
    flushed = cogn(tmp_path, "history", "flush", env=env)
    assert flushed.returncode == 0 and "3 kept runs recorded" in flushed.stdout, flushed.stdout + flushed.stderr
    exactly_once(tmp_path, env, team, 3)


def test_an_eval_whose_history_comes_back_records_everything_at_its_end(
    team: str, pg_server: Any, tmp_path: Path, llm_server: Any
) -> None:
    """Down as the eval starts, back while the model answers: the runs and the eval itself are recorded as the
    eval ends, and nothing waits in the outbox."""
    env = env_for(tmp_path, team, ANTHROPIC_API_KEY=ANTHROPIC_KEY, ANTHROPIC_BASE_URL=llm_server.base_url)
    code, out, err = while_the_model_answers(
        llm_server, env, ("eval", "code-reviewer"), meanwhile=lambda: resumed(pg_server), before=pg_server.halt
    )
    assert code in (0, 1), err
    doc = cli_json.document(out, "eval")
    assert "warning: cannot open run history" in err and "the eval was not recorded" not in err, err
    assert doc["summary"]["id"] is not None and all(item["run_id"] for item in doc["items"]), doc
    assert not Outbox(parse_location(team), tmp_path / "data" / "outbox").path.exists()
    exactly_once(tmp_path, env, team, 3)
