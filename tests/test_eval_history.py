"""Evals and the response cache in the history, on SQLite and on a real PostgreSQL (`new_store`):
round trips, the per-module trend, text no backend can hold raw, cascades, and the v2 -> v3 migration."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from history_kit import T0, raw, run

from cogtui.core.history.store import SCHEMA_VERSION, History

NewStore = Callable[[], str]


def delete_run(store: str, run_id: int) -> None:
    """Delete a run as any client of the store would, foreign keys enforced (SQLite enforces them per connection)."""
    if store.startswith("postgresql"):
        raw(store, "DELETE FROM runs WHERE id = ?", (run_id,))
        return
    conn = sqlite3.connect(store, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
    finally:
        conn.close()


def test_eval_round_trip_and_trend(new_store: NewStore) -> None:
    with History(new_store()) as h:
        ids = [
            h.record_eval(
                {"format": "cogtui-eval/1", "targets": ["replay"], "n": k}, {"a": (k, 4), "b": (1, 1)}, T0 + k
            )
            for k in range(5)
        ]
        doc = h.eval_report(ids[2])
        assert doc is not None and doc["n"] == 2 and doc["id"] == ids[2]  # the stored report names its own id
        assert h.eval_report(999_999) is None
        trend = h.eval_trend("a", limit=3)
        assert [p.eval_id for p in trend] == ids[2:]  # the last three, oldest first
        assert [p.pass_rate for p in trend] == [0.5, 0.75, 1.0]
        assert h.eval_trend("nothing") == []


def test_reports_and_answers_keep_any_text(new_store: NewStore) -> None:
    """U+0000, lone surrogates, CJK: PostgreSQL text cannot hold U+0000, yet everything comes back as it went in."""
    text = "nul \x00 surrogate \ud800 中文 \u202e"
    with History(new_store()) as h:
        eval_id = h.record_eval({"note": text}, {"m": (0, 1)}, T0)
        assert h.eval_report(eval_id) == {"note": text, "id": eval_id}
        rid = h.record(run())
        h.store_responses([(rid, "k1", text)], T0)
        assert h.cached_response("k1") == (rid, text)


def test_newest_answer_wins_and_goes_with_its_run(new_store: NewStore) -> None:
    store = new_store()
    with History(store) as h:
        old, new = h.record(run()), h.record(run(started_at=T0 + 1))
        h.store_responses([(old, "k", "old answer")], T0)
        h.store_responses([(new, "k", "new answer")], T0 + 1)
        assert h.cached_response("k") == (new, "new answer")
        assert h.cached_response("other") is None
    delete_run(store, new)
    with History(store) as h:
        assert h.cached_response("k") == (old, "old answer")  # ON DELETE CASCADE took the newer entry


def test_a_v2_store_gains_the_eval_tables(new_store: NewStore) -> None:
    store = new_store()
    with History(store) as h:
        rid = h.record(run())
    for table in ("response_cache", "eval_modules", "evals", "insight_exclusions"):  # back to schema 2
        raw(store, f"DROP TABLE {table}")
    raw(store, "ALTER TABLE runs DROP COLUMN contract_valid")
    if store.startswith("postgresql"):
        raw(store, "UPDATE cogtui_schema SET version = 2")
    else:
        raw(store, "PRAGMA user_version = 2")
    with History(store) as h:
        assert h.get(rid) is not None  # nothing recorded is lost
        assert h.eval_trend("m") == [] and h.cached_response("k") is None
    version = raw(
        store, "SELECT version FROM cogtui_schema" if store.startswith("postgresql") else "PRAGMA user_version"
    )
    assert version == [(SCHEMA_VERSION,)] and SCHEMA_VERSION == 4
