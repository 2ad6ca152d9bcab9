"""`cogn eval` and `cogn test -j` as real processes: the matrix, --json/--junit files, baselines by file and by
id (exit 1 only on a regression), target pairs, usage errors; `cogn test -j` prints in case order; both run
four cases at once by default."""

from __future__ import annotations

import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document
from evalkit import eval_module, responder
from llmserver import ScriptedLLMServer
from rtkit import cogn, server_env


def env_for(tmp_path: Path, srv: ScriptedLLMServer) -> dict[str, str]:
    return server_env(tmp_path, srv)


def test_replay_eval_writes_json_and_junit_and_records_it(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "eval", "code-reviewer", "-o", "out/eval.json", "--junit", "out/junit.xml")
    assert proc.returncode == 0, proc.stderr
    assert "code-reviewer/case1" in proc.stdout and "✓ pass" in proc.stdout and "3/3 passed" in proc.stdout
    assert "eval 1 recorded" in proc.stdout
    doc = document((tmp_path / "out" / "eval.json").read_text(), "eval")
    assert doc["summary"]["id"] == 1 and doc["summary"]["targets"] == ["replay"]
    assert [c["case"] for c in doc["items"]] == ["case1", "case2", "case3"]
    assert all(isinstance(c["run_id"], int) for c in doc["items"])
    suites = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert suites.tag == "testsuites" and suites.get("tests") == "3" and suites.get("failures") == "0"
    assert [c.get("name") for c in suites.iter("testcase")] == ["case1", "case2", "case3"]


def test_json_to_stdout_and_target_pairs(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    eval_module(tmp_path / "mods", n=2)
    llm_server.respond_with(responder())
    args = ("eval", "ticket", "--provider", "openai", "--model", "m-one", "--provider", "anthropic", "--json")
    proc = cogn(tmp_path, *args, "--no-history", env=env_for(tmp_path, llm_server), path=tmp_path / "mods")
    assert proc.returncode == 0, proc.stderr
    doc = document(proc.stdout, "eval")
    assert doc["summary"]["targets"] == ["openai/m-one", "anthropic/claude-sonnet-5-5"] and doc["summary"]["id"] is None
    assert sorted(str(r.model) for r in llm_server.requests) == ["claude-sonnet-5-5"] * 2 + ["m-one"] * 2
    by_target = {s["target"]: s["passed"] for s in doc["summary"]["by_target"]}
    assert by_target == {"openai/m-one": 2, "anthropic/claude-sonnet-5-5": 2}


def test_baseline_by_file_and_by_id_fails_only_on_regression(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    mods = tmp_path / "mods"
    eval_module(mods, n=4)
    env = env_for(tmp_path, llm_server)
    llm_server.respond_with(responder(wrong=frozenset({3})))  # case 3 fails from the start
    first = cogn(tmp_path, "eval", "ticket", "--provider", "openai", "-o", "base.json", env=env, path=mods)
    assert first.returncode == 1  # without a baseline, any failing cell fails the command
    llm_server.respond_with(responder(wrong=frozenset({3})))
    same = cogn(tmp_path, "eval", "ticket", "--provider", "openai", "--baseline", "base.json", env=env, path=mods)
    assert same.returncode == 0, same.stdout  # the same known failure is no regression
    assert "0 regressed" in same.stdout
    llm_server.respond_with(responder(wrong=frozenset({0})))  # case 0 breaks, case 3 is fixed
    worse = cogn(
        tmp_path, "eval", "ticket", "--provider", "openai", "--baseline", "1", "--junit", "j.xml", env=env, path=mods
    )
    assert worse.returncode == 1
    assert "1 regressed" in worse.stdout and "1 improved" in worse.stdout and "↓regressed" in worse.stdout
    assert "case-000 on openai/gpt-4o-mini: pass → mismatch" in worse.stdout
    failure = next(c for c in ET.parse(tmp_path / "j.xml").getroot().iter("testcase") if c.get("name") == "case-000")
    found = failure.find("failure")
    assert found is not None and "regression" in (found.text or "")


def test_a_baseline_by_id_is_read_with_no_history_and_new_failing_cells_fail(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    """--no-history records nothing but still reads the baseline by id; a case the baseline does not have that
    fails now is no known failure: exit 1 (EVAL-3). A baseline sharing no cell is said."""
    mods = tmp_path / "mods"
    eval_module(mods, n=2)
    env = env_for(tmp_path, llm_server)
    llm_server.respond_with(responder())
    assert cogn(tmp_path, "eval", "ticket", "--provider", "openai", env=env, path=mods).returncode == 0  # eval 1
    eval_module(mods, n=3)  # a third case, added since
    llm_server.respond_with(responder(wrong=frozenset({2})))
    args = ("eval", "ticket", "--provider", "openai", "--no-history", "--baseline", "1")
    grown = cogn(tmp_path, *args, env=env, path=mods)
    assert grown.returncode == 1, grown.stderr
    assert "0 regressed, 0 improved, 1 new (1 failing)" in grown.stdout
    assert "✗ ticket/case-002 on openai/gpt-4o-mini: new, mismatch" in grown.stdout
    other = cogn(tmp_path, "eval", "code-reviewer", "--no-history", "--baseline", "1", env=env)
    assert other.returncode == 0, other.stderr
    assert "the baseline shares no cell with this eval: is eval 1 of other modules, cases or targets?" in other.stdout


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert cogn(tmp_path, "eval").returncode == 2
    assert cogn(tmp_path, "eval", "no-such-module").returncode == 2
    assert cogn(tmp_path, "eval", "code-reviewer", "-j", "0").returncode == 2
    missing = cogn(tmp_path, "eval", "code-reviewer", "--baseline", "nope.json")
    assert missing.returncode == 2 and "cannot read baseline nope.json" in missing.stderr
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    bad = cogn(tmp_path, "eval", "code-reviewer", "--baseline", "bad.json")
    assert bad.returncode == 2 and "not a cogtui eval report" in bad.stderr
    unknown_id = cogn(tmp_path, "eval", "code-reviewer", "--baseline", "42")
    assert unknown_id.returncode == 2 and "no eval 42" in unknown_id.stderr


def test_cogn_test_jobs_prints_in_case_order(tmp_path: Path) -> None:
    one = cogn(tmp_path, "test", "--all", "-j", "1")
    many = cogn(tmp_path, "test", "--all", "-j", "6")
    assert one.returncode == many.returncode == 0
    assert one.stdout == many.stdout and "14 cases: 14 passed" in many.stdout
    assert cogn(tmp_path, "test", "--all", "-j", "0").returncode == 2


def test_cogn_test_jobs_bounds_model_calls(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    eval_module(tmp_path / "mods", n=6)
    llm_server.respond_with(responder(delay=0.2))
    env = env_for(tmp_path, llm_server)
    proc = cogn(tmp_path, "test", "ticket", "--provider", "openai", "-j", "2", env=env, path=tmp_path / "mods")
    assert proc.returncode == 0, proc.stdout
    assert llm_server.request_count == 6 and 1 <= llm_server.max_in_flight <= 2
    assert [line.split("/")[-1] for line in proc.stdout.splitlines() if "pass" in line and "/" in line] == [
        f"case-{k:03d}" for k in range(6)
    ]


def gathering(n: int) -> Any:
    """A responder that holds each of the first `n` calls until all `n` have arrived (then answers every call)."""
    arrived = threading.Condition()
    count = [0]
    answer = responder()

    def respond(req: Any) -> Any:
        with arrived:
            count[0] += 1
            arrived.notify_all()
            arrived.wait_for(lambda: count[0] >= n, timeout=10)
        return answer(req)

    return respond


@pytest.mark.parametrize("command", ["test", "eval"])
def test_test_and_eval_run_four_cases_at_once_by_default(
    tmp_path: Path, llm_server: ScriptedLLMServer, command: str
) -> None:
    eval_module(tmp_path / "mods", n=8)
    llm_server.respond_with(gathering(4))
    env = env_for(tmp_path, llm_server)
    proc = cogn(tmp_path, command, "ticket", "--provider", "openai", env=env, path=tmp_path / "mods")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert llm_server.request_count == 8 and llm_server.max_in_flight == 4


def test_a_model_the_provider_ignores_or_a_target_twice_is_said(tmp_path: Path) -> None:
    """Both ran as one replay target with nothing said: a CI line that looks like a model comparison but is not."""
    proc = cogn(
        tmp_path, "eval", "code-reviewer", "--provider", "replay", "--model", "a", "--model", "b", "--no-history"
    )
    assert proc.returncode == 0, proc.stderr
    assert "note: replay does not use a model name: replay/a runs as replay\n" in proc.stderr
    assert "note: replay does not use a model name: replay/b runs as replay (already listed)" in proc.stderr
    proc = cogn(tmp_path, "eval", "code-reviewer", "--model", "foo", "--no-history")  # the default provider: replay
    assert "note: replay does not use a model name: replay/foo runs as replay" in proc.stderr
    proc = cogn(tmp_path, "eval", "code-reviewer", "--provider", "replay", "--provider", "replay", "--no-history")
    assert "note: replay is already listed" in proc.stderr


def test_a_history_cogtui_cannot_use_is_refused_before_any_call(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    """A URL cogtui does not read: nothing could be kept for it, so the eval does not start (as `cogn run`, HIST-8)."""
    eval_module(tmp_path / "mods", n=1)
    env = {**server_env(tmp_path, llm_server), "COGTUI_HISTORY_URL": "postgresql://u@[bad"}
    proc = cogn(tmp_path, "eval", "ticket", "--provider", "openai", env=env, path=tmp_path / "mods")
    assert proc.returncode == 2 and "--no-history runs the eval without recording it" in proc.stderr, proc.stderr
    assert llm_server.requests == []
    allowed = cogn(tmp_path, "eval", "ticket", "--no-history", env=env, path=tmp_path / "mods")
    assert allowed.returncode == 0, allowed.stderr
