"""A small load on `cogn serve` (bench/bench_serve.py runs the issue's 200): 30 SSE runs at once against a model
that answers after 300 ms, with fewer call slots than runs. None is lost, every stream passes the checker, and
the server ends with no run left over. No timing is asserted (the figures are in BENCHMARKS.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from servekit import MODULES, Served, answers, golden, history, module_root, serve_env, sse_load

from cogtui.core.workspace import Workspace

RUNS = 30


async def test_thirty_runs_at_once_are_all_answered_and_every_stream_is_valid(tmp_path: Path, llm_server: Any) -> None:
    root = module_root(tmp_path, "incident-narrator")
    answers(llm_server, latency=0.3)
    module = Workspace.from_environment([MODULES]).load("incident-narrator")
    with Served(tmp_path, root, "serve", "-j", "8", env=serve_env(tmp_path, llm_server)) as served:
        results = await sse_load(served.url, module, golden("incident-narrator")[0], RUNS)
        assert [(r.status, r.valid, r.ending) for r in results] == [(200, True, "final")] * RUNS, [
            r.problems for r in results if not r.valid
        ]
        health = httpx.get(served.url + "/health").json()
        assert health["runs"] == {"running": 0, "started": RUNS, "ended": RUNS}
        assert llm_server.max_in_flight <= 8  # the call slots held under the load
        served.stop()
    with history(tmp_path) as h:
        assert h.count() == RUNS
