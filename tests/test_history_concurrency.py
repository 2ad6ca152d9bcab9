"""Concurrent writers on both backends: separate processes racing to create the store and to record,
a writer killed in the middle of a transaction, a reader noticing other writers' runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import psycopg
from history_kit import is_postgres, raw, run

from cogtui.core.history.store import History

REPO = Path(__file__).resolve().parent.parent
NewStore = Callable[[], str]

WRITER = """
import sys, time
from cogtui.core.history.store import History, RunRecord
where, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
h = History(where)
print("ready", flush=True)
sys.stdin.readline()  # the parent says go: every writer starts at once
i = 0
while count < 0 or i < count:
    items = [{"text": f"{tag}{i}-{k}", "suggested_mapping": f"m{k % 7}"} for k in range(i % 25)]
    data = {"rationale": "r", "xs": [{"kind": {"custom": f"c{k}", "reason": "r"}} for k in range(i % 4)],
            "extensions": {"insights": items}, "blob": "x" * 2000}
    env = {"ok": True, "meta": {"confidence": 1, "risk": "low", "explain": ""}, "data": data}
    h.record(RunRecord(tag, None, None, "p", None, {"i": i}, None, env, time.time(), None, None, None, "ok"))
    i += 1
h.close()
"""


def _writer(where: str, tag: str, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, where, tag, str(count)],
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", proc.communicate()[1]
    return proc


def _go(*procs: subprocess.Popen[str]) -> None:
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()


def _check_whole(where: str) -> int:
    """Every run present has all its insight and enum rows; returns the run count."""
    if not is_postgres(where):
        assert raw(where, "PRAGMA integrity_check") == [("ok",)]
        assert raw(where, "PRAGMA foreign_key_check") == []
    runs = raw(where, "SELECT id, input_hash, CAST(input AS TEXT) FROM runs")
    ins = Counter(r for (r,) in raw(where, "SELECT run_id FROM insights"))
    enums = Counter(r for (r,) in raw(where, "SELECT run_id FROM custom_enums"))
    for rid, _, input_json in runs:
        i = int(input_json.split(":")[1].strip().rstrip("}"))
        assert ins[rid] == i % 25 and enums[rid] == i % 4, f"run {rid} is incomplete"
    assert sum(ins.values()) == sum(ins[r] for r, _, _ in runs)  # no orphans
    return len(runs)


def test_killed_mid_write_leaves_whole_runs(new_store: NewStore) -> None:
    where = new_store()
    proc = _writer(where, "k", -1)
    _go(proc)
    time.sleep(0.4)  # a few hundred runs in: the kill lands inside a transaction most of the time
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert _check_whole(where) > 0
    with History(where) as h:  # and cogtui can carry on with it
        h.record(run())
        assert h.insights()["insights"]


def test_writer_processes_lose_nothing(new_store: NewStore) -> None:
    where = new_store()
    if not is_postgres(where):
        where = str(Path(where).parent / "fresh" / "h.sqlite3")
    # Opened together, so they also race to create the schema.
    procs = [_writer(where, tag, 200) for tag in ("a", "b", "c")]
    # Hold the write lock while they start: all must wait, not fail.
    if is_postgres(where):
        blocker = psycopg.connect(where)
        blocker.execute("LOCK TABLE runs IN EXCLUSIVE MODE")
    else:
        import sqlite3

        blocker = sqlite3.connect(where, isolation_level=None)  # type: ignore[assignment]
        blocker.execute("BEGIN IMMEDIATE")
    _go(*procs)
    time.sleep(0.3)
    blocker.commit()
    blocker.close()
    for p in procs:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    assert _check_whole(where) == 600
    with History(where) as h:
        assert h.count("a") == h.count("b") == h.count("c") == 200
        assert len({r.id for r in h.runs(limit=1000)}) == 600


def test_a_reader_sees_other_writers_runs(new_store: NewStore) -> None:
    """What the insights screen polls: latest_id changes when another process records."""
    where = new_store()
    with History(where) as reader:
        before = reader.latest_id()
        assert before == 0
        proc = _writer(where, "w", 3)
        _go(proc)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert reader.latest_id() > before and reader.count("w") == 3
