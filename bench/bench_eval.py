"""`cogn eval` on 50 goldens against a scripted provider that takes 200 ms per answer: -j 1 against -j 8.

    .venv/bin/python bench/bench_eval.py [--cases 50] [--latency 0.2] [--repeat 3]

The scripted server (tests/llmserver.py) runs in its own process, speaks the
OpenAI protocol and holds every answer back for `--latency` seconds; the module
is generated in a temp folder with `--cases` goldens (tests/evalkit.py). The
figure is the wall time of the whole `cogn eval` process (start-up included),
median of `--repeat`, and the ratio -j 1 / -j 8 (target: at least 6x). The
eval's own time (the process minus a `cogn eval` of a module without goldens,
i.e. start-up) is printed too. A second pair of figures runs the eval engine
in this process against a provider that waits `--latency` and answers with no
HTTP client at all: what the pool itself achieves, whatever a provider's
per-call set-up costs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, report

ROOT = Path(__file__).resolve().parents[1]

SERVER = """
import sys
sys.path.insert(0, {tests!r})
from evalkit import answer
from llmserver import ScriptedLLMServer, Text, silence
server = ScriptedLLMServer().start()
server.respond_with(lambda req: silence({latency!r}, Text(answer(), chunk_size=64)))
print(server.openai_base_url, flush=True)
sys.stdin.read()
print(server.request_count, server.max_in_flight, flush=True)
server.stop()
"""


def cogn(env: dict[str, str], folder: Path, *args: str) -> float:
    argv = [sys.executable, "-m", "cogtui.cli", "--path", str(folder), "eval", *args, "--no-history"]
    t = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"cogn eval failed ({proc.returncode}): {proc.stdout[-800:]}{proc.stderr[-800:]}")
    return elapsed


class SleepyProvider:
    """Answers every request after `latency` seconds, in-process: no HTTP client, no TLS context."""

    name = "scripted"

    def __init__(self, latency: float, body: str) -> None:
        self.model = "scripted"
        self.latency = latency
        self.body = body

    def capabilities(self) -> dict[str, Any]:
        return {}

    def media_categories(self) -> tuple[str, ...]:
        return ()

    async def stream(self, request: Any) -> Any:
        from cogtui.core.run.providers.base import TextDelta, Usage

        await asyncio.sleep(self.latency)
        yield TextDelta(self.body)
        yield Usage(100, 20)

    async def aclose(self) -> None:
        return None


def in_process(folder: Path, latency: float, jobs: int) -> float:
    from evalkit import answer

    from cogtui.core.eval.engine import EvalSettings, run_eval
    from cogtui.core.eval.model import Target
    from cogtui.core.module.loader import load_module

    module = load_module(folder / "ticket")
    provider = SleepyProvider(latency, answer())
    t = time.perf_counter()
    outcome = asyncio.run(run_eval([module], [(Target("scripted"), provider)], EvalSettings(jobs=jobs)))
    elapsed = time.perf_counter() - t
    assert outcome.report.failed == 0
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from evalkit import eval_module

    server = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(tests=str(ROOT / "tests"), latency=args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    base_url = server.stdout.readline().strip()
    results: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "modules"
            eval_module(folder, n=args.cases, name="ticket")
            eval_module(folder, n=0, name="empty")
            env = {
                **os.environ,
                "OPENAI_BASE_URL": base_url,
                "OPENAI_API_KEY": "bench-key",
                "COGTUI_CONFIG_FILE": str(Path(tmp) / "config.yaml"),
                "COGTUI_DATA_DIR": str(Path(tmp) / "data"),
                "NO_COLOR": "1",
            }
            cogn(env, folder, "ticket", "--provider", "openai", "-j", "8")  # warm the file cache
            start = statistics.median(cogn(env, folder, "empty", "--provider", "openai") for _ in range(args.repeat))
            walls = {
                jobs: statistics.median(
                    cogn(env, folder, "ticket", "--provider", "openai", "-j", str(jobs)) for _ in range(args.repeat)
                )
                for jobs in (1, 8)
            }
            engine = {
                jobs: statistics.median(in_process(folder, args.latency, jobs) for _ in range(args.repeat))
                for jobs in (1, 8)
            }
    finally:
        server.stdin.close()
        counts = server.stdout.read().split()
        server.wait(timeout=10)
    results[f"cases x latency (s), {args.cases} x {args.latency}"] = round(args.cases * args.latency, 1)
    results["cogn eval -j 1_s (median)"] = round(walls[1], 3)
    results["cogn eval -j 8_s (median)"] = round(walls[8], 3)
    results["process start-up (eval of a module without goldens)_s (median)"] = round(start, 3)
    results["-j 1 / -j 8, whole process (target >= 6)"] = round(walls[1] / walls[8], 2)
    results["-j 1 / -j 8, start-up taken out"] = round((walls[1] - start) / max(1e-9, walls[8] - start), 2)
    results["engine in-process, no HTTP client, -j 1_s (median)"] = round(engine[1], 3)
    results["engine in-process, no HTTP client, -j 8_s (median)"] = round(engine[8], 3)
    results["engine in-process -j 1 / -j 8"] = round(engine[1] / engine[8], 2)
    if len(counts) == 2:
        results["model calls made (all runs)"] = int(counts[0])
        results["most calls in flight"] = int(counts[1])
    results["load average"] = os.getloadavg()[0]
    report("eval", results, machine())


if __name__ == "__main__":
    main()
