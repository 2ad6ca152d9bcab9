"""Every manifest field does what it says, or validate and the run say why not (issue 10 §1, §3).

One test (at least) per field of docs/manifest-fields.md that had no effect
before. Answers come from tests/llmserver.py through the real clients; the
server counts the model calls.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

import itertools

from rtkit import (
    MODULES,
    assert_failure,
    collect,
    copy_module,
    example,
    golden,
    model_answer,
    options,
    provider,
    replay,
    resolver_for,
    set_keys,
)

from cogtui.core.module.loader import load_module
from cogtui.core.module.model import Module
from cogtui.core.rules.envelope_rules import check_envelope, check_tier
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.run.golden_runner import run_case
from cogtui.core.run.output_fixes import parse_fixes
from cogtui.core.run.postprocess import postprocess
from cogtui.core.run.runner import run_module


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
PATCH_IN, PATCH_OUT = golden("json-patch-generator")


def tweaked(tmp_path: Path, name: str, **sections: Any) -> Module:
    """A copy of an example module with manifest sections replaced (None deletes a key)."""
    root = copy_module(tmp_path, name)
    man = yaml.safe_load((root / "module.yaml").read_text(encoding="utf-8"))
    for key, value in sections.items():
        if value is None:
            man.pop(key, None)
        elif isinstance(value, dict) and isinstance(man.get(key), dict):
            man[key] = {**man[key], **value}
        else:
            man[key] = value
    (root / "module.yaml").write_text(yaml.safe_dump(man, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return load_module(root)


def bad_answer() -> dict[str, Any]:
    answer = model_answer(REVIEW_OUT)
    answer["data"]["verdict"] = "maybe later"  # not in the enum: E3001 with partial_data
    return answer


async def run_json(srv: Any, module: Module, inp: Any, *answers: Any, proto: str = "openai", **kw: Any) -> Any:
    srv.enqueue(*(a if isinstance(a, str) else json.dumps(a) for a in answers))
    return await run_module(module, inp, options(provider(proto, srv), **kw))


def m020(module: Module) -> list[str]:
    return [d.message for d in validate_module(module) if d.code == "M020"]


# ---------------------------------------------------------------- failure.*


async def test_partial_allowed_false_withholds_partial_data(tmp_path: Path, llm_server: Any) -> None:
    allowed = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, bad_answer())
    assert assert_failure(allowed.envelope, "E3001") and allowed.envelope["partial_data"]
    module = tweaked(tmp_path, "code-reviewer", failure={"partial_allowed": False})
    result = await run_json(llm_server, module, REVIEW_IN, bad_answer())
    assert_failure(result.envelope, "E3001")
    assert "partial_data" not in result.envelope
    assert any(w.startswith("failure.partial_allowed") for w in result.envelope["meta"]["warnings"])


async def test_partial_allowed_false_also_for_a_model_reported_error(tmp_path: Path, llm_server: Any) -> None:
    module = tweaked(tmp_path, "code-reviewer", failure={"partial_allowed": False})
    said = {
        "ok": False,
        "meta": {"confidence": 0.4, "risk": "medium", "explain": "cannot review"},
        "error": {"code": "E2006", "message": "the diff is empty"},
        "partial_data": {"summary": "nothing"},
    }
    result = await run_json(llm_server, module, REVIEW_IN, said)
    assert result.envelope["error"]["code"] == "E2006" and "partial_data" not in result.envelope


def test_must_return_error_schema(tmp_path: Path) -> None:
    said = {
        "ok": False,
        "meta": {"confidence": 0.0, "risk": "high", "explain": "x"},
        "error": {"code": "not an e-code", "message": "m"},  # breaks the module's error schema pattern
    }
    strict = example("code-reviewer")
    assert any(v.rule == "schema.error" for v in check_envelope(said, strict))
    assert postprocess(said, strict).envelope["error"]["code"] == "E3001"
    loose = tweaked(tmp_path, "code-reviewer", failure={"must_return_error_schema": False})
    assert not any(v.rule == "schema.error" for v in check_envelope(said, loose))


def test_failure_contract_other_than_error_union_is_warned(tmp_path: Path) -> None:
    module = tweaked(tmp_path, "code-reviewer", failure={"contract": "exceptions"})
    assert any(m.startswith("failure.contract") for m in m020(module))
    assert m020(example("code-reviewer")) == []


# ---------------------------------------------------------------- compat.*

BARE = {k: v for k, v in REVIEW_OUT["data"].items()}


@pytest.mark.parametrize("key", ["runtime_auto_wrap", "accepts_v21_payload"])
def test_compat_false_refuses_a_bare_v21_payload(tmp_path: Path, key: str) -> None:
    wrapped = postprocess(copy.deepcopy(BARE), example("code-reviewer"))
    assert wrapped.wrapped and wrapped.envelope["ok"] is True
    module = tweaked(tmp_path, "code-reviewer", compat={key: False})
    out = postprocess(copy.deepcopy(BARE), module).envelope
    assert out["ok"] is False and out["error"]["code"] == "E3001"
    assert out["error"]["details"]["field"] == f"compat.{key}" and out["partial_data"] == BARE
    envelope = model_answer(REVIEW_OUT)  # a real envelope is still fine
    assert postprocess(envelope, module).envelope["ok"] is True


def test_compat_fields_that_cannot_act_are_warned(tmp_path: Path) -> None:
    module = tweaked(
        tmp_path, "code-reviewer", compat={"schema_output_alias": "output", "accepts_v22_payload": False, "x": 1}
    )
    found = m020(module)
    assert any("compat.schema_output_alias" in m for m in found)
    assert any("compat.accepts_v22_payload" in m for m in found)
    assert any(m.startswith("compat.x is not a field") for m in found)


# ---------------------------------------------------------------- invocation.*


async def test_user_invocable_false_refuses_a_person_not_a_golden_test(tmp_path: Path, llm_server: Any) -> None:
    module = tweaked(tmp_path, "code-reviewer", invocation={"user_invocable": False})
    result = await run_json(llm_server, module, REVIEW_IN, model_answer(REVIEW_OUT))
    err = assert_failure(result.envelope, "E4007")
    assert "invocation.user_invocable" in err["message"] and llm_server.requests == []
    case = await run_case(module, module.tests[0], options(provider("openai", llm_server)))
    assert case.result is not None and case.result.ok and len(llm_server.requests) == 1


def _caller_and_child(tmp_path: Path, child_invocation: dict[str, Any]) -> Module:
    kid = copy_module(tmp_path, "code-reviewer", "kid")
    man = yaml.safe_load((kid / "module.yaml").read_text(encoding="utf-8"))
    man["name"] = "kid"
    man["invocation"] = child_invocation
    (kid / "module.yaml").write_text(yaml.safe_dump(man, sort_keys=False), encoding="utf-8")
    parent = copy_module(tmp_path, "code-reviewer", "parent")
    prompt = (parent / "prompt.md").read_text(encoding="utf-8")
    (parent / "prompt.md").write_text(prompt + "\n\nA second opinion: @call:kid()\n", encoding="utf-8")
    pman = yaml.safe_load((parent / "module.yaml").read_text(encoding="utf-8"))
    pman["name"] = "parent"
    (parent / "module.yaml").write_text(yaml.safe_dump(pman, sort_keys=False), encoding="utf-8")
    return load_module(parent)


async def test_agent_invocable_false_refuses_a_call(tmp_path: Path, llm_server: Any) -> None:
    parent = _caller_and_child(tmp_path, {"agent_invocable": False, "user_invocable": True})
    opts = options(provider("openai", llm_server), resolver=resolver_for(tmp_path))
    result = await run_module(parent, REVIEW_IN, opts)
    err = assert_failure(result.envelope, "E4007")
    assert "agent_invocable" in err["message"] and llm_server.requests == []


async def test_a_child_that_is_not_user_invocable_may_still_be_called(tmp_path: Path, llm_server: Any) -> None:
    parent = _caller_and_child(tmp_path, {"agent_invocable": True, "user_invocable": False})
    answer = json.dumps(model_answer(REVIEW_OUT))
    llm_server.enqueue(answer, answer)
    result = await run_module(
        parent, REVIEW_IN, options(provider("openai", llm_server), resolver=resolver_for(tmp_path))
    )
    assert result.ok, result.envelope
    assert len(llm_server.requests) == 2


# ---------------------------------------------------------------- response.* and modalities.output


async def test_chunk_type_snapshot_sends_whole_values(tmp_path: Path) -> None:
    module = tweaked(tmp_path, "code-reviewer", response={"chunk_type": "snapshot"})
    chunks, result, _ = await collect(module, REVIEW_IN, options(replay(), stream_requested=True))
    assert result.ok
    inner = [c["chunk"] for c in chunks if "chunk" in c]
    assert inner and all(c["type"] == "snapshot" for c in inner)
    rationale = [c["data"] for c in inner if c["field"] == "data.rationale"]
    assert len(rationale) > 1 and rationale[-1] == result.envelope["data"]["rationale"]
    assert all(b.startswith(a) for a, b in itertools.pairwise(rationale))  # growing, whole
    deltas, _, _ = await collect(example("code-reviewer"), REVIEW_IN, options(replay(), stream_requested=True))
    assert any(c["chunk"]["type"] == "delta" for c in deltas if "chunk" in c)


async def test_buffer_size_gathers_deltas(tmp_path: Path) -> None:
    plain, _, _ = await collect(example("code-reviewer"), REVIEW_IN, options(replay(), stream_requested=True))
    module = tweaked(tmp_path, "code-reviewer", response={"buffer_size": 200})
    chunks, result, _ = await collect(module, REVIEW_IN, options(replay(), stream_requested=True))

    def pieces(cs: list[dict[str, Any]]) -> list[str]:
        return [c["chunk"]["delta"] for c in cs if c.get("chunk", {}).get("field") == "data.rationale"]

    assert "".join(pieces(chunks)) == result.envelope["data"]["rationale"] == "".join(pieces(plain))
    assert len(pieces(chunks)) < len(pieces(plain))
    assert all(len(p.encode("utf-8")) >= 200 for p in pieces(chunks)[:-1])


def test_media_output_modalities_are_warned(tmp_path: Path) -> None:
    module = tweaked(tmp_path, "code-reviewer", modalities={"input": ["text"], "output": ["text", "image"]})
    assert any(m.startswith("modalities.output image") for m in m020(module))


# ---------------------------------------------------------------- runtime_requirements.*


async def test_structured_output_sends_the_schema_to_a_provider_that_takes_one(tmp_path: Path, llm_server: Any) -> None:
    # RUN-4: true sends the answer's schema as a strict json_schema; false sends none.
    answer = model_answer(REVIEW_OUT)
    result = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, answer)
    assert result.ok and llm_server.requests[0].body["response_format"]["type"] == "json_schema"
    off = tweaked(tmp_path, "code-reviewer", runtime_requirements={"structured_output": False})
    await run_json(llm_server, off, REVIEW_IN, answer)
    assert "response_format" not in llm_server.requests[1].body


async def test_requirements_a_provider_lacks_are_warnings_in_the_run(llm_server: Any) -> None:
    # code-reviewer prefers json_mode and long_context; the OpenAI-compatible provider declares no long_context.
    result = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, model_answer(REVIEW_OUT))
    assert result.ok
    warnings = result.envelope["meta"]["warnings"]
    assert any(
        w.startswith("runtime_requirements.preferred_capabilities: provider openai lacks long_context")
        for w in warnings
    )


def test_unknown_preferred_capability_is_warned(tmp_path: Path) -> None:
    module = tweaked(tmp_path, "code-reviewer", runtime_requirements={"preferred_capabilities": ["telepathy"]})
    assert any("telepathy" in m for m in m020(module))


# ---------------------------------------------------------------- enums.unknown_tag


def test_unknown_tag_is_the_escape_key(tmp_path: Path) -> None:
    strict = tweaked(tmp_path, "code-reviewer", enums={"strategy": "strict", "unknown_tag": "other_value"})
    env = model_answer(REVIEW_OUT)
    env["data"]["issues"][0]["category"] = {"other_value": "concurrency", "reason": "a race"}
    assert [v.code for v in check_envelope(env, strict) if v.rule == "enums.strict"] == ["E3005"]
    env["data"]["issues"][0]["category"] = {"custom": "concurrency", "reason": "a race"}
    assert not [v for v in check_envelope(env, strict) if v.rule == "enums.strict"]
    extensible = tweaked(tmp_path / "x", "code-reviewer", enums={"unknown_tag": "other_value"})
    assert '{"other_value": "...", "reason": "..."}' in system_text_of(extensible)
    assert any(m.startswith("enums.unknown_tag") for m in m020(extensible))


def system_text_of(module: Module) -> str:
    from cogtui.core.run.prompt import system_prompt

    return system_prompt(module)


# ---------------------------------------------------------------- meta: risk aggregation, a model's error


def test_meta_risk_below_the_highest_change_is_a_violation() -> None:
    env: dict[str, Any] = {
        "ok": True,
        "meta": {"confidence": 0.9, "risk": "low", "explain": "x"},
        "data": {"rationale": "r", "changes": [{"risk": "none"}, {"risk": "high"}, {"note": "no risk given"}]},
    }
    assert [v.rule for v in check_envelope(env)] == ["meta.risk.aggregate"]
    for ok_risk in ("high",):
        assert check_envelope({**env, "meta": {**env["meta"], "risk": ok_risk}}) == []
    cautious = {**env, "data": {"rationale": "r", "changes": [{"risk": "none"}]}}
    assert check_envelope(cautious) == []  # a higher meta.risk is caution, not an error


async def test_the_runtime_fails_a_hidden_risk(llm_server: Any) -> None:
    module = example("api-naming-reviewer")
    inp, out = golden("api-naming-reviewer")
    answer = model_answer(out)
    if "meta" in answer:
        answer["meta"]["risk"] = "low"
    result = await run_json(llm_server, module, inp, answer)
    err = assert_failure(result.envelope, "E3001")
    assert "meta.risk" in err["message"]


async def test_the_meta_of_an_error_the_model_reports(llm_server: Any) -> None:
    said = {"ok": False, "error": {"code": "E2006", "message": "the diff is empty, nothing to review"}}
    result = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, said)
    meta = result.envelope["meta"]
    assert result.envelope["error"]["code"] == "E2006"
    assert (meta["confidence"], meta["risk"], meta["explain"]) == (0.0, "high", "the diff is empty, nothing to review")
    given = {**said, "meta": {"confidence": 0.62, "risk": "medium", "explain": "empty"}}
    result = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, given)
    assert {k: result.envelope["meta"][k] for k in ("confidence", "risk", "explain")} == given["meta"]
    broken = {**said, "meta": {"confidence": 7, "risk": "medium", "explain": "empty"}}
    result = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, broken)
    assert_failure(result.envelope, "E3001")  # a model's error meta is checked like any meta


def test_nan_confidence_never_passes_the_exec_gate() -> None:
    module = example("json-patch-generator")
    meta = {"confidence": float("nan"), "risk": "low", "explain": "x"}
    assert [v.code for v in check_tier(meta, module, ("meta",))] == ["E2001"]


# ---------------------------------------------------------------- §3: one model call per run


def test_fix_names_are_checked() -> None:
    assert parse_fixes(["all"])[0] == frozenset(
        {"confidence_clamp", "confidence_text", "enum_hyphens", "corrective_retry"}
    )
    chosen, problems = parse_fixes(["confidence_clamp,enum_hyphens", "guess"])
    assert chosen == {"confidence_clamp", "enum_hyphens"} and problems and "guess" in problems[0]


async def test_enum_hyphens_only_when_asked(llm_server: Any) -> None:
    answer = model_answer(REVIEW_OUT)
    answer["data"]["verdict"] = "Request-Changes"
    result = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, answer)
    assert_failure(result.envelope, "E3001")
    result = await run_json(llm_server, example("code-reviewer"), REVIEW_IN, answer, fixes=frozenset({"enum_hyphens"}))
    assert result.ok and result.envelope["data"]["verdict"] == "request_changes"
    assert any(w.startswith("enum_hyphens:") for w in result.envelope["meta"]["warnings"])


async def test_one_model_call_per_successful_run_on_every_scripted_golden(llm_server: Any) -> None:
    runs = 0
    for root in sorted(MODULES.iterdir()):
        if not (root / "module.yaml").is_file():
            continue
        module = load_module(root)
        if "@call:" in module.prompt:
            continue  # a caller's children are runs of their own
        for test in module.tests:
            if not isinstance(test.expected, dict) or test.expected.get("ok") is not True:
                continue
            expected = model_answer(test.expected)
            if not module.format.has_envelope_contract:
                expected = expected["data"]  # an older module's model writes the bare payload
            result = await run_json(llm_server, module, test.input, expected)
            assert result.ok, (root.name, test.name, result.envelope.get("error"))
            runs += 1
            assert "model_calls" not in result.envelope["meta"]
    assert runs >= 8 and len(llm_server.requests) == runs  # 1.0 model calls per successful run


# ---------------------------------------------------------------- schema_strictness


def test_high_strictness_requires_every_declared_field(tmp_path: Path) -> None:
    root = copy_module(tmp_path, "code-reviewer")
    env = model_answer(REVIEW_OUT)
    env["data"].pop("strengths", None)  # optional in the schema
    assert not [v for v in check_envelope(env, load_module(root)) if v.rule.startswith("strictness")]
    high = tweaked(tmp_path / "h", "code-reviewer", schema_strictness="high")
    found = [v for v in check_envelope(env, high) if v.rule == "strictness.high.required"]
    assert [v.path for v in found] == [("data", "strengths")]
    assert postprocess(env, high).envelope["error"]["code"] == "E3001"


# ---------------------------------------------------------------- the reference doc covers every field


def test_the_field_reference_lists_every_field_and_real_tests() -> None:
    import re

    from cogtui.core.rules.manifest_fields import SECTION_KEYS
    from cogtui.core.rules.validate_module import KNOWN_FIELDS

    doc = (Path(__file__).resolve().parents[1] / "docs" / "manifest-fields.md").read_text(encoding="utf-8")
    missing = [f for f in KNOWN_FIELDS if f"`{f}" not in doc]
    missing += [f"{s}.{k}" for s, keys in SECTION_KEYS.items() for k in keys if k not in doc]
    assert missing == []
    tests = Path(__file__).resolve().parent
    for file, name in re.findall(r"`(test_\w+\.py)(?:::(\w+))?", doc):
        assert (tests / file).is_file(), file
        if name:
            assert f"def {name}(" in (tests / file).read_text(encoding="utf-8"), (file, name)
