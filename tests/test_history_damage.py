"""Issue 11: a damaged cell in any table of the history, on SQLite and on PostgreSQL, never crashes a reader.

Each case damages one cell of a store holding three good runs (insights and a custom enum value in
each), then calls every reader: the run list, one run, the export, the counts, the module list, the
insights aggregate, the timeline (both its paths), the dashboard read and the CLI commands. Nothing
raises, every answer is JSON, the good runs survive, and a row that cannot be read is reported
(`History.skipped`, the CLI's warnings), not silently dropped.

PostgreSQL types its columns (jsonb, double precision, bigint), so its damage is what it can hold:
JSON of the wrong shape, nesting too deep for Python, numbers too long, clock values out of range.
SQLite holds anything in any cell (blobs, text in number columns), so it gets every case.
"""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from history_kit import T0, insight, is_postgres, raw, run, with_insights
from modkit import run_cogn

from cogtui.core.history.dashboard import read_dashboard
from cogtui.core.history.store import History
from cogtui.core.history.transfer import export_runs

NewStore = Callable[[], str]
DEEP = "[" * 5000 + "]" * 5000
LONG_NUMBER = "9" * 5000


@dataclass(frozen=True)
class Damage:
    table: str
    column: str
    value: Any
    reported: bool  # the reader must say a row was skipped
    sqlite_only: bool = False
    cast: str = ""  # PostgreSQL cast for the new value (jsonb columns)


CASES = [
    # runs: the JSON columns
    Damage("runs", "envelope", "{", True, sqlite_only=True),
    Damage("runs", "envelope", DEEP, True, cast="::jsonb"),
    Damage("runs", "envelope", LONG_NUMBER, True, cast="::jsonb"),
    Damage("runs", "envelope", '"just a string"', True, cast="::jsonb"),
    Damage("runs", "envelope", "[1, 2]", True, cast="::jsonb"),
    Damage("runs", "envelope", b"\x00\xff\xfe", True, sqlite_only=True),
    Damage("runs", "input", "{", True, sqlite_only=True),
    Damage("runs", "input", DEEP, True, cast="::jsonb"),
    Damage("runs", "input", b"\xff", True, sqlite_only=True),
    Damage("runs", "usage", "[1]", True, cast="::jsonb"),
    Damage("runs", "usage", '{"input_tokens": ' + LONG_NUMBER + "}", True, cast="::jsonb"),
    Damage("runs", "usage", "{", True, sqlite_only=True),
    # runs: the plain columns
    Damage("runs", "module", b"\x01\x02", True, sqlite_only=True),
    Damage("runs", "provider", b"\x07", True, sqlite_only=True),
    Damage("runs", "started_at", "yesterday", True, sqlite_only=True),
    Damage("runs", "started_at", float("inf"), False),
    Damage("runs", "total_ms", b"\x00", True, sqlite_only=True),
    Damage("runs", "outcome", "exploded", True, sqlite_only=True),
    Damage("runs", "args", b"\xff", True, sqlite_only=True),
    # the derived rows and the running totals
    Damage("insights", "text", b"\xff", True, sqlite_only=True),
    Damage("insights", "evidence", b"\x00", True, sqlite_only=True),
    Damage("insights", "ts", "noon", True, sqlite_only=True),
    Damage("insights", "module", b"\x02", True, sqlite_only=True),
    Damage("insights", "text", "\x1b]52;c;aGk=\x07 escape", False),
    Damage("insight_stats", "mapping_key", b"\xff", True, sqlite_only=True),
    Damage("insight_stats", "n", "many", True, sqlite_only=True),
    Damage("insight_stats", "first_ts", "dawn", True, sqlite_only=True),
    Damage("insight_stats", "last_ts", float("inf"), True),
    Damage("insight_stats", "module", b"\x03", True, sqlite_only=True),
    Damage("enum_stats", "value", b"\xff", True, sqlite_only=True),
    Damage("enum_stats", "reason_key", b"x", True, sqlite_only=True),
    Damage("enum_stats", "n", "lots", True, sqlite_only=True),
    Damage("insight_hours", "hour", "x", True, sqlite_only=True),
    Damage("insight_hours", "n", b"\x00", True, sqlite_only=True),
    Damage("custom_enums", "value", b"\xff", False, sqlite_only=True),
]


def _id(d: Damage) -> str:
    shown = d.value[:12] if isinstance(d.value, str | bytes) else d.value
    return f"{d.table}.{d.column}={shown!r}"


# PostgreSQL's column types cannot hold the SQLite-only cases: those run on SQLite alone.
PAIRS = [
    pytest.param(backend, d, id=f"{backend}-{_id(d)}")
    for d in CASES
    for backend in (("sqlite",) if d.sqlite_only else ("sqlite", "postgresql"))
]


def _seed(location: str) -> None:
    with History(location) as history:
        for i in range(3):
            env = with_insights(
                insight("schema.tags", f"insight {i}"), insight(None), tag={"custom": "x", "reason": "r"}
            )
            # Hours apart: the timeline over all of them reads the hourly totals, over 1000 slices the rows.
            history.record(run("mod", env, started_at=T0 + i * 7200.0))


TOTALS_KEYS = {
    "insight_stats": ("module", "mapping_key"),
    "enum_stats": ("module", "field", "value", "reason_key"),
    "insight_hours": ("module", "hour"),
}


def _damage(location: str, d: Damage) -> None:
    """Write the damaged value over the first row of its table, past SQLite's CHECK on outcome."""
    if d.table in TOTALS_KEYS:  # no id: the first row in key order
        keys = TOTALS_KEYS[d.table]
        first = raw(location, f"SELECT {', '.join(keys)} FROM {d.table} ORDER BY {', '.join(keys)} LIMIT 1")[0]
        where, params = " AND ".join(f"{k} = ?" for k in keys), first
    else:
        where, params = f"id = (SELECT MIN(id) FROM {d.table})", ()
    cast = d.cast if is_postgres(location) else ""
    sql = f"UPDATE {d.table} SET {d.column} = ?{cast} WHERE {where}"
    if is_postgres(location):
        raw(location, sql, (d.value, *params))
        return
    conn = sqlite3.connect(location, isolation_level=None)
    try:
        conn.execute("PRAGMA ignore_check_constraints = ON")  # per connection
        conn.execute(sql, (d.value, *params))
    finally:
        conn.close()


def _read_everything(location: str) -> tuple[list[str], list[Any]]:
    with History(location) as history:
        listed = history.runs()
        answers: list[Any] = [
            [r.envelope for r in listed],
            [history.get(i) is not None for i in (1, 2, 3)],
            history.count(),
            history.modules(),
            history.insights(),
            history.insights("mod", examples=10),
            history.insight_timeline(),
            history.insight_timeline(buckets=1),  # spans of hours: the hourly totals
            history.insight_timeline("mod", buckets=1),
            history.insight_timeline(buckets=1000),
        ]
        out = io.StringIO()
        exported = export_runs(history, out)
        answers.append([json.loads(line) for line in out.getvalue().splitlines()])
        assert exported == len(answers[-1])
        assert len(listed) >= 2 and exported >= 2  # the undamaged runs survive every reader
        return list(history.skipped), answers


@pytest.mark.parametrize(("new_store", "damage"), PAIRS, indirect=["new_store"])
def test_every_reader_survives_a_damaged_cell(new_store: NewStore, damage: Damage) -> None:
    location = new_store()
    _seed(location)
    _damage(location, damage)
    skipped, answers = _read_everything(location)
    json.dumps(answers, allow_nan=False, default=str)
    if damage.reported:
        assert skipped, f"{_id(damage)} was read without a word"
        assert all(isinstance(s, str) and len(s) < 300 for s in skipped)
    else:
        assert skipped == []


def test_the_dashboard_and_the_cli_report_damaged_rows(
    tmp_path: Path, new_store: NewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    location = new_store()
    _seed(location)
    _damage(location, Damage("runs", "envelope", '"not an envelope"', True, cast="::jsonb"))
    _damage(location, Damage("insight_stats", "last_ts", float("inf"), True))
    url = location if is_postgres(location) else f"sqlite://{location}"
    monkeypatch.setenv("COGTUI_HISTORY_URL", url)
    board = read_dashboard(None, examples=3, buckets=30)
    assert board.history_exists and board.insights and board.skipped
    for command in (["history"], ["history", "--json"], ["insights", "--json"], ["history", "export"]):
        proc = run_cogn(command, tmp_path, extra_env={"COGTUI_HISTORY_URL": url})
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr and "warning:" in proc.stderr and "skipped" in proc.stderr
