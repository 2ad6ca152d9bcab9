"""Run-history benchmarks: recording a run, bulk fill, `insights()` and `runs()` over a large history.

    .venv/bin/python bench/bench_history.py [--runs 100000] [--single 1000] [--repeat 5] [--seed 1]

Targets (issue "History"): one `record` (its own transaction) < 2 ms at the
median and p95; `insights()` over 100,000 runs < 0.5 s (median of 5).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchutil import machine, report, self_peak_rss_mb, timed

from cogtui.core.history.store import History, RunRecord

MODULES = [f"{word}-{n}" for word in ("code-review", "summarise", "triage", "simplify", "classify") for n in range(8)]
MAPPINGS = [
    f"{area}.{field}"
    for area in ("risk", "changes", "issues", "meta", "tags", "security", "perf", "style", "deps", "tests")
    for field in (
        "severity",
        "category",
        "owner",
        "scope",
        "impact",
        "effort",
        "kind",
        "reason",
        "source",
        "target",
        "status",
        "priority",
        "confidence",
        "area",
        "label",
        "group",
        "stage",
        "type",
        "origin",
        "weight",
    )
]
CATEGORIES = ["performance", "security", "naming", "complexity", "docs", "testing"]
CUSTOM = ["race-condition", "i18n", "licensing", "telemetry", "accessibility", "migration", "flaky"]


def make_run(rng: random.Random, i: int, t0: float) -> RunRecord:
    """A realistic-looking run: a few issues, 0-5 insights (10 % unmapped), a custom enum in ~20 % of runs."""
    issues = []
    for k in range(rng.randint(0, 4)):
        category: Any = rng.choice(CATEGORIES)
        if rng.random() < 0.07:
            category = {
                "custom": rng.choice(CUSTOM),
                "reason": rng.choice(["not in the enum", "new area", "seen twice"]),
            }
        issues.append(
            {
                "line": rng.randint(1, 400),
                "category": category,
                "message": f"issue {k} in run {i}: " + "detail " * rng.randint(3, 12),
            }
        )
    insights = []
    for _ in range(rng.randint(0, 5)):
        item = {
            "text": "The schema has no place for this observation " * rng.randint(1, 3),
            "evidence": f"line {rng.randint(1, 400)}",
        }
        if rng.random() < 0.9:
            item["suggested_mapping"] = MAPPINGS[min(int(rng.paretovariate(1.2)) - 1, len(MAPPINGS) - 1)]
        insights.append(item)
    ok = rng.random() < 0.92
    payload = {"issues": issues, "summary": "A summary " * 10, "extensions": {"insights": insights}}
    meta = {
        "confidence": round(rng.random(), 2),
        "risk": rng.choice(["none", "low", "medium", "high"]),
        "explain": "Short explanation for the card view.",
        "model": "claude-sonnet",
        "latency_ms": 1200,
    }
    if ok:
        env = {"ok": True, "meta": meta, "data": {"rationale": "Because " * 30, **payload}}
    else:
        env = {
            "ok": False,
            "meta": meta,
            "error": {"code": "E3001", "message": "schema mismatch"},
            "partial_data": payload,
        }
    return RunRecord(
        module=rng.choice(MODULES),
        module_version="2.2.0",
        module_format="v2.2",
        provider="anthropic",
        model="claude-sonnet",
        input={"code": "def f(x):\n    return x\n" * rng.randint(1, 20), "lang": "py"},
        args=None,
        envelope=env,
        started_at=t0 + i * 37.0 + rng.random(),
        ttfc_ms=rng.uniform(200, 900),
        total_ms=rng.uniform(900, 9000),
        usage={"input_tokens": rng.randint(200, 4000), "output_tokens": rng.randint(50, 1500)},
        outcome="ok" if ok else "error",
        session_id=f"s{i // 50}",
    )


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[94] if len(values) > 1 else values[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100_000, help="runs in the filled history")
    ap.add_argument("--single", type=int, default=1000, help="individual record() calls to time")
    ap.add_argument("--repeat", type=int, default=5, help="repetitions of each query")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    t0 = time.time() - args.runs * 37.0
    results: dict[str, Any] = {"runs": args.runs}
    with tempfile.TemporaryDirectory() as tmp, History(Path(tmp) / "history.sqlite3") as hist:
        # Bulk fill in batches of 1,000 runs per transaction (the record_many path).
        batch, fill = 1000, 0.0
        for start in range(0, args.runs, batch):
            runs = [make_run(rng, i, t0) for i in range(start, min(start + batch, args.runs))]
            t = time.perf_counter()
            hist.record_many(runs)
            fill += time.perf_counter() - t
        results["bulk_fill_s"] = round(fill, 2)
        results["bulk_fill_runs_per_s"] = round(args.runs / fill) if fill else None
        rows = hist._query("SELECT (SELECT COUNT(*) FROM insights), (SELECT COUNT(*) FROM custom_enums)")[0]
        results["insight_rows"], results["custom_enum_rows"] = rows

        # One record() per transaction on the full history, as a real run does.
        singles = [make_run(rng, args.runs + i, t0) for i in range(args.single)]
        per_call = []
        for r in singles:
            t = time.perf_counter()
            hist.record(r)
            per_call.append((time.perf_counter() - t) * 1000)
        results["record_ms (median)"] = round(statistics.median(per_call), 3)
        results["record_ms (p95)"] = round(p95(per_call), 3)
        results["record_ms (max)"] = round(max(per_call), 3)  # includes WAL auto-checkpoints

        n = args.repeat
        # What `cogn insights` pays: a new connection with an empty page cache
        # (the OS cache is warm; a truly cold disk is not measured here).
        with History(Path(tmp) / "history.sqlite3") as fresh:
            t = time.perf_counter()
            fresh.insights()
            results["insights_fresh_connection_ms (one call)"] = round((time.perf_counter() - t) * 1000, 1)
        results["insights_s (median)"] = statistics.median(timed(hist.insights, n))
        one = MODULES[0]
        results["insights_one_module_s (median)"] = statistics.median(timed(lambda: hist.insights(one), n))
        results["insight_timeline_s (median)"] = statistics.median(timed(hist.insight_timeline, n))
        results["runs_200_s (median)"] = statistics.median(timed(lambda: hist.runs(limit=200), n))
        results["runs_200_one_module_s (median)"] = statistics.median(timed(lambda: hist.runs(one, limit=200), n))
        results["modules_s (median)"] = statistics.median(timed(hist.modules, n))
        results["count_s (median)"] = statistics.median(timed(hist.count, n))
        results["db_mb"] = round(sum(f.stat().st_size for f in Path(tmp).iterdir()) / 2**20, 1)
    results["peak_rss_mb"] = self_peak_rss_mb()
    results["targets_met"] = (
        results["record_ms (median)"] < 2 and results["record_ms (p95)"] < 2 and results["insights_s (median)"] < 0.5
    )
    report("history", results, machine())


if __name__ == "__main__":
    main()
