"""Contract rules on a parsed answer (SPEC-v2.2 §3-§4, SPEC-v2.5 §5; ENV-2, ENV-7, RUN-9, CODE-3) and the failure envelope.

Each answer comes back through the real OpenAI-compatible client. Every
failure is judged by rtkit.assert_failure against ../shared/spec/error-codes.md.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from modkit import clean_v1, make_module, mapping_in, text_in
from rtkit import (
    SPEC_LEGACY,
    SPEC_RECOVERABLE,
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

from cogtui.core.module.loader import load_module
from cogtui.core.rules.chunk_rules import check_stream
from cogtui.core.run.envelope_builder import SUGGESTIONS, failure
from cogtui.core.run.runner import RunResult, run_module


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


async def run_answer(srv: Any, module: Any, input_value: Any, answer: Any) -> RunResult:
    srv.enqueue(answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False))
    return await run_module(module, input_value, options(provider("openai", srv)))


def insights(n: int, mapping: bool = True) -> list[dict[str, Any]]:
    return [
        {"text": f"insight {i}", "evidence": f"e{i}", **({"suggested_mapping": f"field_{i}"} if mapping else {})}
        for i in range(n)
    ]


def with_insights(name: str, items: list[dict[str, Any]], case: str = "case1") -> tuple[Any, dict[str, Any]]:
    inp, expected = golden(name, case)
    answer = model_answer(expected)
    answer["data"].setdefault("extensions", {})["insights"] = items
    return inp, answer


# ---------------------------------------------------------------- overflow (ENV-7)


async def test_decision_tier_overflow_is_e3004(llm_server: Any) -> None:
    inp, answer = with_insights("code-reviewer", insights(6))
    result = await run_answer(llm_server, example("code-reviewer"), inp, answer)
    err = assert_failure(result.envelope, "E3004")
    assert err["details"] == {"max_items": 5, "returned": 6}
    assert result.envelope["partial_data"] == answer["data"]  # the model's fields, all six insights


async def test_exactly_max_items_is_fine(llm_server: Any) -> None:
    inp, answer = with_insights("code-reviewer", insights(5))
    result = await run_answer(llm_server, example("code-reviewer"), inp, answer)
    assert_valid_success(result.envelope, example("code-reviewer"))
    assert not [w for w in result.warnings if "insights" in w]  # nothing trimmed (provider notes aside)


async def test_exec_tier_allows_no_insights(llm_server: Any) -> None:
    inp, answer = with_insights("json-patch-generator", insights(1))
    result = await run_answer(llm_server, example("json-patch-generator"), inp, answer)
    err = assert_failure(result.envelope, "E3004")
    assert "overflow is disabled" in err["message"]


async def test_exploration_tier_trims_with_a_warning(llm_server: Any) -> None:
    module = example("product-ideas")
    inp, answer = with_insights("product-ideas", insights(25))
    llm_server.enqueue(json.dumps(answer, ensure_ascii=False))
    chunks, result, _ = await collect(module, inp, options(provider("anthropic", llm_server)))
    assert_valid_success(result.envelope, module)
    assert check_stream(chunks, module) == []
    snapshots = [c["chunk"]["data"] for c in chunks if c.get("chunk", {}).get("field") == "data.extensions"]
    assert len(snapshots[0]["insights"]) == 25 and snapshots[-1] == result.envelope["data"]["extensions"]
    assert result.envelope["data"]["extensions"]["insights"] == insights(25)[:20]  # the first 20, in order
    assert any("25 insights trimmed" in w and "20" in w for w in result.warnings)
    assert {k: v for k, v in result.envelope["data"].items() if k != "extensions"} == {
        k: v for k, v in answer["data"].items() if k != "extensions"
    }


@pytest.mark.parametrize("name", ["code-reviewer", "product-ideas"])
async def test_missing_suggested_mapping_is_e3004_in_every_tier(llm_server: Any, name: str) -> None:
    items = insights(2)
    del items[1]["suggested_mapping"]
    inp, answer = with_insights(name, items)
    result = await run_answer(llm_server, example(name), inp, answer)
    err = assert_failure(result.envelope, "E3004")
    assert err["details"]["insights_without_mapping"] == [1]


# ---------------------------------------------------------------- enum strategy


async def test_extensible_enum_accepts_custom_values(llm_server: Any) -> None:
    module = example("code-reviewer")
    inp, expected = golden("code-reviewer", "case2")
    result = await run_answer(llm_server, module, inp, model_answer(expected))
    assert_valid_success(result.envelope, module)
    assert result.envelope["data"]["issues"][0]["category"]["custom"] == "react_hooks"


async def test_strict_enum_rejects_custom_values(tmp_path: Path, llm_server: Any) -> None:
    root = copy_module(tmp_path, "code-reviewer")
    manifest = root / "module.yaml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace("strategy: extensible", "strategy: strict"), encoding="utf-8"
    )
    module = load_module(root)
    assert module.contract.enum_strategy.value == "strict"
    inp, expected = golden("code-reviewer", "case2")
    result = await run_answer(llm_server, module, inp, model_answer(expected))
    err = assert_failure(result.envelope, "E3005")
    assert err["details"]["fields"] == ["data.issues[0].category", "data.issues[2].category"]
    assert "react_hooks" in err["message"]
    assert result.envelope["partial_data"]["issues"][0]["category"]["custom"] == "react_hooks"


async def test_strict_module_whose_schema_has_no_custom_form_is_still_e3005(llm_server: Any) -> None:
    inp, expected = golden("json-patch-generator")
    answer = model_answer(expected)
    answer["data"]["annotations"][1]["risk"] = {"custom": "tiny", "reason": "a version bump"}
    result = await run_answer(llm_server, example("json-patch-generator"), inp, answer)
    err = assert_failure(result.envelope, "E3005")
    assert err["details"]["fields"] == ["data.annotations[1].risk"]


# ---------------------------------------------------------------- the exec gate (ENV-2)


@pytest.mark.parametrize(
    ("meta", "ok"),
    [
        ({"confidence": 0.89, "risk": "low"}, False),
        ({"confidence": 0.95, "risk": "medium"}, False),
        ({"confidence": 0.5, "risk": "high"}, False),
        ({"confidence": 0.9, "risk": "low"}, True),
        ({"confidence": 1.0, "risk": "none"}, True),
    ],
)
async def test_exec_gate(llm_server: Any, meta: dict[str, Any], ok: bool) -> None:
    module = example("json-patch-generator")
    inp, expected = golden("json-patch-generator")
    answer = model_answer(expected)
    answer["meta"].update(meta)
    result = await run_answer(llm_server, module, inp, answer)
    if ok:
        assert_valid_success(result.envelope, module)
        return
    err = assert_failure(result.envelope, "E2001")
    assert (err["details"]["confidence"], err["details"]["risk"]) == (meta["confidence"], meta["risk"])
    assert module.failure["partial_allowed"] is False  # json-patch-generator withholds partial data (ENV-14)
    assert "partial_data" not in result.envelope


# ---------------------------------------------------------------- rationale and v1 constraints (CODE-3)


async def test_missing_rationale_alone_is_e3003(llm_server: Any) -> None:
    inp, expected = golden("code-reviewer")
    answer = model_answer(expected)
    del answer["data"]["rationale"]
    result = await run_answer(llm_server, example("code-reviewer"), inp, answer)
    assert_failure(result.envelope, "E3003")
    assert result.envelope["partial_data"]["summary"] == expected["data"]["summary"]


async def test_missing_rationale_and_more_is_e3001(llm_server: Any) -> None:
    inp, expected = golden("code-reviewer")
    answer = model_answer(expected)
    del answer["data"]["rationale"]
    del answer["data"]["summary"]
    result = await run_answer(llm_server, example("code-reviewer"), inp, answer)
    assert_failure(result.envelope, "E3001")


COMMIT = example("commit-message-writer")
COMMIT_IN = json.loads((COMMIT.path / "examples/input.json").read_text(encoding="utf-8"))
COMMIT_OUT = json.loads((COMMIT.path / "examples/output.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("rationale", ["", "   ", None])
async def test_v1_require_rationale_is_e3003(llm_server: Any, rationale: str | None) -> None:
    assert COMMIT.constraints["require_rationale"] is True
    answer = copy.deepcopy(COMMIT_OUT)
    if rationale is None:
        del answer["rationale"]
    else:
        answer["rationale"] = rationale
    result = await run_answer(llm_server, COMMIT, COMMIT_IN, answer)
    assert_failure(result.envelope, "E3003")


def loose_v1(tmp_path: Path) -> Any:
    """A v1 module with require_confidence whose schema leaves confidence optional and unbounded."""
    files = clean_v1("loose")
    files["MODULE.md"] = text_in(files, "MODULE.md").replace(
        "  no_network: true\n", "  no_network: true\n  require_confidence: true\n"
    )
    out = mapping_in(files, "schema.json")["output"]
    out["required"] = ["summary", "rationale"]
    out["properties"]["confidence"] = {"type": "number"}
    return load_module(make_module(tmp_path, files, "loose"))


@pytest.mark.parametrize(("confidence", "code"), [(1.5, "E3006"), (-0.1, "E3006"), ("absent", "E3006"), (0.7, None)])
async def test_v1_require_confidence(tmp_path: Path, llm_server: Any, confidence: Any, code: str | None) -> None:
    module = loose_v1(tmp_path)
    assert module.constraints["require_confidence"] is True
    answer: dict[str, Any] = {"summary": "Short", "rationale": "Because"}
    if confidence != "absent":
        answer["confidence"] = confidence
    result = await run_answer(llm_server, module, {"text": "Long text"}, answer)
    if code is None:
        assert result.ok and result.envelope["meta"]["confidence"] == confidence
    else:
        err = assert_failure(result.envelope, code)
        assert err["details"]["constraint"] == "require_confidence"


async def test_no_inventing_data_warns_on_empty_values(llm_server: Any) -> None:
    answer = copy.deepcopy(COMMIT_OUT)
    answer["result"]["scope"] = None
    result = await run_answer(llm_server, COMMIT, COMMIT_IN, answer)
    assert result.ok
    assert any("no_inventing_data" in w and "data.result.scope" in w for w in result.warnings)
    clean = await run_answer(llm_server, COMMIT, COMMIT_IN, COMMIT_OUT)
    assert clean.ok and clean.warnings == []


# ---------------------------------------------------------------- the failure envelope itself


@pytest.mark.parametrize("code", sorted(SUGGESTIONS))
def test_every_runtime_code_builds_a_spec_failure(code: str) -> None:
    env = failure(code, f"something failed with {code}", partial_data={"x": 1})
    err = assert_failure(env, code)
    assert err["suggestion"] == SUGGESTIONS[code] and env["partial_data"] == {"x": 1}


@pytest.mark.parametrize(("legacy", "numeric"), sorted(SPEC_LEGACY.items()))
def test_legacy_codes_normalise_and_are_kept_in_details(legacy: str, numeric: str) -> None:
    env = failure(legacy, "legacy spelling")
    assert env["error"]["code"] == numeric
    assert env["error"]["details"]["legacy_code"] == legacy
    assert env["error"]["recoverable"] is (SPEC_RECOVERABLE[numeric] in ("yes", "maybe"))


def test_explain_of_a_long_failure_message_stays_within_280() -> None:
    env = failure("E3001", "x" * 1000)
    assert len(env["meta"]["explain"]) == 280 and env["error"]["message"] == "x" * 1000
    assert_failure(env, "E3001")
