"""Prompt caching (issue 14 item 4): the static system block is marked cacheable; cache tokens are recorded.

Through the real anthropic SDK and httpx against tests/llmserver.py, whose PromptCache reports cache
reads and writes the way each API does (Anthropic: cache_creation/cache_read_input_tokens outside
input_tokens; OpenAI: prompt_tokens_details.cached_tokens inside prompt_tokens).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from bigschema import large_schema_module
from rtkit import example, golden, model_answer, options, provider, set_keys, system_text, user_text

from cogtui.core.history.run_record import to_record
from cogtui.core.history.store import History
from cogtui.core.module.loader import load_module
from cogtui.core.run.prompt import estimate_tokens, system_prompt
from cogtui.core.run.providers.base import Usage
from cogtui.core.run.runner import run_module

REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
USAGE_KEYS = {"input_tokens", "output_tokens", "total_tokens", "cache_read_tokens", "cache_write_tokens"}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, llm_server: Any) -> None:
    set_keys(monkeypatch)
    llm_server.prompt_cache.enable()


async def run_twice(srv: Any, module: Any, proto: str) -> list[Any]:
    results = []
    for _ in range(2):
        srv.enqueue(json.dumps(model_answer(REVIEW_OUT)))
        results.append(await run_module(module, REVIEW_IN, options(provider(proto, srv))))
    return results


async def test_anthropic_system_block_is_cacheable_and_cache_tokens_are_recorded(
    tmp_path: Path, llm_server: Any
) -> None:
    module = load_module(large_schema_module(tmp_path / "big-reviewer"))
    first, second = await run_twice(llm_server, module, "anthropic")
    calls = llm_server.calls("anthropic")
    assert len(calls) == 2 and first.ok and second.ok
    blocks = calls[0].system_blocks
    # One system block, first in the request, holding the static prompt only, marked for the cache.
    assert len(blocks) == 1 and blocks[0]["cache_control"] == {"type": "ephemeral"}
    assert blocks[0]["text"] == system_prompt(module) and calls[1].system_blocks == blocks
    assert "checklist_059" in blocks[0]["text"] and "## Input" not in blocks[0]["text"]
    assert "## Input" in user_text(calls[0])
    static = len(blocks[0]["text"]) // 4  # the server's count of the cacheable prefix
    assert static >= 1024 and calls[0].prompt_cache == (0, static) and calls[1].prompt_cache == (static, 0)
    assert first.usage is not None and second.usage is not None
    assert set(first.usage) == USAGE_KEYS
    assert (first.usage["cache_write_tokens"], first.usage["cache_read_tokens"]) == (static, 0)
    assert (second.usage["cache_write_tokens"], second.usage["cache_read_tokens"]) == (0, static)
    # input_tokens stay the uncached input, as Anthropic reports it; the total counts every token.
    assert second.usage["input_tokens"] == first.usage["input_tokens"] > 0
    assert second.usage["total_tokens"] == static + second.usage["input_tokens"] + second.usage["output_tokens"]


async def test_a_small_system_prompt_is_marked_but_not_cached(llm_server: Any) -> None:
    module = example("legacy-summarizer")
    for _ in range(2):
        llm_server.enqueue(json.dumps({"summary": "s", "rationale": "r", "confidence": 0.9}))
        result = await run_module(
            module, {"text": "hello", "audience": "devs"}, options(provider("anthropic", llm_server))
        )
    assert all(c.system_blocks[0]["cache_control"] == {"type": "ephemeral"} for c in llm_server.calls())
    assert estimate_tokens(system_text(llm_server.calls()[0])) < 1024  # under Anthropic's minimum
    assert result.usage is not None
    assert result.usage["cache_read_tokens"] == result.usage["cache_write_tokens"] == 0


async def test_openai_cached_prompt_tokens_are_cache_reads_not_input(tmp_path: Path, llm_server: Any) -> None:
    module = load_module(large_schema_module(tmp_path / "big-reviewer"))
    first, second = await run_twice(llm_server, module, "openai")
    calls = llm_server.calls("openai")
    static = len(system_text(calls[0])) // 4
    assert calls[0].prompt_cache == (0, 0) and calls[1].prompt_cache == (static, 0)
    assert first.usage["cache_read_tokens"] == 0 and second.usage["cache_read_tokens"] == static
    # OpenAI's prompt_tokens include the cached ones: they are counted once, as cache reads.
    assert second.usage["input_tokens"] == first.usage["input_tokens"] - static
    assert second.usage["total_tokens"] == first.usage["total_tokens"]


async def test_cache_tokens_reach_the_final_chunk_and_history(tmp_path: Path, llm_server: Any) -> None:
    module = load_module(large_schema_module(tmp_path / "big-reviewer"))
    await run_twice(llm_server, module, "anthropic")
    chunks: list[dict[str, Any]] = []
    llm_server.enqueue(json.dumps(model_answer(REVIEW_OUT)))
    opts = options(provider("anthropic", llm_server))
    result = await run_module(module, REVIEW_IN, opts, on_event=lambda ev: chunks.append(ev.chunk))
    final = next(c for c in chunks if c.get("final"))
    usage = result.usage
    assert usage is not None and final["usage"] == usage and usage["cache_read_tokens"] > 0
    with History(tmp_path / "history.db") as history:
        run_id = history.record(to_record(module, REVIEW_IN, None, result))
        stored = history.get(run_id)
    assert stored is not None and stored.usage == result.usage


def test_usage_sums_every_count_and_keeps_the_old_keys() -> None:
    a = Usage(10, 5, cache_read_tokens=100, cache_write_tokens=7)
    b = Usage(1, 2, cache_read_tokens=3)
    assert (a + b).to_json() == {
        "input_tokens": 11,
        "output_tokens": 7,
        "total_tokens": 11 + 7 + 103 + 7,
        "cache_read_tokens": 103,
        "cache_write_tokens": 7,
    }
