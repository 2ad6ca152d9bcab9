"""From the model's text to an envelope: extraction, the corrective retry, v2.1 wrapping, the repair pass.

SPEC-v2.2 §4 steps 5-7 and §6.3; docs/spec-decisions.md ENV-1. Answers come
back through the real OpenAI-compatible client from tests/llmserver.py.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from rtkit import (
    assert_failure,
    assert_valid_success,
    collect,
    copy_module,
    example,
    golden,
    model_answer,
    options,
    provider,
    set_keys,
)

from cogtui.core.files.json_extract import extract_json
from cogtui.core.module.loader import load_module
from cogtui.core.rules.chunk_rules import check_stream
from cogtui.core.run.normalize import aggregate_risk
from cogtui.core.run.runner import CORRECTIVE, RunResult, run_module


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


RETRY = frozenset({"corrective_retry"})  # the opt-in second model call (ENV-10)


async def run_text(
    srv: Any, module: Any, input_value: Any, *replies: str, proto: str = "openai", **kw: Any
) -> RunResult:
    srv.enqueue(*replies)
    return await run_module(module, input_value, options(provider(proto, srv), **kw))


REVIEW_IN, REVIEW_OUT = golden("code-reviewer")


def review(**meta: Any) -> dict[str, Any]:
    out = model_answer(REVIEW_OUT)
    out["meta"].update(meta)
    return out


# ---------------------------------------------------------------- extraction


TRICKY = {
    "ok": True,
    "meta": {"confidence": 0.5, "risk": "low", "explain": 'says "hi" and {not: json}'},
    "data": {"rationale": 'a \\"brace\\" } ] in { a string, and ```fences``` too', "n": [1, {"x": "}"}]},
}


@pytest.mark.parametrize(
    "wrapper",
    [
        "BODY",
        "  \ufeffBODY\n",
        "```json\nBODY\n```",
        "Sure! Here is the review:\n```json\nBODY\n```\nLet me know if you need more.",
        "Here it is: BODY -- and an empty {} for good measure",
        'An aside {"a": 1} first, then the answer:\nBODY',
        "```\nBODY\n```",
    ],
)
def test_extract_json_finds_the_answer(wrapper: str) -> None:
    body = json.dumps(TRICKY, ensure_ascii=False, indent=1)
    assert extract_json(wrapper.replace("BODY", body)) == TRICKY


@pytest.mark.parametrize("text", ["", "no json here", "{broken: json", "[1, 2, 3]", '"a string"', '{"a": 1'])
def test_extract_json_gives_up_cleanly(text: str) -> None:
    assert extract_json(text) is None


def test_a_truncated_answer_is_not_an_answer() -> None:
    """A model cut off mid-object (max_tokens) must not yield one of the complete objects nested inside it."""
    full = json.dumps(TRICKY, indent=2)
    for cut in (full.index('"n"') + 8, full.index('"rationale"') + 20, len(full) - 1):
        assert extract_json(full[:cut]) is None
        assert extract_json('An aside {"a": 1} first, then: ' + full[:cut]) is None
    assert extract_json(full + '\nAlso see {"cut": "sho') == TRICKY  # a complete, larger answer still wins


async def test_prose_and_fences_around_the_envelope(llm_server: Any) -> None:
    module = example("code-reviewer")
    text = "I reviewed the diff.\n\n```json\n" + json.dumps(review(), indent=2) + "\n```\nThanks {for} reading."
    result = await run_text(llm_server, module, REVIEW_IN, text)
    assert_valid_success(result.envelope, module)
    assert result.envelope["data"] == REVIEW_OUT["data"]
    assert len(llm_server.requests) == 1


# ---------------------------------------------------------------- the corrective retry


async def test_unparseable_is_e1000_after_one_call_by_default(llm_server: Any) -> None:
    """The spec's pipeline: Parse JSON fails -> PARSE_ERROR. No second model call unless asked for (ENV-10)."""
    first = "I think the change is fine, approve!"
    result = await run_text(llm_server, example("code-reviewer"), REVIEW_IN, first, json.dumps(review()))
    err = assert_failure(result.envelope, "E1000")
    assert err["details"]["raw_output"] == first and "first_attempt" not in err["details"]
    assert len(llm_server.requests) == 1 and llm_server.pending == 1 and result.attempts == 1
    assert "model_calls" not in result.envelope["meta"]


async def test_unparseable_twice_is_e1000_after_exactly_one_retry(llm_server: Any) -> None:
    first, second = "I think the change is fine, approve!", '{"ok": true, "meta": {"confidence": 0.9'
    result = await run_text(
        llm_server, example("code-reviewer"), REVIEW_IN, first, second, json.dumps(review()), fixes=RETRY
    )
    err = assert_failure(result.envelope, "E1000")
    assert err["details"]["raw_output"] == second
    assert err["details"]["first_attempt"] == first
    assert err["details"]["legacy_code"] == "PARSE_ERROR"
    assert len(llm_server.requests) == 2 and llm_server.pending == 1
    retry = llm_server.requests[1].body["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == first and retry[3]["content"] == CORRECTIVE
    assert retry[1] == llm_server.requests[0].body["messages"][1]  # the same question, asked once more


@pytest.mark.parametrize("proto", ["anthropic", "openai"])
async def test_corrective_retry_can_succeed_and_the_stream_still_adds_up(llm_server: Any, proto: str) -> None:
    module = example("code-reviewer")
    good = json.dumps(review(), indent=2)
    truncated = good[: good.index('"rationale"') + 60]  # deltas of data.rationale start, then the text stops
    llm_server.enqueue(truncated, good)
    chunks, result, _ = await collect(module, REVIEW_IN, options(provider(proto, llm_server), fixes=RETRY))
    assert_valid_success(result.envelope, module)
    assert len(llm_server.requests) == 2
    meta = result.envelope["meta"]  # the extra call is in the run record
    assert meta["model_calls"] == 2 and any(w.startswith("corrective_retry:") for w in meta["warnings"])
    assert any(c.get("progress", {}).get("stage") == "retry" for c in chunks)
    assert check_stream(chunks, module) == []
    if proto == "anthropic":
        retry = llm_server.requests[1].body["messages"]
        assert retry[1]["content"][0]["text"] == truncated and retry[2]["content"][0]["text"] == CORRECTIVE


# ---------------------------------------------------------------- v2.1 payloads (SPEC-v2.2 §6.3)


NAMING_IN = json.loads((example("api-naming-reviewer").path / "examples/input.json").read_text(encoding="utf-8"))
NAMING_OUT = json.loads((example("api-naming-reviewer").path / "examples/output.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("shape", ["bare", "ok-data"])
async def test_v21_payload_is_wrapped(llm_server: Any, shape: str) -> None:
    module = example("api-naming-reviewer")
    payload = copy.deepcopy(NAMING_OUT)
    payload["changes"][0]["risk"] = "medium"
    payload["changes"][1]["risk"] = "low"
    payload["rationale"] = "R" * 150 + "-the-rest-is-cut-" + "x" * 100
    answer = payload if shape == "bare" else {"ok": True, "data": payload}
    result = await run_text(llm_server, module, NAMING_IN, json.dumps(answer))
    assert_valid_success(result.envelope, module)
    meta = result.envelope["meta"]
    assert meta["confidence"] == payload["confidence"] == 0.93
    assert meta["risk"] == "medium"  # max(changes[*].risk)
    assert meta["explain"] == payload["rationale"][:200]
    assert result.envelope["data"] == payload  # the payload itself is not touched


async def test_v21_wrap_defaults(tmp_path: Path, llm_server: Any) -> None:
    """Without data.confidence the wrap says 0.5; without changes, risk is medium."""
    root = copy_module(tmp_path, "api-naming-reviewer")
    schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    schema["output"]["required"] = ["summary", "rationale"]
    (root / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    module = load_module(root)
    result = await run_text(
        llm_server, module, NAMING_IN, json.dumps({"summary": "nothing to rename", "rationale": "short"})
    )
    assert result.ok, result.envelope
    assert result.envelope["meta"]["confidence"] == 0.5
    assert result.envelope["meta"]["risk"] == "medium"
    assert result.envelope["meta"]["explain"] == "short"


def test_aggregate_risk_counts_a_change_without_risk_as_medium() -> None:
    assert aggregate_risk({"changes": [{"risk": "low"}, {"risk": "none"}]}) == "low"
    assert aggregate_risk({"changes": [{"risk": "low"}, {}]}) == "medium"
    assert aggregate_risk({"changes": [{"risk": "high"}, {}]}) == "high"
    assert aggregate_risk({"changes": []}) == "medium"
    assert aggregate_risk({}) == "medium"


async def test_runtime_fills_trace_id_model_and_latency(llm_server: Any) -> None:
    answer = review(trace_id="made-up-by-the-model", model="gpt-imaginary", latency_ms=1)
    result = await run_text(llm_server, example("code-reviewer"), REVIEW_IN, json.dumps(answer), proto="anthropic")
    meta = result.envelope["meta"]
    assert meta["model"] == "claude-test-model"
    assert meta["trace_id"] == result.session_id.removeprefix("sess_")
    assert isinstance(meta["latency_ms"], float) and meta["latency_ms"] >= 0 and meta["latency_ms"] == result.total_ms
    assert {k: meta[k] for k in ("confidence", "risk", "explain")} == REVIEW_OUT["meta"]


# ---------------------------------------------------------------- the repair pass


async def test_missing_meta_is_filled(llm_server: Any) -> None:
    module = example("code-reviewer")
    result = await run_text(llm_server, module, REVIEW_IN, json.dumps({"ok": True, "data": REVIEW_OUT["data"]}))
    assert_valid_success(result.envelope, module)
    meta = result.envelope["meta"]
    assert meta["confidence"] == 0.5 and meta["risk"] == "medium"
    assert meta["explain"] == REVIEW_OUT["data"]["rationale"][:200]
    assert result.envelope["data"] == REVIEW_OUT["data"]


@pytest.mark.parametrize("given", [1.7, -0.3, "85%", "0.4", "high"])
async def test_confidence_is_not_rewritten_by_the_repair_pass(llm_server: Any, given: Any) -> None:
    """SPEC-v2.2 §4.1 fills a missing meta field; a present, wrong confidence stays wrong: E3001 (ENV-10)."""
    result = await run_text(llm_server, example("code-reviewer"), REVIEW_IN, json.dumps(review(confidence=given)))
    err = assert_failure(result.envelope, "E3001")
    assert "confidence" in err["message"]


@pytest.mark.parametrize(
    ("given", "clamped", "fix"),
    [
        (1.7, 1.0, "confidence_clamp"),
        (-0.3, 0.0, "confidence_clamp"),
        ("85%", 0.85, "confidence_text"),
        ("0.4", 0.4, "confidence_text"),
    ],
)
async def test_confidence_fixes_when_asked_for_and_recorded(
    llm_server: Any, given: Any, clamped: float, fix: str
) -> None:
    fixes = frozenset({"confidence_clamp", "confidence_text"})
    result = await run_text(
        llm_server, example("code-reviewer"), REVIEW_IN, json.dumps(review(confidence=given)), fixes=fixes
    )
    assert result.ok and result.envelope["meta"]["confidence"] == pytest.approx(clamped)
    assert result.envelope["data"] == REVIEW_OUT["data"]
    assert [w for w in result.envelope["meta"]["warnings"] if w.startswith(fix + ":")]
    assert result.envelope["meta"]["warnings"] == list(dict.fromkeys(result.warnings))  # the run record


async def test_fixes_are_off_under_strict_and_for_high_strictness(llm_server: Any) -> None:
    fixes = frozenset({"confidence_clamp", "confidence_text", "corrective_retry"})
    result = await run_text(
        llm_server, example("code-reviewer"), REVIEW_IN, json.dumps(review(confidence=1.7)), fixes=fixes, strict=True
    )
    assert_failure(result.envelope, "E3001")
    exec_module = example("json-patch-generator")  # tier exec: schema_strictness high
    assert exec_module.contract.schema_strictness.value == "high"
    inp, out = golden("json-patch-generator")
    answer = model_answer(out)
    answer["meta"]["confidence"] = 1.5
    result = await run_text(llm_server, exec_module, inp, json.dumps(answer), "not json", fixes=fixes)
    assert_failure(result.envelope, "E3001")
    assert len(llm_server.requests) == 2 and llm_server.pending == 1  # one call per run: no corrective retry


@pytest.mark.parametrize("given", ["NaN", "nan", "1e999", "inf", "-Infinity", "1e999%"])
async def test_non_finite_confidence_text_never_becomes_one(llm_server: Any, given: str) -> None:
    """Even with every fix on, a confidence that is no finite number is an error, never 1.0 past the exec gate."""
    fixes = frozenset({"confidence_clamp", "confidence_text"})
    for name in ("code-reviewer", "json-patch-generator"):
        inp, out = golden(name)
        answer = model_answer(out)
        answer["meta"]["confidence"] = given
        result = await run_text(llm_server, example(name), inp, json.dumps(answer), fixes=fixes)
        assert not result.ok, (name, result.envelope)
        assert assert_failure(result.envelope, "E3001")


async def test_long_explain_is_truncated_from_the_start(llm_server: Any) -> None:
    explain = "".join(f"{i:03d} " for i in range(100))  # 400 characters, each position recognisable
    result = await run_text(llm_server, example("code-reviewer"), REVIEW_IN, json.dumps(review(explain=explain)))
    assert result.ok
    assert result.envelope["meta"]["explain"] == explain[:280]


async def test_enum_case_and_whitespace_normalised_business_text_untouched(llm_server: Any) -> None:
    module = example("code-reviewer")
    answer = review(risk=" High ")
    data = answer["data"]
    data["verdict"] = " Request Changes "
    data["issues"][0].update(category=" Security ", severity="HIGH", title=" Security ")
    data["issues"][1]["category"] = {"custom": " React Hooks ", "reason": "Mixed Case Stays"}
    data["summary"] = "  Odd  Spacing Stays  "
    result = await run_text(llm_server, module, REVIEW_IN, json.dumps(answer))
    assert_valid_success(result.envelope, module)
    got = result.envelope["data"]
    assert got["verdict"] == "request_changes" and result.envelope["meta"]["risk"] == "high"
    assert (got["issues"][0]["category"], got["issues"][0]["severity"]) == ("security", "high")
    assert got["issues"][0]["title"] == " Security "  # free text is a business value
    assert got["issues"][1]["category"] == {"custom": " React Hooks ", "reason": "Mixed Case Stays"}
    assert got["summary"] == "  Odd  Spacing Stays  "
    assert {k: v for k, v in got.items() if k not in ("verdict", "issues")} == {
        k: v for k, v in data.items() if k not in ("verdict", "issues")
    }


async def test_a_valid_answer_is_not_repaired_at_all(llm_server: Any) -> None:
    answer = review()
    answer["data"]["summary"] = " Security "  # looks like an enum value, but summary is free text
    result = await run_text(llm_server, example("code-reviewer"), REVIEW_IN, json.dumps(answer))
    assert result.ok and result.envelope["data"] == answer["data"]


async def test_still_invalid_after_repair_is_e3001_with_partial_data(llm_server: Any) -> None:
    answer = review(confidence=3)
    answer["data"]["verdict"] = "maybe later"
    answer["data"]["issues"][0]["severity"] = "Critical"
    result = await run_text(llm_server, example("code-reviewer"), REVIEW_IN, json.dumps(answer))
    err = assert_failure(result.envelope, "E3001")
    assert err["details"]["legacy_code"] == "SCHEMA_VALIDATION_FAILED"
    paths = {v["path"] for v in err["details"]["violations"]}
    assert {"data.verdict", "data.issues[0].severity"} <= paths, paths
    partial = result.envelope["partial_data"]
    assert partial["verdict"] == "maybe later" and partial["summary"] == REVIEW_OUT["data"]["summary"]
    assert partial["issues"][0]["severity"] == "Critical"


async def test_model_reported_failure_is_kept(llm_server: Any) -> None:
    module = example("code-reviewer")
    inp, expected = golden("code-reviewer", "case3")
    result = await run_text(llm_server, module, inp, "Nothing to review.\n" + json.dumps(model_answer(expected)))
    assert result.envelope["ok"] is False
    assert result.envelope["error"] == expected["error"]
    assert {k: result.envelope["meta"][k] for k in ("confidence", "risk", "explain")} == expected["meta"]
