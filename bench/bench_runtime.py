"""Runtime benchmarks: per-run overhead without model time, and the streaming pipeline's throughput.

    .venv/bin/python bench/bench_runtime.py [--runs 200]

Targets (issue "Runtime"): overhead per run < 5 ms for a typical module; the
streaming pipeline (parse, field deltas, chunk emission) >= 20,000 chunks/s,
with per-chunk cost flat from a 10 KB to a 1 MB output.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))
from benchutil import machine, report  # noqa: E402
from providerkit import StandInProvider  # noqa: E402

from cogtui.core.module.loader import load_module  # noqa: E402
from cogtui.core.run.providers.base import ModelRequest, ProviderEvent, TextDelta, Usage  # noqa: E402
from cogtui.core.run.providers.declarations import capability_doc  # noqa: E402
from cogtui.core.run.runner import RunOptions, RunSession  # noqa: E402


class InstantProvider(StandInProvider):
    """Yields a precomputed answer in fixed-size chunks with no delay: what remains is the runtime's own cost."""

    name = "instant"
    model = "instant"

    def __init__(self, text: str, chunk: int) -> None:
        self.pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]

    def capabilities(self) -> dict[str, Any]:
        # What code-reviewer's runtime_requirements ask for (structured output, json_mode, long_context).
        return capability_doc(self.name, True, ("image",), 20, ("json_mode", "long_context"), "json_schema")

    def media_categories(self) -> tuple[str, ...]:
        return ("image",)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        for piece in self.pieces:
            yield TextDelta(piece)
        yield Usage(100, 100)


async def consume(module: Any, input_value: Any, provider: InstantProvider) -> int:
    session = RunSession(module, input_value, RunOptions(provider, stream_requested=True))
    n = 0
    async for _ev in session.events():
        n += 1
    assert session.result is not None and session.result.ok, session.result and session.result.envelope
    return n


def overhead(runs: int) -> float:
    module = load_module(ROOT / "modules" / "code-reviewer")
    test = module.tests[0]
    provider = InstantProvider(json.dumps(test.expected, ensure_ascii=False), 24)

    async def many() -> list[float]:
        out = []
        for _ in range(runs):
            t = time.perf_counter()
            await consume(module, test.input, provider)
            out.append(time.perf_counter() - t)
        return out

    return statistics.median(asyncio.run(many())[runs // 10 :])


def streaming(size: int, chunk: int = 12) -> tuple[int, float]:
    module = load_module(ROOT / "modules" / "incident-narrator")
    test = module.tests[0]
    answer = json.loads(json.dumps(test.expected))
    base = answer["data"]["rationale"]
    answer["data"]["rationale"] = (base * (size // max(1, len(base)) + 1))[:size]
    provider = InstantProvider(json.dumps(answer, ensure_ascii=False), chunk)
    t = time.perf_counter()
    asyncio.run(consume(module, test.input, provider))
    return len(provider.pieces), time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    results: dict[str, Any] = {"run overhead, code-reviewer_s (median)": overhead(args.runs)}
    for size in (10_000, 100_000, 1_000_000):
        chunks, secs = streaming(size)
        results[f"stream {size // 1000} KB: chunks"] = chunks
        results[f"stream {size // 1000} KB: chunks/s"] = round(chunks / secs)
        results[f"stream {size // 1000} KB: us/chunk"] = round(secs / chunks * 1e6, 2)
    report("runtime", results, machine())


if __name__ == "__main__":
    main()
