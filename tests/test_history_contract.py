"""Only runs that passed their contract feed insights (HIST-1), on SQLite and on PostgreSQL: what a failed
run carried is counted as left out; a store written before (schema 3) is migrated to the same state;
and the runs behind one row of the aggregate can be read back with their full text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from history_kit import T0, fail_env, insight, is_postgres, raw, run, with_insights

from cogtui.core.history.backend import Backend, open_sqlite
from cogtui.core.history.records import canonical_json, dumps
from cogtui.core.history.schema import MIGRATIONS, SCHEMA_VERSION
from cogtui.core.history.store import History

NewStore = Callable[[], str]
FAILED_PARTIAL = {"tag": {"custom": "weird", "reason": "why"}, "extensions": {"insights": [insight("p.q", "partial")]}}


def test_only_contract_valid_runs_feed_insights(new_store: NewStore) -> None:
    """Replaces the old behaviour (partial_data of a failure fed insights): a failed run's insights and
    custom enum values are not aggregated, only counted as excluded; interrupted runs are failures too."""
    with History(new_store()) as h:
        h.record(run("m", with_insights(insight("p.q", "valid"), tag={"custom": "ok", "reason": "r"})))
        h.record(run("m", fail_env(FAILED_PARTIAL)))  # the answer broke the contract (E3001)
        h.record(run("n", fail_env(FAILED_PARTIAL, "E3004")))
        h.record(run("n", with_insights(insight("x.y")), outcome="interrupted"))
        h.record(run("n", fail_env(None, "E4002")))  # nothing to leave out: not counted as excluded
        out = h.insights()
        assert [(g["suggested_mapping"], g["count"], g["modules"]) for g in out["insights"]] == [("p.q", 1, ["m"])]
        assert out["insights"][0]["examples"][0]["text"] == "valid"
        assert [(c["value"], c["count"]) for c in out["custom_enums"]] == [("ok", 1)]
        assert out["excluded"] == {"runs": 3, "insights": 3, "custom_enums": 2}
        assert h.insights("m")["excluded"] == {"runs": 1, "insights": 1, "custom_enums": 1}
        assert h.insights("nobody")["excluded"] == {"runs": 0, "insights": 0, "custom_enums": 0}
        assert sum(n for _, n in h.insight_timeline()) == 1  # the timeline counts only the valid insight
        assert h.count() == 5  # every run is still in the history
        assert [r.contract_valid for r in sorted(h.runs(), key=lambda r: r.id or 0)] == [
            True,
            False,
            False,
            False,
            False,
        ]


def _open(location: str) -> Backend:
    if is_postgres(location):
        from cogtui.core.history.postgres import open_postgres

        return open_postgres(location)
    Path(location).parent.mkdir(parents=True, exist_ok=True)
    return open_sqlite(Path(location))


def _old_row(module: str, envelope: dict[str, Any], ts: float) -> tuple[Any, ...]:
    r = run(module, envelope, started_at=ts)
    return (r.module, r.provider, canonical_json(r.input), r.input_hash, dumps(envelope), r.error_code, ts, r.outcome)


def test_a_schema_3_store_is_migrated_to_count_only_valid_runs(new_store: NewStore) -> None:
    """A store written by the previous cogtui, on both backends: its failed runs' insight and enum rows
    become the excluded counts, its totals are recomputed without them, and nothing else changes."""
    location = new_store()
    backend = _open(location)
    try:
        with backend.transaction(write=True) as tx:
            MIGRATIONS[0](tx)  # the v1 layout, filled the way the previous cogtui filled it
            valid = with_insights(insight("p.q", "kept"), insight(None, "no mapping"), tag={"custom": "c"})
            for rid, (module, env, ts) in enumerate(
                [("m", valid, T0), ("m", fail_env(FAILED_PARTIAL), T0 + 1), ("n", fail_env(FAILED_PARTIAL), T0 + 2)],
                start=1,
            ):
                tx.run(
                    "INSERT INTO runs (id, module, provider, input, input_hash, envelope, error_code, started_at, "
                    f"outcome) VALUES (?, ?, ?, {tx.dialect.json_param}, ?, {tx.dialect.json_param}, ?, ?, ?)",
                    [rid, *_old_row(module, env, ts)],
                )
                payload = env.get("data") or env.get("partial_data")
                assert payload is not None, "each old envelope holds its data or partial data"
                for it in payload["extensions"]["insights"]:
                    tx.run(
                        "INSERT INTO insights (run_id, module, ts, suggested_mapping, text) VALUES (?, ?, ?, ?, ?)",
                        [rid, module, ts, it.get("suggested_mapping"), it["text"]],
                    )
                tx.run(
                    "INSERT INTO custom_enums (run_id, module, ts, field, value) VALUES (?, ?, ?, 'tag', ?)",
                    [rid, module, ts, payload["tag"]["custom"]],
                )
            MIGRATIONS[1](tx)
            MIGRATIONS[2](tx)
            tx.set_schema_version(3)
        if is_postgres(location):  # ids were given explicitly: move the sequence past them
            raw(location, "SELECT setval(pg_get_serial_sequence('runs', 'id'), 3)")
    finally:
        backend.close()
    with History(location) as h:
        assert h.count() == 3
        out = h.insights()
        assert sorted((g["suggested_mapping"] or "", g["count"]) for g in out["insights"]) == [("", 1), ("p.q", 1)]
        assert [(c["value"], c["count"]) for c in out["custom_enums"]] == [("c", 1)]
        assert out["excluded"] == {"runs": 2, "insights": 2, "custom_enums": 2}
        assert h.insights("n")["excluded"] == {"runs": 1, "insights": 1, "custom_enums": 1}
        h.record(run("n", fail_env(FAILED_PARTIAL)))  # the migrated store keeps counting
        assert h.insights("n")["excluded"] == {"runs": 2, "insights": 2, "custom_enums": 2}
    assert raw(location, "SELECT id, contract_valid FROM runs ORDER BY id") == [(1, 1), (2, 0), (3, 0), (4, 0)]
    assert raw(location, "SELECT COUNT(*) FROM insights") == [(2,)]
    assert raw(location, "SELECT SUM(n) FROM insight_stats") == [(2,)]
    version_sql = "SELECT version FROM cogtui_schema" if is_postgres(location) else "PRAGMA user_version"
    assert raw(location, version_sql) == [(SCHEMA_VERSION,)] and SCHEMA_VERSION == 4


def test_the_runs_behind_a_row_with_full_text(new_store: NewStore) -> None:
    long_text = "a sentence that goes on " * 40
    with History(new_store()) as h:
        first = h.record(run("m", with_insights(insight("p.q", long_text, "ev"), tag={"custom": "c", "reason": "r1"})))
        second = h.record(run("n", with_insights(insight("p.q", "short")), started_at=T0 + 5))
        h.record(run("m", with_insights(insight("p.q", "twice"), insight("p.q", "in one run")), started_at=T0 + 9))
        h.record(run("m", fail_env(FAILED_PARTIAL)))  # a failed run is not behind any row
        behind = h.insight_runs("p.q")
        assert behind["runs"] == 3 and len(behind["items"]) == 4
        assert behind["items"][-1] == {
            "run_id": first,
            "module": "m",
            "ts": "2023-11-14T22:13:20.000Z",
            "text": long_text,  # the whole text, not the aggregate's clipped example
            "detail": "ev",
            "provider": "anthropic",
            "model": "claude",
        }
        assert [i["run_id"] for i in h.insight_runs("p.q", "n")["items"]] == [second]
        assert h.insight_runs("p.q", limit=1)["runs"] == 3 and len(h.insight_runs("p.q", limit=1)["items"]) == 1
        assert h.insight_runs(None)["runs"] == 0
        uses = h.enum_runs("m", "tag", "c")
        assert uses["runs"] == 1 and [(i["run_id"], i["text"], i["detail"]) for i in uses["items"]] == [
            (first, "c", "r1")
        ]
