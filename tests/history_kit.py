"""Shared pieces of the history tests: envelopes, runs, and raw access to either backend's tables."""

from __future__ import annotations

import sqlite3
from typing import Any

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

        with psycopg.connect(location, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]
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
