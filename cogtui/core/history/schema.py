"""The history's tables, one layout for SQLite and PostgreSQL, built by versioned migrations.

`MIGRATIONS[n]` takes a store at schema version n to n + 1 (0 is an empty
store). All pending steps and the new version are one transaction, taken under
a lock (PostgreSQL: a transaction-scoped advisory lock; SQLite: BEGIN IMMEDIATE,
its one write lock), and the version is read again once the lock is held: of
many processes finding a store behind at once, the first applies each step and
the others find the work done. A step is so applied exactly once, with its
version, or not at all (HIST-3). SQLite keeps the version in `PRAGMA
user_version`, PostgreSQL in the one-row `cogtui_schema` table. A later schema
change appends a step; a store with a newer version than this cogtui knows is
refused before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from cogtui.core.history import evals, rollups
from cogtui.core.history.backend import Backend, Tx
from cogtui.core.history.records import HistoryError, digest, run_digest

SCHEMA_V1 = [
    # JSON columns (input, envelope, usage): TEXT written with ensure_ascii=False on
    # SQLite, jsonb on PostgreSQL. error_code is denormalised from the envelope so
    # failures can be filtered in SQL.
    """CREATE TABLE runs (
        {id}, module TEXT NOT NULL, module_version TEXT, module_format TEXT,
        provider TEXT NOT NULL, model TEXT, input {json} NOT NULL, input_hash TEXT NOT NULL, args TEXT,
        envelope {json} NOT NULL, error_code TEXT, started_at {real} NOT NULL, ttfc_ms {real}, total_ms {real},
        usage {json}, outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'error', 'interrupted')), session_id TEXT)""",
    # Newest-first listing, overall and per module (SQLite's implicit rowid suffix
    # makes `ORDER BY started_at DESC, id DESC` an index walk); also the
    # skip-scan behind the module list.
    "CREATE INDEX runs_by_module_time ON runs(module, started_at)",
    "CREATE INDEX runs_by_time ON runs(started_at)",
    # ts is the run's started_at; suggested_mapping is NULL when the insight has none.
    """CREATE TABLE insights (
        {id}, run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        module TEXT NOT NULL, ts {real} NOT NULL, suggested_mapping TEXT, text TEXT NOT NULL, evidence TEXT)""",
    # Covers the aggregation (GROUP BY module, mapping with MIN/MAX ts), with or
    # without a module filter, and per-module "latest examples" lookups.
    "CREATE INDEX insights_by_module ON insights(module, suggested_mapping, ts)",
    # Latest examples of one mapping across all modules: a LIMIT walk, no sort.
    "CREATE INDEX insights_by_mapping ON insights(suggested_mapping, ts)",
    "CREATE INDEX insights_by_run ON insights(run_id)",  # get-by-run and ON DELETE CASCADE
    # field is the dotted path (issues[].category), value the custom string.
    """CREATE TABLE custom_enums (
        {id}, run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        module TEXT NOT NULL, ts {real} NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, reason TEXT)""",
    "CREATE INDEX custom_enums_by_value ON custom_enums(module, field, value, reason)",  # covering
    "CREATE INDEX custom_enums_by_run ON custom_enums(run_id)",
]


def create_v1(tx: Tx) -> None:
    d = tx.dialect
    for statement in SCHEMA_V1:
        # SQLite's "INTEGER PRIMARY KEY" is the rowid; its foreign keys stay INTEGER as before.
        sql = statement.format(id=d.id_column, json=d.json, real=d.real)
        tx.run(sql.replace("BIGINT", "INTEGER") if d.name == "sqlite" else sql)


BACKFILL_BATCH = 5_000


def v2_digests_and_totals(tx: Tx) -> None:
    """v2: `run_digest`, what import de-duplicates on (records.run_digest), indexed and computed
    for stored runs; and the running totals behind the dashboard (rollups.py), computed from the rows."""
    rollups.create(tx)
    tx.run("ALTER TABLE runs ADD COLUMN run_digest TEXT")
    last = 0
    while True:
        rows = tx.rows(
            f"SELECT id, module, input_hash, provider, model, started_at, {tx.dialect.select_json('envelope')} "
            "FROM runs WHERE id > ? ORDER BY id LIMIT ?",
            [last, BACKFILL_BATCH],
        )
        if not rows:
            break
        keys = []
        for rid, module, input_hash, provider, model, started_at, envelope_text in rows:
            try:
                envelope = json.loads(envelope_text)
            except ValueError:  # a damaged row keeps a key of its own text
                keys.append((digest(envelope_text), rid))
                continue
            keys.append((run_digest(module, input_hash, provider, model, started_at, envelope), rid))
        tx.many("UPDATE runs SET run_digest = ? WHERE id = ?", keys)
        last = rows[-1][0]
    tx.run("CREATE INDEX runs_by_digest ON runs(run_digest)")


def v3_evals(tx: Tx) -> None:
    """v3: evals, their per-module totals, and the response cache (evals.py)."""
    evals.create(tx)


def v4_contract_validity(tx: Tx) -> None:
    """v4: `contract_valid` on every run (RunRecord.contract_valid: a success envelope, not interrupted;
    for a stored run, outcome 'ok' with no error code), and only valid runs feed insights (HIST-1): the
    rows failed runs left are counted in insight_exclusions instead (rollups.exclude_failed_runs)."""
    tx.run("ALTER TABLE runs ADD COLUMN contract_valid INTEGER")
    tx.run("UPDATE runs SET contract_valid = CASE WHEN outcome = 'ok' AND error_code IS NULL THEN 1 ELSE 0 END")
    rollups.exclude_failed_runs(tx)


SCHEMA_VERSION = 4
MIGRATIONS: dict[int, Callable[[Tx], None]] = {
    0: create_v1,
    1: v2_digests_and_totals,
    2: v3_evals,
    3: v4_contract_validity,
}


def _newer(where: Path | str, version: int) -> HistoryError:
    return HistoryError(
        where,
        f"run history {where} was written by a newer cogtui (schema {version}, this one reads "
        f"{SCHEMA_VERSION}); upgrade cogtui, or point COGTUI_HISTORY_URL (or COGTUI_DATA_DIR) at another history",
    )


def migrate(backend: Backend) -> None:
    version = backend.schema_version()
    if version > SCHEMA_VERSION:  # refuse before writing anything
        raise _newer(backend.where, version)
    if version == SCHEMA_VERSION:
        return
    with backend.transaction(write=True) as tx:
        tx.lock_schema()
        # Re-read under the lock: another process may have migrated while this one waited for it.
        version = tx.schema_version()
        if version > SCHEMA_VERSION:
            raise _newer(backend.where, version)
        while version < SCHEMA_VERSION:
            MIGRATIONS[version](tx)
            version += 1
        tx.set_schema_version(version)
