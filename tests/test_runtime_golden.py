"""Golden tests at the contract level (docs/golden-tests.md): `golden.compare` and `cogn test`."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from rtkit import MODULES, OPENAI_KEY, cli_env, cogn, copy_module, example, golden, model_answer

from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.golden_runner import compare, envelope_diff


def actual(expected: dict[str, Any], **runtime: Any) -> dict[str, Any]:
    env = copy.deepcopy(expected)
    if "meta" in env:
        env["meta"].update({"trace_id": "t1", "model": "some-model", "latency_ms": 12.5, **runtime})
    return env


# ---------------------------------------------------------------- compare()


def test_exec_tier_compares_data_exactly() -> None:
    module = example("json-patch-generator")
    _, expected = golden("json-patch-generator")
    assert compare(module, expected, actual(expected, confidence=0.99)) == []  # meta is not compared
    reworded = actual(expected)
    reworded["data"]["summary"] += " (reworded)"
    assert compare(module, expected, reworded) == ["exec tier: data differs from the expected data"]


def test_decision_tier_wording_numbers_and_arrays_may_differ() -> None:
    module = example("code-reviewer")
    _, expected = golden("code-reviewer")
    env = actual(expected, confidence=0.4, risk="low", explain="another summary")
    env["data"]["summary"] = "Completely different words."
    env["data"]["rationale"] = "Another chain of thought."
    env["data"]["issues"] = env["data"]["issues"][:1]
    env["data"]["strengths"] = []
    env["data"]["extensions"]["insights"] = []
    assert compare(module, expected, env) == []


def test_decision_tier_enums_and_presence_must_match() -> None:
    module = example("code-reviewer")
    _, expected = golden("code-reviewer")
    env = actual(expected)
    env["data"]["verdict"] = "approve"
    del env["data"]["strengths"]
    reasons = compare(module, expected, env)
    assert 'data.verdict is "approve" but "request_changes" was expected' in reasons
    assert "data.strengths is missing" in reasons
    assert len(reasons) == 2


def test_nested_enums_and_booleans_are_compared_field_by_field() -> None:
    module = example("commit-message-writer")
    out = json.loads((module.path / "examples/output.json").read_text(encoding="utf-8"))
    expected = {"ok": True, "meta": {"confidence": 0.9, "risk": "medium", "explain": "x"}, "data": out}
    env = actual(expected)
    env["data"]["result"]["subject"] = "fix(billing): a different subject"  # free text
    assert compare(module, expected, env) == []
    env["data"]["result"]["breaking"] = True
    env["data"]["result"]["type"] = "refactor"
    reasons = compare(module, expected, env)
    assert "data.result.breaking is true but false was expected" in reasons
    assert 'data.result.type is "refactor" but "fix" was expected' in reasons


def test_data_must_match_the_schema() -> None:
    module = example("code-reviewer")
    _, expected = golden("code-reviewer")
    env = actual(expected)
    env["data"]["issues"][0]["line"] = 0
    reasons = compare(module, expected, env)
    assert reasons and all("does not match the schema at issues.0.line" in r for r in reasons)


def test_ok_must_match() -> None:
    module = example("code-reviewer")
    _, expected = golden("code-reviewer")
    reasons = compare(module, expected, failure("E2011", "stream timed out"))
    assert reasons == ["ok is false but true was expected (E2011: stream timed out)"]


@pytest.mark.parametrize(
    ("want", "got", "same"),
    [
        ("SCHEMA_VALIDATION_FAILED", "E3001", True),
        ("E3001", "SCHEMA_VALIDATION_FAILED", True),
        ("PARSE_ERROR", "E1000", True),
        ("E2006", "E2006", True),
        ("E3001", "E3004", False),
        ("INVALID_INPUT", "E1002", False),
    ],
)
def test_error_codes_match_in_either_spelling(want: str, got: str, same: bool) -> None:
    module = example("code-reviewer")
    expected = {
        "ok": False,
        "meta": {"confidence": 0, "risk": "high", "explain": "x"},
        "error": {"code": want, "message": "expected"},
    }
    got_env = {
        "ok": False,
        "meta": {"confidence": 0.2, "risk": "high", "explain": "y"},
        "error": {"code": got, "message": "different words"},
    }
    assert (compare(module, expected, got_env) == []) is same


def test_diff_leaves_runtime_meta_out() -> None:
    _, expected = golden("code-reviewer")
    env = actual(expected)
    assert envelope_diff(expected, env) == ""
    env["data"]["verdict"] = "approve"
    diff = envelope_diff(expected, env)
    assert '-    "verdict": "request_changes"' in diff and '+    "verdict": "approve"' in diff
    assert "trace_id" not in diff


# ---------------------------------------------------------------- cogn test


def test_cogn_test_all_examples_pass_offline(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "test", "--all", "--json")
    assert proc.returncode == 0, proc.stdout[-3000:]
    report = json.loads(proc.stdout)
    assert report["provider"] == "replay" and report["failed"] == 0
    tested = [example(p.name) for p in MODULES.iterdir() if p.is_dir() and example(p.name).tests]
    assert report["passed"] == sum(len(m.tests) for m in tested) >= 14
    assert sorted(m["module"] for m in report["modules"]) == sorted(m.name for m in tested)


def test_one_case_and_one_module_are_counted_in_the_singular(tmp_path: Path) -> None:
    """`cogn test` of a one-golden module says "1 case", `validate --all` of a one-module folder "1 module"."""
    proc = cogn(tmp_path, "test", "api-naming-reviewer")
    assert proc.returncode == 0 and "1 case: 1 passed, 0 failed" in proc.stdout, proc.stdout + proc.stderr
    one = tmp_path / "one"
    copy_module(one, "api-naming-reviewer")
    proc = cogn(tmp_path, "validate", "--all", path=one)
    assert proc.returncode == 0 and "1 module: " in proc.stdout and "1 modules" not in proc.stdout, proc.stdout


def test_cogn_test_failing_case_shows_reasons_and_diff(tmp_path: Path, llm_server: Any) -> None:
    mods = tmp_path / "mods"
    copy_module(mods, "code-reviewer")
    one, two, three = (model_answer(golden("code-reviewer", c)[1]) for c in ("case1", "case2", "case3"))
    one["data"]["verdict"] = "approve"
    one["data"]["summary"] = "Reworded, which is fine."
    llm_server.enqueue(*(json.dumps(a) for a in (one, two, three)))
    env = cli_env(tmp_path, OPENAI_BASE_URL=llm_server.openai_base_url, OPENAI_API_KEY=OPENAI_KEY)
    # -j 1: the answers are queued in case order, so the cases must call the model in that order.
    proc = cogn(tmp_path, "test", "code-reviewer", "--provider", "openai", "-j", "1", env=env, path=mods)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "✗ FAIL  code-reviewer/case1" in out
    assert "✓ pass  code-reviewer/case2" in out and "✓ pass  code-reviewer/case3" in out
    assert '- data.verdict is "approve" but "request_changes" was expected' in out
    assert '-    "verdict": "request_changes"' in out and '+    "verdict": "approve"' in out
    assert "data.summary" not in out  # reworded free text is not a reason; it only shows in the diff
    assert "3 cases: 2 passed, 1 failed" in out
    assert len(llm_server.requests) == 3
    assert OPENAI_KEY not in proc.stdout + proc.stderr


def test_cogn_test_json_on_a_broken_golden(tmp_path: Path) -> None:
    mods = tmp_path / "mods"
    root = copy_module(mods, "code-reviewer")
    case = root / "tests/case2.expected.json"
    broken = json.loads(case.read_text(encoding="utf-8"))
    broken["data"]["verdict"] = "maybe"  # the replay answers with this, which the contract rejects
    case.write_text(json.dumps(broken), encoding="utf-8")
    proc = cogn(tmp_path, "test", "code-reviewer", "--json", path=mods)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert (report["passed"], report["failed"]) == (2, 1)
    cases = {c["name"]: c for c in report["modules"][0]["cases"]}
    bad = cases["case2"]
    assert bad["passed"] is False and bad["reasons"][0].startswith("ok is false but true was expected (E3001")
    assert bad["envelope"]["error"]["code"] == "E3001" and bad["diff"].startswith("--- expected")
    assert cases["case1"]["passed"] and cases["case1"]["diff"] == ""


def test_cogn_test_usage(tmp_path: Path) -> None:
    assert cogn(tmp_path, "test").returncode == 2
    assert cogn(tmp_path, "test", "no-such-module").returncode == 2
