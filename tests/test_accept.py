"""Accepting a failing case's answer as its golden (core/authoring/golden_accept.py, `cogn test --accept`, the
screens' AcceptState): the diff first, an atomic write with a backup, undo while the file is as written, and the
refusals: an answer out of contract, a replay answer, a `$validate` or `$judge` golden."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document
from evalkit import answer, eval_module, responder
from judgekit import judged_module
from llmserver import ScriptedLLMServer
from rtkit import OPENAI_KEY, cli_env, cogn

from cogtui.core.authoring.accept_state import AcceptState
from cogtui.core.authoring.golden_accept import AcceptError, accept, plan_accept, undo
from cogtui.core.module.loader import load_module


def env_for(tmp_path: Path, srv: ScriptedLLMServer) -> dict[str, str]:
    return cli_env(tmp_path, OPENAI_BASE_URL=srv.openai_base_url, OPENAI_API_KEY=OPENAI_KEY)


def wrong(label: str = "feature") -> dict[str, object]:
    return json.loads(answer(label))


def test_cogn_test_accept_prints_the_diffs_then_writes_and_the_cases_pass(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    mods = tmp_path / "mods"
    folder = eval_module(mods, n=3)
    env = env_for(tmp_path, llm_server)
    llm_server.respond_with(responder(wrong=frozenset({0, 2}), prose=frozenset({1})))
    proc = cogn(tmp_path, "test", "ticket", "--provider", "openai", "--accept", env=env, path=mods)
    out = proc.stdout
    assert proc.returncode == 1, out  # case 1's answer is no JSON: refused, so not every failing case is accepted
    assert "--accept: 3 failing cases" in out
    assert out.index('+    "label": "feature"') < out.index("case-000.expected.json written")  # diffs first
    assert "ticket/case-001: not accepted: this run failed with E1000" in out
    assert "3 cases: 0 passed, 3 failed, 2 accepted" in out
    written = json.loads((folder / "tests" / "case-000.expected.json").read_text())
    assert written["data"]["label"] == "feature" and "trace_id" not in written["meta"]
    llm_server.respond_with(responder(wrong=frozenset({0, 2})))
    again = cogn(tmp_path, "test", "ticket", "--provider", "openai", "--json", env=env, path=mods)
    summary = document(again.stdout, "test")["summary"]
    assert again.returncode == 0 and summary["passed"] == 3  # the accepted answers are the goldens now


def test_accept_refuses_replay_answers_and_rules(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    mods = tmp_path / "mods"
    judged_module(mods, n=1)
    env = env_for(tmp_path, llm_server)
    llm_server.respond_with(responder(wrong=frozenset({0})))  # a mismatch: the rubric is not asked
    proc = cogn(tmp_path, "test", "ticket", "--provider", "openai", "--accept", "--json", env=env, path=mods)
    [case] = document(proc.stdout, "test")["modules"][0]["cases"]
    assert proc.returncode == 1 and case["accept"]["written"] is None
    assert "has a $judge rubric: it is judged by the rubric, not compared with an answer" in case["accept"]["refused"]
    module = load_module(eval_module(tmp_path / "other", n=1))
    plan = plan_accept(module, "case-000", wrong(), "replay", passed=False)
    assert plan.refusal is not None and "came from the replay provider" in plan.refusal
    contract = load_module(eval_module(tmp_path / "rule", n=1))
    expected = contract.tests[0].expected_path
    assert expected is not None
    expected.write_text(json.dumps({"$validate": {"ok": {"const": True}}}))
    plan = plan_accept(load_module(contract.path), "case-000", wrong(), "openai", passed=False)
    assert plan.refusal is not None and "is a rule ($validate" in plan.refusal
    broken = wrong()
    broken["data"] = {"label": 7}
    plan = plan_accept(module, "case-000", broken, "openai", passed=False)
    assert plan.refusal is not None and "breaks the module's contract" in plan.refusal


def test_accept_keeps_a_backup_and_undo_puts_it_back_unless_edited_since(tmp_path: Path) -> None:
    module = load_module(eval_module(tmp_path / "mods", n=1))
    path = module.tests[0].expected_path
    assert path is not None
    before = path.read_bytes()
    plan = plan_accept(module, "case-000", wrong(), "openai", passed=False)
    assert plan.refusal is None and '"label": "feature"' in plan.diff
    done = accept(plan, module.path, backups=tmp_path / "backups")
    assert path.read_bytes() == plan.after and done.backup.read_bytes() == before
    undo(done)
    assert path.read_bytes() == before
    done = accept(plan_accept(module, "case-000", wrong(), "openai", passed=False), module.path, tmp_path / "b")
    path.write_text(path.read_text() + " ")  # edited after it was accepted
    with pytest.raises(AcceptError, match="was edited after it was accepted"):
        undo(done)
    stale = plan_accept(load_module(module.path), "case-000", wrong("bug"), "openai", passed=False)
    path.write_text("{}")
    with pytest.raises(AcceptError, match="changed since the case ran"):
        accept(stale, module.path, tmp_path / "c")


def test_the_accept_state_proposes_writes_and_undoes(tmp_path: Path) -> None:
    module = load_module(eval_module(tmp_path / "mods", n=1))
    state = AcceptState()
    refused = plan_accept(module, "case-000", wrong(), "replay", passed=False)
    assert state.propose(refused) is False and state.failed and "replay provider" in state.message
    plan = plan_accept(module, "case-000", wrong(), "openai", passed=False)
    assert state.propose(plan) is True and state.proposed is plan and not state.can_undo()
    assert state.confirm() is plan and state.confirm() is None  # once
    done = accept(plan, module.path, tmp_path / "backups")
    state.written(done)
    assert state.can_undo() and state.is_accepted("ticket", "case-000") and "u undoes" in state.message
    assert state.to_undo() is done
    state.undone(done)
    assert not state.can_undo() and not state.is_accepted("ticket", "case-000")
    state.propose(plan)
    state.rerun()
    assert state.proposed is None
