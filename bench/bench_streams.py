"""Per-delta cost of the provider stream paths, Anthropic (SDK) and OpenAI-compatible (httpx).

    .venv/bin/python bench/bench_streams.py [--sizes 10000 30000] [--repeat 3]

The scripted server (tests/llmserver.py) runs in its own process and streams
one-character deltas; this process runs only the provider's `stream()` and
counts the deltas. The figure is this process's CPU time (not wall time, so
other load on a shared machine matters less), median of `--repeat`.
Targets (issue 11 item 8): flat per-delta cost (30k deltas cost about 3x 10k)
on both providers, and the Anthropic path within 2x of the OpenAI path.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, report

ROOT = Path(__file__).resolve().parents[1]

SERVER = """
import sys, time
sys.path.insert(0, {tests!r})
from llmserver import ScriptedLLMServer, Text
server = ScriptedLLMServer().start()
for n in {plan!r}:
    server.enqueue(Text("x" * n, chunk_size=1))
print(server.base_url, flush=True)
sys.stdin.read()
server.stop()
"""


async def one_stream(provider: Any, request: Any) -> int:
    from cogtui.core.run.providers.base import TextDelta

    count = 0
    async for event in provider.stream(request):
        if isinstance(event, TextDelta):
            count += len(event.text)
    return count


def measure(provider: Any, n: int) -> float:
    from cogtui.core.run.providers.base import Message, ModelRequest

    request = ModelRequest(system="s", messages=[Message("user", "go")], timeout=120)
    started = time.process_time()
    got = asyncio.run(one_stream(provider, request))
    spent = time.process_time() - started
    if got != n:
        raise SystemExit(f"{provider.name}: {got} characters arrived, {n} were sent")
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    warmup = 100  # the first stream of each provider pays its imports and connection set-up
    plan = [warmup, warmup] + [n for n in args.sizes for _ in range(args.repeat) for _provider in (0, 1)]
    code = SERVER.format(tests=str(ROOT / "tests"), plan=plan)
    server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stdin is not None
    base_url = server.stdout.readline().strip()
    os.environ.update(ANTHROPIC_API_KEY="bench-key", OPENAI_API_KEY="bench-key")
    from cogtui.core.run.providers.anthropic.provider import AnthropicProvider
    from cogtui.core.run.providers.openai.provider import OpenAIProvider

    providers: list[Any] = [AnthropicProvider(base_url=base_url), OpenAIProvider(base_url=base_url + "/v1")]
    cpu: dict[tuple[str, int], list[float]] = {}
    try:
        for provider in providers:
            measure(provider, warmup)
        for n in args.sizes:
            for _ in range(args.repeat):
                for provider in providers:  # alternate, in the order the server queued the replies
                    cpu.setdefault((provider.name, n), []).append(measure(provider, n))
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    results: dict[str, Any] = {"load average": os.getloadavg()[0]}
    small, large = args.sizes[0], args.sizes[-1]
    for name in ("anthropic", "openai"):
        for n in args.sizes:
            med = statistics.median(cpu[(name, n)])
            results[f"{name} {n:,} deltas, CPU s (median)"] = round(med, 3)
            results[f"{name} {n:,} deltas, us per delta"] = round(med / n * 1e6, 1)
        growth = statistics.median(cpu[(name, large)]) / statistics.median(cpu[(name, small)])
        results[f"{name} {large:,}/{small:,} cost ratio (target about {large / small:.0f})"] = round(growth, 2)
    ratio = statistics.median(cpu[("anthropic", large)]) / statistics.median(cpu[("openai", large)])
    results[f"anthropic / openai at {large:,} deltas (target <= 2)"] = round(ratio, 2)
    report("streams", results, machine())


if __name__ == "__main__":
    main()
