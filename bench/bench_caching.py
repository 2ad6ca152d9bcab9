"""Input tokens saved by Anthropic prompt caching on a module with a large schema (issue 14).

    .venv/bin/python bench/bench_caching.py [--runs 10] [--fields 60]

A SCRIPTED figure, not a measurement of Anthropic: the module is code-reviewer
with `--fields` extra described fields in its data schema
(tests/fixtures/runtime/bigschema.py), run `--runs` times through the real
anthropic SDK against tests/llmserver.py, whose PromptCache reports cache
writes and reads as Anthropic does, counting tokens as characters / 4. What the
figure shows is what cogtui sends and records: the static system block (its
size here in the server's count and in cogtui's own estimate) written once and
read on every later run, and the input billed at full price with and without
the cache. The cost line uses Anthropic's published multipliers for a 5-minute
cache (write 1.25x, read 0.1x the input price).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "runtime"))
from benchutil import machine, report

ROOT = Path(__file__).resolve().parents[1]

WRITE_PRICE, READ_PRICE = 1.25, 0.1  # times the input price, Anthropic's 5-minute cache


async def run_all(runs: int, fields: int) -> dict[str, Any]:
    from bigschema import large_schema_module
    from llmserver import ScriptedLLMServer

    from cogtui.core.module.loader import load_module
    from cogtui.core.run.prompt import estimate_tokens, system_prompt
    from cogtui.core.run.providers.anthropic.provider import AnthropicProvider
    from cogtui.core.run.runner import RunOptions, run_module

    tests = ROOT / "modules" / "code-reviewer" / "tests"
    inp = json.loads((tests / "case1.input.json").read_text(encoding="utf-8"))
    answer = json.loads((tests / "case1.expected.json").read_text(encoding="utf-8"))
    answer["meta"] = {k: answer["meta"][k] for k in ("confidence", "risk", "explain")}
    os.environ["ANTHROPIC_API_KEY"] = "sk-ant-bench-not-a-key"
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer() as server:
        module = load_module(large_schema_module(Path(tmp) / "big-reviewer", fields))
        server.prompt_cache.enable()
        provider = AnthropicProvider(model="claude-bench", base_url=server.base_url)
        usages = []
        for _ in range(runs):
            server.enqueue(json.dumps(answer))
            result = await run_module(module, inp, RunOptions(provider))
            assert result.ok and result.usage is not None, result.envelope
            usages.append(result.usage)
        static_server = len(system_prompt(module)) // 4
        static_estimate = estimate_tokens(system_prompt(module))
    uncached = sum(u["input_tokens"] for u in usages)
    read = sum(u["cache_read_tokens"] for u in usages)
    written = sum(u["cache_write_tokens"] for u in usages)
    without = uncached + read + written  # every input token at full price
    with_cache = uncached + WRITE_PRICE * written + READ_PRICE * read
    return {
        "runs": runs,
        "data schema fields": len(module.schemas.data.get("properties", {})) if module.schemas.data else 0,
        "static system block, tokens (server count, chars/4)": static_server,
        "static system block, tokens (cogtui estimate_tokens)": static_estimate,
        "per-run input outside the block, tokens": usages[0]["input_tokens"],
        "cache writes, tokens": written,
        "cache reads, tokens": read,
        "input tokens at full price without caching": without,
        "input tokens at full price with caching": uncached,
        "input tokens saved (read from cache)": read,
        "input cost with caching, % of without (write 1.25x, read 0.1x)": round(100 * with_cache / without, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--fields", type=int, default=60)
    args = parser.parse_args()
    report("caching (scripted)", asyncio.run(run_all(args.runs, args.fields)), machine())


if __name__ == "__main__":
    main()
