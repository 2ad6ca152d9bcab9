"""Rubric judges (`$judge` goldens, core/run/judge.py) through the real SDKs against the scripted server: the score
decides the case, a judge out of contract or silent fails it with its E-code, no judge target is said, judge calls
overlap the next cases' calls, `--repeat` folds varying scores, a score drop against a baseline fails, the response
cache and the history cover the judge's calls, and `--json`/JUnit carry its words."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document
from evalkit import case_of
from judgekit import RUBRIC, judge_answer, judge_requests, judged_module, routed, scores
from llmserver import RecordedRequest, ScriptedLLMServer, Text, silence_after_headers
from rtkit import FAST_RETRY, cogn, server_env

from cogtui.core.eval.engine import EvalSettings, run_eval
from cogtui.core.eval.model import Target
from cogtui.core.module.loader import load_module
from cogtui.core.rules.judge_spec import judge_spec, without_judge
from cogtui.core.run.judge import judge_input, judge_module
from cogtui.core.run.providers.openai.provider import OpenAIProvider
from cogtui.core.run.runner import RunOptions


def env_for(tmp_path: Path, srv: ScriptedLLMServer) -> dict[str, str]:
    return server_env(tmp_path, srv)


def eval_json(tmp_path: Path, srv: ScriptedLLMServer, *args: str) -> tuple[int, dict[str, Any], str]:
    proc = cogn(tmp_path, "eval", "ticket", "--json", *args, env=env_for(tmp_path, srv), path=tmp_path / "mods")
    return proc.returncode, document(proc.stdout, "eval"), proc.stderr


# ---------------------------------------------------------------- the rubric itself


def test_a_judge_spec_is_read_and_kept_out_of_the_contract_checks() -> None:
    expected = {"ok": True, "data": {"rationale": "r"}, "$judge": {"rubric": " Names it. ", "pass_score": 0.8}}
    spec, problem = judge_spec(expected)
    assert spec is not None and (spec.rubric, spec.pass_score, problem) == ("Names it.", 0.8, "")
    assert without_judge(expected) == {"ok": True, "data": {"rationale": "r"}}
    assert judge_spec({"ok": True}) == (None, "")
    _, problem = judge_spec({"$judge": {"rubric": "", "pass_score": True}})
    assert "rubric must be the rubric" in problem and "pass_score must be a number from 0 to 1" in problem


def test_the_judge_reads_no_runtime_meta_and_is_a_valid_module() -> None:
    """The runtime's meta (trace_id, latency) would make every judge request unique to the response cache."""
    spec, _ = judge_spec({"$judge": {"rubric": RUBRIC}})
    assert spec is not None
    envelope = {"ok": True, "meta": {"confidence": 0.9, "trace_id": "abc", "latency_ms": 3.0}, "data": {}}
    doc = judge_input(spec, "ticket", envelope, {"text": "x"})
    assert doc["candidate"]["meta"] == {"confidence": 0.9} and doc["pass_score"] == 0.7
    from cogtui.core.rules.validate_module import validate_module

    assert validate_module(judge_module(), v22=True, strict=True) == []


# ---------------------------------------------------------------- the score decides


def test_the_score_decides_and_json_junit_and_history_carry_the_judge(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    """The module on OpenAI (httpx), the judge on Anthropic (its SDK): case 1 scores below the bar."""
    judged_module(tmp_path / "mods", n=2)
    llm_server.respond_with(routed(scores({0: 0.9, 1: 0.4})))
    code, doc, stderr = eval_json(
        tmp_path, llm_server, "--provider", "openai", "--judge-provider", "anthropic", "--junit", "j.xml"
    )
    assert code == 1, stderr
    first, second = doc["items"]
    assert first["passed"] is True and first["judge"]["score"] == 0.9 and first["judge"]["verdict"] == "pass"
    assert second["passed"] is False and second["code"] == "low-score"
    assert second["judge"]["rationale"] == "It names the bug." and second["judge"]["evidence"] == ["bug"]
    assert any("below the rubric's bar: score 0.40 < pass_score 0.70" in r for r in second["reasons"])
    assert doc["summary"]["judge"] == "anthropic/claude-sonnet-5-5"
    [summary] = doc["summary"]["by_target"]
    assert summary["score_mean"] == 0.65 and summary["judged"] == 2 and summary["judge_cost_usd"] > 0
    judge_calls = judge_requests(llm_server.requests)
    assert [r.path for r in judge_calls] == ["/v1/messages"] * 2  # the judge went through the Anthropic SDK
    assert RUBRIC in judge_calls[0].raw_body.decode()
    case = next(c for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase") if c.get("name") == "case-001")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["judge.score"] == "0.4" and props["judge.verdict"] == "fail" and props["judge.pass_score"] == "0.7"
    assert "It names the bug." in (case.findtext("system-out") or "")
    # Each judge's run is in the history as a run of cogtui-judge, with its own id and cost.
    history = cogn(tmp_path, "history", "cogtui-judge", "--json", env=env_for(tmp_path, llm_server))
    runs = document(history.stdout, "history")["items"]
    assert len(runs) == 2 and {r["id"] for r in runs} == {first["judge"]["run_id"], second["judge"]["run_id"]}
    assert first["judge"]["cost_usd"] > 0 and first["judge"]["run_id"] != first["run_id"]


def test_a_judge_out_of_contract_fails_the_case_with_its_code(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    judged_module(tmp_path / "mods", n=1)
    bad = json.loads(judge_answer(0.9))
    bad["data"]["score"] = 7  # over the judge's maximum of 1
    llm_server.respond_with(routed(lambda req: Text(json.dumps(bad), chunk_size=64)))
    code, doc, _ = eval_json(tmp_path, llm_server, "--provider", "openai", "--judge-provider", "openai", "--no-history")
    [cell] = doc["items"]
    assert code == 1 and cell["passed"] is False and cell["code"] == "judge:E3001"
    assert cell["judge"]["status"] == "failed" and cell["judge"]["score"] is None
    assert any(r.startswith("the judge could not score the answer: E3001") for r in cell["reasons"])


def test_a_judge_that_times_out_fails_the_case_not_the_eval(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(judged_module(tmp_path / "mods", n=1))
    llm_server.respond_with(routed(lambda req: silence_after_headers(3.0)))
    target = OpenAIProvider(model="m", base_url=llm_server.openai_base_url)
    judge = OpenAIProvider(model="judge-m", base_url=llm_server.openai_base_url)

    def options(provider: Any) -> RunOptions:
        return RunOptions(provider, stream_timeout=0.3, retry=FAST_RETRY)

    settings = EvalSettings(jobs=2, options=options, judge=judge)

    async def go() -> Any:
        try:
            return await run_eval([module], [(Target("openai", "m"), target)], settings)
        finally:
            await target.aclose()
            await judge.aclose()

    [cell] = asyncio.run(go()).report.cells
    assert cell.passed is False and cell.code == "judge:E2011" and cell.judge is not None
    assert "the judge could not score the answer: E2011" in cell.reasons[-1]


def test_no_judge_target_is_said_and_a_replay_answer_is_not_judged(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    judged_module(tmp_path / "mods", n=1)
    llm_server.respond_with(routed(scores({0: 1.0})))
    env = env_for(tmp_path, llm_server)
    proc = cogn(tmp_path, "test", "ticket", "--provider", "openai", env=env, path=tmp_path / "mods")
    assert proc.returncode == 1 and judge_requests(llm_server.requests) == []
    assert "no judge target is set: pass --judge-provider P [--judge-model M], or set `judge:" in proc.stdout
    replayed = cogn(tmp_path, "test", "ticket", "--json", env=env, path=tmp_path / "mods")
    [case] = document(replayed.stdout, "test")["modules"][0]["cases"]
    assert replayed.returncode == 0 and case["judge"]["status"] == "not judged"
    # judge: in config.yaml is the judge's target when no flag names one
    (tmp_path / "config.yaml").write_text("judge: {provider: openai, model: judge-model}\n")
    configured = cogn(tmp_path, "test", "ticket", "--provider", "openai", env=env, path=tmp_path / "mods")
    assert configured.returncode == 0, configured.stdout
    assert "judge 1.00 (pass ≥ 0.70)" in configured.stdout
    assert [r.model for r in judge_requests(llm_server.requests)] == ["judge-model"]


# ---------------------------------------------------------------- concurrency, samples, baselines, the cache


def test_judge_calls_overlap_the_next_cases_calls(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    """-j 1: case 1's model call is held until case 0's judge call has arrived. Had the judge waited for a slot
    of the targets' (taken by case 1's call), it would never arrive and case 1's hold would time out. (The judge's
    request may come before case 1's or after it: either way it does not wait for case 1's slot.)"""
    module = load_module(judged_module(tmp_path / "mods", n=2))
    judged = threading.Event()
    waited: list[bool] = []

    def judge(req: RecordedRequest) -> Any:
        judged.set()
        return Text(judge_answer(0.9), chunk_size=64)

    def answer(req: RecordedRequest) -> Any:
        if case_of(req) == 1:
            waited.append(judged.wait(timeout=10))
        from evalkit import answer as golden

        return Text(golden("bug"), chunk_size=64)

    llm_server.respond_with(routed(judge, answer))
    target = OpenAIProvider(model="m", base_url=llm_server.openai_base_url)
    judge_provider = OpenAIProvider(model="judge-m", base_url=llm_server.openai_base_url)

    async def go() -> Any:
        try:
            settings = EvalSettings(jobs=1, judge=judge_provider)
            return await run_eval([module], [(Target("openai", "m"), target)], settings)
        finally:
            await target.aclose()
            await judge_provider.aclose()

    report = asyncio.run(go()).report
    assert waited == [True]
    assert [c.passed for c in report.cells] == [True, True]


def test_repeat_folds_varying_scores_into_a_pass_rate_a_mean_and_a_spread(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    judged_module(tmp_path / "mods", n=1)
    given = iter([0.9, 0.5, 0.8])
    lock = threading.Lock()

    def judge(req: RecordedRequest) -> Any:
        with lock:
            return Text(judge_answer(next(given)), chunk_size=64)

    llm_server.respond_with(routed(judge))
    code, doc, _ = eval_json(
        tmp_path, llm_server, "--provider", "openai", "--judge-provider", "openai", "--repeat", "3", "-j", "1"
    )
    [cell] = doc["items"]
    assert code == 1 and doc["summary"]["repeat"] == 3
    assert (cell["samples"], cell["samples_passed"], cell["passed"]) == (3, 2, False)
    assert sorted(cell["judge"]["scores"]) == [0.5, 0.8, 0.9] and cell["judge"]["score"] == 0.7333
    assert cell["judge"]["spread"] == 0.17 and cell["code"] == "low-score"
    from cogtui.core.eval.eval_state import cell_label
    from cogtui.core.eval.model import Cell

    assert cell_label(Cell.from_json(cell)) == "✗ 2/3 low-score · 0.73±0.17"


def test_a_score_drop_against_the_baseline_fails_past_the_threshold(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    judged_module(tmp_path / "mods", n=1)
    env = env_for(tmp_path, llm_server)
    args = ("eval", "ticket", "--provider", "openai", "--judge-provider", "openai")
    llm_server.respond_with(routed(scores({0: 0.95})))
    assert cogn(tmp_path, *args, "-o", "base.json", env=env, path=tmp_path / "mods").returncode == 0
    llm_server.respond_with(routed(scores({0: 0.75})))  # still passing, 0.2 lower
    dropped = cogn(tmp_path, *args, "--baseline", "base.json", env=env, path=tmp_path / "mods")
    assert dropped.returncode == 1, dropped.stdout
    assert "1 score drop" in dropped.stdout and "judge score 0.95 → 0.75" in dropped.stdout
    assert "✓ pass · 0.75 ↓score" in dropped.stdout
    tolerant = cogn(
        tmp_path, *args, "--baseline", "base.json", "--max-score-drop", "0.25", env=env, path=tmp_path / "mods"
    )
    assert tolerant.returncode == 0, tolerant.stdout


def test_the_judges_answers_come_from_the_response_cache(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    judged_module(tmp_path / "mods", n=1)
    llm_server.respond_with(routed(scores({0: 0.9})))
    args = ("--provider", "openai", "--judge-provider", "openai", "--cache=any")
    code, first, _ = eval_json(tmp_path, llm_server, *args)
    assert code == 0 and first["items"][0]["judge"]["cached"] is False
    calls = llm_server.request_count
    code, again, _ = eval_json(tmp_path, llm_server, *args)
    [cell] = again["items"]
    assert code == 0 and llm_server.request_count == calls  # neither the module nor the judge was called
    assert cell["cached"] is True and cell["judge"]["cached"] is True and cell["judge"]["score"] == 0.9
