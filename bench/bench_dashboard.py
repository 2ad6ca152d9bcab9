"""Insights dashboard benchmark: from pushing InsightsScreen until its tables are filled, over a large history.

    .venv/bin/python bench/bench_dashboard.py [--runs 100000] [--repeat 5] [--seed 1]

The history is filled with bench_history.py's generator (40 modules, 0-5
insights per run, custom enum values in about 20 % of runs). The app runs
headless under Pilot at 80×24; each repetition pushes a new InsightsScreen
(its own History connection, as when a user presses `i`) and waits for the
screen's `filled` flag, set by the one handler that fills the tables, the
sparkline and the module filter. Then the time until the screen is idle
(painted) is taken too.

Target (issue "Insights dashboard"): open in under 1 s over 100,000 runs (median of 5).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench_history import MODULES, make_run
from benchutil import machine, report, self_peak_rss_mb

from cogtui.core.history.store import History

TARGET_S = 1.0
TIMEOUT_S = 30.0


def fill(path: Path, runs: int, seed: int) -> float:
    rng = random.Random(seed)
    t0 = time.time() - runs * 37.0
    started = time.perf_counter()
    with History(path) as history:
        for start in range(0, runs, 1000):
            history.record_many([make_run(rng, i, t0) for i in range(start, min(start + 1000, runs))])
    return time.perf_counter() - started


async def open_times(repeat: int, module: str | None, cwd: Path) -> tuple[list[float], list[float], dict[str, int]]:
    """(seconds until filled, seconds until painted, row counts) for `repeat` openings of the dashboard."""
    from cogtui.tui.app import CogtuiApp
    from cogtui.tui.screens.insights.screen import InsightsScreen
    from cogtui.tui.widgets.insight_tables import CustomEnumTable, InsightTable

    app = CogtuiApp(paths=[], cwd=cwd, watch=False)
    filled: list[float] = []
    painted: list[float] = []
    rows: dict[str, int] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        for _ in range(repeat):
            screen = InsightsScreen(module)
            started = time.perf_counter()
            app.push_screen(screen)
            while not screen.filled:
                if time.perf_counter() - started > TIMEOUT_S:
                    raise RuntimeError("the dashboard did not fill its tables")
                await asyncio.sleep(0.001)
            filled.append(time.perf_counter() - started)
            await pilot.pause()
            painted.append(time.perf_counter() - started)
            rows = {
                "insight_rows": screen.query_one(InsightTable).row_count,
                "custom_enum_rows": screen.query_one(CustomEnumTable).row_count,
            }
            app.pop_screen()
            await pilot.pause()
    return filled, painted, rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100_000, help="runs in the history")
    ap.add_argument("--repeat", type=int, default=5, help="openings to time")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    results: dict[str, Any] = {"runs": args.runs}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        # Everything the app reads or writes stays in the temp folder.
        os.environ["COGTUI_DATA_DIR"] = str(base / "data")
        os.environ["COGTUI_CONFIG_FILE"] = str(base / "config.yaml")
        os.environ["HOME"] = str(base / "home")
        os.environ.pop("COGNITIVE_MODULES_PATH", None)
        results["fill_s"] = round(fill(base / "data" / "history.sqlite3", args.runs, args.seed), 1)
        filled, painted, rows = asyncio.run(open_times(args.repeat, None, base))
        results.update(rows)
        results["open_all_modules_first_s"] = round(filled[0], 4)
        results["open_all_modules_s (median)"] = statistics.median(filled)
        results["open_all_modules_painted_s (median)"] = statistics.median(painted)
        one, _, _ = asyncio.run(open_times(args.repeat, MODULES[0], base))
        results["open_one_module_s (median)"] = statistics.median(one)
    results["peak_rss_mb"] = self_peak_rss_mb()
    results["target_met"] = results["open_all_modules_painted_s (median)"] < TARGET_S
    report("dashboard", results, machine())


if __name__ == "__main__":
    main()
