"""`cogn serve` under load on loopback: `--runs` SSE runs at once against a scripted model that answers after
`--latency` seconds (issue 35: 200 runs, 300 ms).

    .venv/bin/python bench/bench_serve.py [--runs 200] [--latency 0.3] [--jobs 32] [--rounds 2]

The scripted server (tests/llmserver.py) runs in this process's threads and answers every request with
incident-narrator's golden answer (a streaming module: many chunks a run). `cogn serve` runs in its own
process with `-j --jobs` call slots and records every run in a temporary history. Each round sends `--runs`
requests at once and checks every SSE stream with cogtui's checker (`cogn check`'s). The figures: runs lost
(not 200 with a valid stream ending in `final`; target 0), the round's wall time, the median and 95th
percentile of a request's time, and the server's resident memory after each round and at its peak, so a
second round that does not grow it says memory is bounded (no run, stream or buffer kept).

Target (issue 35): 200 runs at once, none lost, memory bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from benchutil import machine, report
from llmserver import ScriptedLLMServer
from servekit import MODULES, Served, answers, golden, module_root, peak_memory_kib, serve_env, sse_load

from cogtui.core.workspace import Workspace


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--jobs", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=2)
    opts = ap.parse_args()
    module = Workspace.from_environment([MODULES]).load("incident-narrator")
    case = golden("incident-narrator")[0]
    results: dict[str, object] = {"runs at once": opts.runs, "model latency_s": opts.latency, "call slots": opts.jobs}
    lost_total = 0
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer() as llm:
        tmp_path = Path(tmp)
        answers(llm, latency=opts.latency)
        root = module_root(tmp_path, "incident-narrator")
        env = serve_env(tmp_path, llm)
        with Served(tmp_path, root, "serve", "-j", str(opts.jobs), env=env) as served:
            for n in range(1, opts.rounds + 1):
                started = time.perf_counter()
                streams = asyncio.run(sse_load(served.url, module, case, opts.runs))
                wall = time.perf_counter() - started
                lost = sum(1 for s in streams if (s.status, s.valid, s.ending) != (200, True, "final"))
                lost_total += lost
                times = sorted(s.seconds for s in streams)
                rss, peak = peak_memory_kib(served.proc.pid)
                results[f"round {n}: wall_s"] = round(wall, 2)
                results[f"round {n}: runs/s"] = round(opts.runs / wall, 1)
                results[f"round {n}: request median_s"] = round(statistics.median(times), 2)
                results[f"round {n}: request p95_s"] = round(times[int(0.95 * (len(times) - 1))], 2)
                results[f"round {n}: server RSS after_MiB"] = round(rss / 1024, 1)
                results[f"round {n}: server RSS peak_MiB"] = round(peak / 1024, 1)
            results["model calls in flight at most"] = llm.max_in_flight
            served.stop()
    results["runs lost (target <= 0)"] = lost_total
    report("serve", results, machine())
    return 0 if lost_total == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
