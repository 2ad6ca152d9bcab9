"""Shared pieces of the history tests: envelopes, runs, and raw access to either backend's tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from cogtui.core.history.records import canonical_json, dumps
from cogtui.core.history.store import RunRecord

T0 = 1_700_000_000.0


def ok_env(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "ok": True,
        "meta": {"confidence": 0.9, "risk": "low", "explain": "fine"},
        "data": {"rationale": "r", **data},
    }


def fail_env(partial: dict[str, Any] | None, code: str = "E3001") -> dict[str, Any]:
    return {
        "ok": False,
        "meta": {"confidence": 0.4, "risk": "medium", "explain": "no"},
        "error": {"code": code, "message": "bad"},
        **({} if partial is None else {"partial_data": partial}),
    }


def insight(mapping: str | None, text: str = "t", evidence: str | None = None) -> dict[str, Any]:
    extra = {"suggested_mapping": mapping, "evidence": evidence}
    return {"text": text, **{k: v for k, v in extra.items() if v is not None}}


def with_insights(*items: dict[str, Any], **data: Any) -> dict[str, Any]:
    return ok_env({**data, "extensions": {"insights": list(items)}})


def run(module: str = "m", envelope: dict[str, Any] | None = None, started_at: float = T0, **kw: Any) -> RunRecord:
    env = envelope or ok_env({})
    base: dict[str, Any] = dict(
        module=module,
        module_version="1.0.0",
        module_format="v2.2",
        provider="anthropic",
        model="claude",
        input={"code": "x = 1", "ü": [1, 2]},
        args="--x",
        envelope=env,
        started_at=started_at,
        ttfc_ms=12.5,
        total_ms=300.0,
        usage={"input_tokens": 10, "output_tokens": 20},
        outcome="ok" if env["ok"] else "error",
    )
    return RunRecord(**{**base, **kw})


def is_postgres(location: str) -> bool:
    return location.startswith("postgresql://")


def raw(location: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run SQL straight on the store (no cogtui code): to inspect or damage it. `?` placeholders."""
    if is_postgres(location):
        import psycopg

        with psycopg.connect(location, autocommit=True) as server:
            cur = server.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description is not None else []
    conn = sqlite3.connect(location, isolation_level=None)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def columns(location: str, table: str) -> list[str]:
    if is_postgres(location):
        sql = "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position"
        return [c for (c,) in raw(location, sql, (table,))]
    return [c[1] for c in raw(location, f"PRAGMA table_info({table})")]


def open_backend(location: str) -> Any:
    """The store's backend without History (no migration): to build a store as an older cogtui left it."""
    from cogtui.core.history.backend import open_sqlite

    if is_postgres(location):
        from cogtui.core.history.postgres import open_postgres

        return open_postgres(location)
    Path(location).parent.mkdir(parents=True, exist_ok=True)
    return open_sqlite(Path(location))


def schema_version(location: str) -> int:
    """The version the store says it is at, read with no cogtui code."""
    if is_postgres(location):
        return int(raw(location, "SELECT MAX(version) FROM cogtui_schema")[0][0])
    return int(raw(location, "PRAGMA user_version")[0][0])


def store_behind(location: str, runs: int = 1) -> None:
    """A store one schema version behind this cogtui's, holding `runs` runs: as the previous cogtui left it."""
    from cogtui.core.history.schema import MIGRATIONS, SCHEMA_VERSION

    backend = open_backend(location)
    try:
        with backend.transaction(write=True) as tx:
            for step in range(SCHEMA_VERSION - 1):
                MIGRATIONS[step](tx)
            tx.set_schema_version(SCHEMA_VERSION - 1)
    finally:
        backend.close()
    for i in range(runs):  # written as that cogtui wrote them: the columns it had
        r = run(started_at=T0 + i)
        raw(
            location,
            "INSERT INTO runs (module, provider, input, input_hash, envelope, started_at, outcome, run_digest) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (r.module, r.provider, canonical_json(r.input), r.input_hash, dumps(r.envelope), r.started_at, "ok", r.key),
        )


def cogn_env(folder: Path, location: str) -> dict[str, str]:
    """The environment of a `cogn` process recording into `location`, its home, config and data in `folder`
    (no provider settings of the developer's, the replay provider unpaced)."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("COGNITIVE_", "ANTHROPIC_", "OPENAI_"))}
    env.update(
        HOME=str(folder / "home"),
        COGTUI_DATA_DIR=str(folder / "data"),
        COGTUI_CONFIG_FILE=str(folder / "config.yaml"),
        COGTUI_HISTORY_URL=location,
        COGTUI_REPLAY_INTERVAL="0",
        NO_COLOR="1",
    )
    return env
