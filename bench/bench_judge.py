"""Rubric judges' cost in time: 16 goldens at -j 8 against a scripted model that takes 300 ms per answer, with and
without a `$judge` on each (issue 34: with judges, at most 1.5x the time without).

    .venv/bin/python bench/bench_judge.py [--cases 16] [--latency 0.3] [--jobs 8] [--repeat 3]

The scripted server (tests/llmserver.py) runs in its own process, speaks the OpenAI protocol and holds every
answer back for `--latency` seconds, the judge's answers as the module's. The same module is generated twice,
its goldens without and with a rubric (tests/judgekit.py); the figure is the wall time of the whole `cogn eval`
process (start-up included, --no-history), median of `--repeat`, and the ratio with judges / without. Judging
a case is a second call that can only follow the first: with the judge's calls in slots of their own (EVAL-6)
the judges add about one round of calls (ceil(cases / jobs) rounds of the module, plus one); sharing the
targets' slots they would double it. The ratio with start-up taken out, and the in-process engine's (no process,
no start-up), are printed too, with the floor the slots allow.

Target (issue 34): with judges, at most 1.5x the time without.
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from benchutil import machine, report

ROOT = Path(__file__).resolve().parents[1]

SERVER = """
import sys
sys.path.insert(0, {tests!r})
from evalkit import answer
from judgekit import is_judge, judge_answer
from llmserver import ScriptedLLMServer, Text, silence
server = ScriptedLLMServer().start()
def respond(req):
    body = judge_answer(0.9) if is_judge(req) else answer()
    return silence({latency!r}, Text(body, chunk_size=64))
server.respond_with(respond)
print(server.openai_base_url, flush=True)
sys.stdin.read()
print(server.request_count, server.max_in_flight, flush=True)
server.stop()
"""


def cogn(env: dict[str, str], folder: Path, *args: str) -> float:
    """Wall seconds of one `cogn eval` process."""
    argv = [sys.executable, "-m", "cogtui.cli", "--path", str(folder), "eval", *args]
    started = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"cogn eval failed ({proc.returncode}): {proc.stdout[-800:]}{proc.stderr[-800:]}")
    return elapsed


def in_process(folder: Path, base_url: str, jobs: int, judged: bool) -> float:
    """The eval engine in this process against the same server: the pool's own figure, no start-up."""
    from cogtui.core.eval.engine import EvalSettings, run_eval
    from cogtui.core.eval.model import Target
    from cogtui.core.module.loader import load_module
    from cogtui.core.run.providers.openai.provider import OpenAIProvider

    module = load_module(folder)

    async def go() -> float:
        target = OpenAIProvider(model="bench-model", base_url=base_url)
        judge = OpenAIProvider(model="bench-judge", base_url=base_url) if judged else None
        try:
            started = time.perf_counter()
            outcome = await run_eval(
                [module], [(Target("openai", "bench-model"), target)], EvalSettings(jobs, judge=judge)
            )
            elapsed = time.perf_counter() - started
            assert outcome.report.failed == 0, [c.reasons for c in outcome.report.cells if not c.passed][:3]
            return elapsed
        finally:
            await target.aclose()
            if judge is not None:
                await judge.aclose()

    return asyncio.run(go())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from evalkit import eval_module
    from judgekit import judged_module

    server = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(tests=str(ROOT / "tests"), latency=args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    base_url = server.stdout.readline().strip()
    results: dict[str, Any] = {}
    load_before = os.getloadavg()[0]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            plain_root, judged_root = Path(tmp) / "plain", Path(tmp) / "judged"
            plain = eval_module(plain_root, n=args.cases, name="ticket")
            judged = judged_module(judged_root, n=args.cases, name="ticket")
            eval_module(plain_root, n=0, name="empty")
            env = {
                **os.environ,
                "OPENAI_BASE_URL": base_url,
                "OPENAI_API_KEY": "bench-key",
                "COGTUI_CONFIG_FILE": str(Path(tmp) / "config.yaml"),
                "COGTUI_DATA_DIR": str(Path(tmp) / "data"),
                "NO_COLOR": "1",
                "PYTHONDONTWRITEBYTECODE": "",  # keep compiled modules, as an installed cogtui does
            }
            common = ("ticket", "--provider", "openai", "-j", str(args.jobs), "--no-history")
            judge = ("--judge-provider", "openai", "--judge-model", "bench-judge")
            cogn(env, judged_root, *common, *judge)  # warm the file cache
            start = statistics.median(
                cogn(env, plain_root, "empty", "--provider", "openai", "--no-history") for _ in range(args.repeat)
            )
            without = statistics.median(cogn(env, plain_root, *common) for _ in range(args.repeat))
            with_judges = statistics.median(cogn(env, judged_root, *common, *judge) for _ in range(args.repeat))
            engine_without = statistics.median(
                in_process(plain, base_url, args.jobs, False) for _ in range(args.repeat)
            )
            engine_with = statistics.median(in_process(judged, base_url, args.jobs, True) for _ in range(args.repeat))
    finally:
        server.stdin.close()
        counts = server.stdout.read().split()
        server.wait(timeout=10)
    rounds = -(-args.cases // args.jobs)
    results[f"goldens x latency x jobs: {args.cases} x {args.latency} s x -j {args.jobs}"] = rounds
    results["cogn eval without judges_s (median)"] = round(without, 3)
    results["cogn eval with judges_s (median)"] = round(with_judges, 3)
    results["process start-up (eval of a module without goldens)_s (median)"] = round(start, 3)
    results["with / without judges, whole process (target <= 1.5)"] = round(with_judges / without, 2)
    results["with / without judges, start-up taken out"] = round((with_judges - start) / max(1e-9, without - start), 2)
    results["engine in-process without judges_s (median)"] = round(engine_without, 3)
    results["engine in-process with judges_s (median)"] = round(engine_with, 3)
    results["with / without judges, engine in-process"] = round(engine_with / engine_without, 2)
    # The floor the slots allow: `rounds` rounds of the module's calls, then one more of the last judges.
    results["with / without floor, judge slots of their own"] = round((rounds + 1) / rounds, 2)
    if len(counts) == 2:
        results["model calls made (all runs)"] = int(counts[0])
        results["most calls in flight"] = int(counts[1])
    results["load average (1 minute) before"] = round(load_before, 2)
    results["load average (1 minute) after"] = round(os.getloadavg()[0], 2)
    report("judge", results, machine())


if __name__ == "__main__":
    main()
