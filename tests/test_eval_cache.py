"""The opt-in response cache (EVAL-4): a hit makes no model call and says so in the run's record; a changed
module or input misses; non-deterministic targets are reused only with --cache=any."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from evalkit import eval_module, responder
from llmserver import ScriptedLLMServer
from rtkit import FAST_RETRY, provider, replay, set_keys

from cogtui.core.eval.engine import EvalSettings, run_eval
from cogtui.core.eval.model import Target
from cogtui.core.history.store import History
from cogtui.core.module.loader import load_module
from cogtui.core.run.runner import RunOptions


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def options(prov: Any) -> RunOptions:
    return RunOptions(prov, retry=FAST_RETRY, stream_timeout=10.0)


async def evaluate(
    module: Any, prov: Any, history: History | None, cache: str, started: list[str] | None = None
) -> Any:
    def on_start(_module: str, case: str, _target: str) -> None:
        if started is not None:
            started.append(case)

    target = [(Target(prov.name, prov.model), prov)]
    return await run_eval([module], target, EvalSettings(options=options, cache=cache), history, None, on_start)


async def test_cache_any_reuses_answers_without_model_calls(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(eval_module(tmp_path, n=3))
    llm_server.respond_with(responder())
    started: list[str] = []
    with History(tmp_path / "h.sqlite3") as history:
        first = await evaluate(module, provider("openai", llm_server), history, "any", started)
        assert llm_server.request_count == 3 and not any(c.cached for c in first.report.cells)
        assert sorted(started) == sorted(c.case for c in first.report.cells)  # each cell's call went out
        second = await evaluate(module, provider("openai", llm_server), history, "any", started)
        assert llm_server.request_count == 3  # no model call at all
        assert len(started) == 3  # and no cell said it started one
        assert all(c.cached and c.passed for c in second.report.cells)
        assert second.report.summaries[0].cached == 3 and second.report.summaries[0].tokens["input"] == 0
        for old, new in zip(first.report.cells, second.report.cells, strict=True):
            run = history.get(new.run_id or 0)
            assert run is not None and run.usage is not None
            assert run.usage["cached_response_of"] == old.run_id  # the run record names the run that paid
            assert any("response cache" in w for w in run.envelope["meta"]["warnings"])
            paid = history.get(old.run_id or 0)
            assert paid is not None and run.envelope["data"] == paid.envelope["data"]


async def test_default_cache_skips_non_deterministic_targets(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(eval_module(tmp_path, n=2))
    llm_server.respond_with(responder())
    with History(tmp_path / "h.sqlite3") as history:
        await evaluate(module, provider("openai", llm_server), history, "any")
        outcome = await evaluate(module, provider("openai", llm_server), history, "deterministic")
    assert llm_server.request_count == 4  # asked again: the provider samples at its default temperature
    assert not any(c.cached for c in outcome.report.cells)
    assert any("not deterministic" in n and "--cache=any" in n for n in outcome.notes)


async def test_deterministic_replay_is_cached_by_default(tmp_path: Path) -> None:
    module = load_module(eval_module(tmp_path, n=2))
    with History(tmp_path / "h.sqlite3") as history:
        await evaluate(module, replay(), history, "deterministic")
        outcome = await evaluate(module, replay(), history, "deterministic")
    assert all(c.cached and c.passed for c in outcome.report.cells) and outcome.notes == []


async def test_a_changed_prompt_misses_and_no_cache_never_reads(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    folder = eval_module(tmp_path, n=2)
    llm_server.respond_with(responder())
    with History(tmp_path / "h.sqlite3") as history:
        await evaluate(load_module(folder), provider("openai", llm_server), history, "any")
        await evaluate(load_module(folder), provider("openai", llm_server), history, "off")
        assert llm_server.request_count == 4  # never on by default
        (folder / "prompt.md").write_text((folder / "prompt.md").read_text() + "\nBe brief.\n")
        outcome = await evaluate(load_module(folder), provider("openai", llm_server), history, "any")
    assert llm_server.request_count == 6 and not any(c.cached for c in outcome.report.cells)


async def test_without_history_the_cache_is_off_with_a_note(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(eval_module(tmp_path, n=1))
    llm_server.respond_with(responder())
    outcome = await evaluate(module, provider("openai", llm_server), None, "any")
    assert any("--no-history" in n for n in outcome.notes)
