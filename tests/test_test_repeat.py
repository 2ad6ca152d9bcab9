"""`cogn test --repeat N` through the real OpenAI SDK against the scripted server: each case runs N times, passes
only when every sample does, and says its pass rate and its judge score's mean and spread, in text and in the
versioned `--json` document, folded as `cogn eval --repeat` folds a cell (core/eval/samples.py, GOLD-12)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document
from evalkit import answer, eval_module
from judgekit import judge_answer, judge_requests, judged_module, routed
from llmserver import RecordedRequest, ScriptedLLMServer, Text
from rtkit import cogn, server_env

JUDGED = ("--provider", "openai", "--judge-provider", "openai")


def in_turn(*replies: str) -> Any:
    """A responder giving each reply in turn, one request at a time (-j 1 keeps the order the samples')."""
    given = iter(replies)
    lock = threading.Lock()

    def respond(_req: RecordedRequest) -> Text:
        with lock:
            return Text(next(given), chunk_size=64)

    return respond


def cogn_test(tmp_path: Path, srv: ScriptedLLMServer, *args: str) -> Any:
    return cogn(tmp_path, "test", "ticket", *args, env=server_env(tmp_path, srv), path=tmp_path / "mods")


def test_varying_scores_fold_into_a_pass_rate_a_mean_and_a_spread(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    judged_module(tmp_path / "mods", n=1)
    llm_server.respond_with(routed(in_turn(judge_answer(0.9), judge_answer(0.5), judge_answer(0.8))))
    proc = cogn_test(tmp_path, llm_server, *JUDGED, "--repeat", "3", "-j", "1", "--json")
    doc = document(proc.stdout, "test")
    [entry] = doc["modules"]
    [case] = entry["cases"]
    assert proc.returncode == 1, proc.stderr
    assert (case["samples"], case["samples_passed"], case["pass_rate"], case["passed"]) == (3, 2, 2 / 3, False)
    judge = case["judge"]
    assert judge["scores"] == [0.9, 0.5, 0.8] and judge["score"] == 0.7333 and judge["spread"] == 0.17
    assert judge["verdict"] == "fail" and judge["code"] == "low-score"  # the failing sample speaks for the case
    summary = doc["summary"]
    assert (summary["repeat"], summary["cases"], summary["passed"], summary["failed"]) == (3, 1, 0, 1)
    assert len(judge_requests(llm_server.requests)) == 3 and len(llm_server.requests) == 6


def test_the_text_says_the_samples_and_the_score_spread(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    judged_module(tmp_path / "mods", n=1)
    llm_server.respond_with(routed(in_turn(judge_answer(0.9), judge_answer(0.8), judge_answer(0.7))))
    proc = cogn_test(tmp_path, llm_server, *JUDGED, "--repeat", "3", "-j", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "ticket/case-000" in x)
    assert line.startswith("✓ pass") and "3/3 samples passed (100%)" in line
    assert "judge 0.80 ± 0.08 over 3 (pass ≥ 0.70)" in line, line
    assert "1 case: 1 passed, 0 failed" in proc.stdout


def test_one_failing_answer_in_three_fails_the_case_and_is_the_one_shown(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    """No judge: the contract decides each sample; the case shows the failing sample's reasons and diff."""
    eval_module(tmp_path / "mods", n=1)
    llm_server.respond_with(in_turn(answer("bug"), answer("feature"), answer("bug")))
    proc = cogn_test(tmp_path, llm_server, "--provider", "openai", "--repeat", "3", "-j", "1", "--json")
    [case] = document(proc.stdout, "test")["modules"][0]["cases"]
    assert proc.returncode == 1 and (case["samples"], case["samples_passed"]) == (3, 2), proc.stderr
    assert case["envelope"]["data"]["label"] == "feature" and "feature" in case["diff"]
    assert case["judge"] is None
    llm_server.respond_with(in_turn(answer("bug"), answer("feature")))
    text = cogn_test(tmp_path, llm_server, "--provider", "openai", "--repeat", "2", "-j", "1")
    assert "✗ FAIL  ticket/case-000  1/2 samples passed (50%)" in text.stdout, text.stdout


def test_without_repeat_a_case_is_one_sample(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    eval_module(tmp_path / "mods", n=2)
    llm_server.respond_with(in_turn(answer("bug"), answer("bug")))
    proc = cogn_test(tmp_path, llm_server, "--provider", "openai", "--json")
    doc = document(proc.stdout, "test")
    assert proc.returncode == 0 and doc["summary"]["repeat"] == 1
    assert [(c["samples"], c["samples_passed"], c["pass_rate"]) for c in doc["modules"][0]["cases"]] == [
        (1, 1, 1.0)
    ] * 2
    assert len(llm_server.requests) == 2


def test_repeat_is_refused_below_one_and_with_accept(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    eval_module(tmp_path / "mods", n=1)
    zero = cogn_test(tmp_path, llm_server, "--repeat", "0")
    assert zero.returncode == 2 and "--repeat must be at least 1" in zero.stderr
    both = cogn_test(tmp_path, llm_server, "--provider", "openai", "--repeat", "2", "--accept")
    assert both.returncode == 2 and "accept without --repeat" in both.stderr
    assert llm_server.requests == []  # refused before any model call
