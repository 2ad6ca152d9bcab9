"""Evals in the history (`cogn eval`, the TUI's eval screen), and the response cache's entries.

    evals           one row per eval: when, its modules and targets, its totals, and the report
                    (the `cogn eval --json` document) as text
    eval_modules    (eval, module) -> passed and cases: the pass-rate trend of one module is an index walk
    response_cache  request key -> the run that paid for the answer, and the model's raw answer

Reports and raw answers are stored as JSON text with every non-ASCII character
escaped, so the same bytes go into SQLite and PostgreSQL (whose text cannot
hold U+0000) and come back unchanged. Each eval's cells point at their runs in
`runs`; the cache's entries go when their run does (ON DELETE CASCADE).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cogtui.core.history.backend import Tx

TABLES = [
    """CREATE TABLE evals (
        {id}, started_at {real} NOT NULL, modules TEXT NOT NULL, targets TEXT NOT NULL,
        passed BIGINT NOT NULL, cases BIGINT NOT NULL, report TEXT NOT NULL)""",
    "CREATE INDEX evals_by_time ON evals(started_at)",
    """CREATE TABLE eval_modules (
        eval_id BIGINT NOT NULL REFERENCES evals(id) ON DELETE CASCADE, module TEXT NOT NULL,
        started_at {real} NOT NULL, passed BIGINT NOT NULL, cases BIGINT NOT NULL, PRIMARY KEY (eval_id, module))""",
    "CREATE INDEX eval_modules_by_module ON eval_modules(module, started_at)",
    """CREATE TABLE response_cache (
        key TEXT NOT NULL, run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        raw TEXT NOT NULL, created_at {real} NOT NULL)""",
    "CREATE INDEX response_cache_by_key ON response_cache(key, created_at)",
    "CREATE INDEX response_cache_by_run ON response_cache(run_id)",
]


def create(tx: Tx) -> None:
    d = tx.dialect
    for statement in TABLES:
        sql = statement.format(id=d.id_column, real=d.real)
        tx.run(sql.replace("BIGINT", "INTEGER") if d.name == "sqlite" else sql)


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class EvalPoint:
    """One eval of one module: for the pass-rate trend (the TUI's sparkline)."""

    eval_id: int
    started_at: float
    passed: int
    cases: int

    @property
    def pass_rate(self) -> float:
        return self.passed / self.cases if self.cases else 0.0


def record(tx: Tx, report: dict[str, Any], per_module: dict[str, tuple[int, int]], started_at: float) -> int:
    passed = sum(p for p, _ in per_module.values())
    cases = sum(n for _, n in per_module.values())
    eval_id = tx.insert_id(
        "INSERT INTO evals (started_at, modules, targets, passed, cases, report) VALUES (?, ?, ?, ?, ?, ?)",
        [started_at, _text(sorted(per_module)), _text(report.get("targets") or []), passed, cases, "{}"],
    )
    # The report names its own id, so a saved --json file and the stored copy are one document.
    tx.run("UPDATE evals SET report = ? WHERE id = ?", [_text({**report, "id": eval_id}), eval_id])
    tx.many(
        "INSERT INTO eval_modules (eval_id, module, started_at, passed, cases) VALUES (?, ?, ?, ?, ?)",
        [(eval_id, m, started_at, p, n) for m, (p, n) in sorted(per_module.items())],
    )
    return eval_id


def report(tx: Tx, eval_id: int) -> dict[str, Any] | None:
    rows = tx.rows("SELECT report FROM evals WHERE id = ?", [eval_id])
    if not rows:
        return None
    try:
        doc = json.loads(rows[0][0])
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def trend(tx: Tx, module: str, limit: int) -> list[EvalPoint]:
    """The module's most recent evals, oldest first."""
    rows = tx.rows(
        "SELECT eval_id, started_at, passed, cases FROM eval_modules WHERE module = ? "
        "ORDER BY started_at DESC, eval_id DESC LIMIT ?",
        [module, limit],
    )
    return [EvalPoint(int(i), float(t), int(p), int(n)) for i, t, p, n in reversed(rows)]


def store_responses(tx: Tx, entries: list[tuple[int, str, str]], created_at: float) -> None:
    tx.many(
        "INSERT INTO response_cache (key, run_id, raw, created_at) VALUES (?, ?, ?, ?)",
        [(key, run_id, _text(raw), created_at) for run_id, key, raw in entries],
    )


def cached_response(tx: Tx, key: str) -> tuple[int, str] | None:
    rows = tx.rows(
        "SELECT run_id, raw FROM response_cache WHERE key = ? ORDER BY created_at DESC, run_id DESC LIMIT 1", [key]
    )
    if not rows:
        return None
    try:
        raw = json.loads(rows[0][1])
    except ValueError:
        return None  # a damaged entry is a miss, never a wrong answer
    return (int(rows[0][0]), raw) if isinstance(raw, str) else None
