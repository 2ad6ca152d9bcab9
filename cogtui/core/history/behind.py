"""The runs behind one row of the insights aggregate: every insight (or custom enum value) of the
group with its full text, and the run it came from (id, module, time, provider, model).

The insights dashboard's detail view reads this when the author opens a row; the aggregate itself
keeps only counts and a few clipped examples. Newest first, at most `limit` items; `runs` is how
many distinct runs are behind the row in all.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.history.aggregate import Note, sound
from cogtui.core.history.backend import Tx
from cogtui.core.history.records import iso_utc


def _behind(tx: Tx, table: str, columns: str, cond: str, params: list[Any], limit: int, note: Note) -> dict[str, Any]:
    """The rows of `table` (aliased t) matching `cond`, newest first, joined to their runs."""
    rows = tx.rows(
        f"SELECT t.run_id, t.module, t.ts, {columns}, r.provider, r.model FROM {table} t "
        f"JOIN runs r ON r.id = t.run_id WHERE {cond} ORDER BY t.ts DESC, t.id DESC LIMIT ?",
        [*params, limit],
    )
    total = tx.rows(f"SELECT COUNT(DISTINCT t.run_id) FROM {table} t WHERE {cond}", params)[0][0]
    items = [
        {"run_id": rid, "module": mod, "ts": iso_utc(ts), "text": text, "detail": detail, "provider": p, "model": m}
        for rid, mod, ts, text, detail, p, m in sound(rows, "isnsSsS", table, note)
    ]
    return {"runs": int(total or 0), "items": items}


def insight_runs(tx: Tx, mapping: str | None, module: str | None, limit: int, note: Note) -> dict[str, Any]:
    """The insights suggesting `mapping` (None: those without one), in `module` or all modules."""
    cond, params = ("t.suggested_mapping IS NULL", []) if mapping is None else ("t.suggested_mapping = ?", [mapping])
    if module is not None:
        cond, params = cond + " AND t.module = ?", [*params, module]
    return _behind(tx, "insights", "t.text, t.evidence", cond, params, limit, note)


def enum_runs(tx: Tx, module: str, field: str, value: str, limit: int, note: Note) -> dict[str, Any]:
    """The uses of the custom value `value` in `field` of `module` (`detail` is the reason given)."""
    cond = "t.module = ? AND t.field = ? AND t.value = ?"
    return _behind(tx, "custom_enums", "t.value, t.reason", cond, [module, field, value], limit, note)
