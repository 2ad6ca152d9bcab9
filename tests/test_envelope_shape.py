"""Issue 10 §2 and §5: enum, legacy and module codes, tolerated envelope shapes, runtime failure meta.

Decisions ENV-3, ENV-13, CODE-1, ENV-4, CODE-2.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import checked
from modkit import clean_v22, make_module, mapping_in, run_cogn
from rtkit import MODULES, assert_failure, collect, example, golden, model_answer, options, provider, set_keys

from cogtui.core.module.loader import load_module
from cogtui.core.rules.document_checker import check_document
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.postprocess import postprocess

PATCHER = example("json-patch-generator")  # exec tier, strict enums, declares E5001 and E5002
REVIEWER = example("code-reviewer")  # decision tier, extensible enums


def patch_answer(**annotation: Any) -> dict[str, Any]:
    _, expected = golden("json-patch-generator")
    answer = model_answer(expected)
    answer["data"]["annotations"][0].update(annotation)
    return answer


def model_failure(code: str) -> dict[str, Any]:
    return {
        "ok": False,
        "meta": {"confidence": 0.4, "risk": "medium", "explain": "cannot do it"},
        "error": {"code": code, "message": "the target path does not exist"},
    }


# ---------------------------------------------------------------- E3005 under strict enums


def test_a_value_outside_a_strict_enum_is_e3005_not_e3001() -> None:
    out = postprocess(patch_answer(risk="critical"), PATCHER)
    err = assert_failure(out.envelope, "E3005")
    assert err["details"]["fields"] == ["data.annotations[0].risk"]


def test_a_strict_enum_value_the_repair_pass_can_fix_still_passes() -> None:
    out = postprocess(patch_answer(risk=" Low "), PATCHER)  # case and spaces: SPEC-v2.2 §4.1 rule 3
    assert out.envelope["ok"] is True and out.envelope["data"]["annotations"][0]["risk"] == "low"


def test_a_custom_enum_object_under_strict_is_e3005() -> None:
    out = postprocess(patch_answer(risk={"custom": "severe", "reason": "prod"}), PATCHER)
    assert_failure(out.envelope, "E3005")


def test_an_enum_miss_among_other_schema_failures_stays_e3001() -> None:
    answer = patch_answer(risk="critical")
    answer["data"]["summary"] = 5
    assert_failure(postprocess(answer, PATCHER).envelope, "E3001")


def test_outside_strict_a_value_outside_the_enum_is_e3001() -> None:
    _, expected = golden("code-reviewer")
    answer = model_answer(expected)
    issue = next(i for i in answer["data"]["issues"] if isinstance(i.get("severity"), str))
    issue["severity"] = "catastrophic"
    assert_failure(postprocess(answer, REVIEWER).envelope, "E3001")


def strict_module(tmp_path: Path, engine_schema: dict[str, Any] | None = None) -> Any:
    """modkit's clean module (label: oneOf [string enum, {custom, reason}]) with strict enums, and
    `tags`: array of anyOf [const, enum], `level`: anyOf [enum of strings, enum of integers]."""
    files = clean_v22("strictly")
    mapping_in(files, "module.yaml")["enums"] = {"strategy": "strict"}
    props = mapping_in(files, "schema.json")["data"]["properties"]
    props["tags"] = {"type": "array", "items": {"anyOf": [{"const": "urgent"}, {"type": "string", "enum": ["later"]}]}}
    props["level"] = {"anyOf": [{"type": "string", "enum": ["low", "high"]}, {"type": "integer", "enum": [1, 2]}]}
    return load_module(make_module(tmp_path, files, "strictly"))


def strict_answer(**data: Any) -> dict[str, Any]:
    return {
        "ok": True,
        "meta": {"confidence": 0.8, "risk": "low", "explain": "fine"},
        "data": {"label": "bug", "rationale": "why", **data},
    }


STRICT_CASES = [
    ({"label": "regression"}, "E3005", "data.label"),  # oneOf: the string branch's enum; the object branch is typed
    ({"tags": ["urgent", "someday"]}, "E3005", "data.tags[1]"),  # anyOf of const and enum, in an array
    ({"level": "medium"}, "E3005", "data.level"),  # anyOf: two enums, one per type
    ({"level": 3}, "E3005", "data.level"),
    ({"label": 5}, "E3001", None),  # no branch takes a number: a type failure, not an enum miss
    ({"level": 2.5}, "E3001", None),
    ({"label": {"custom": "x", "why": "no reason"}}, "E3001", None),  # the object branch's own failure
    ({"label": "feature", "tags": ["later"], "level": 1}, None, None),
]


@pytest.mark.parametrize(("data", "code", "field"), STRICT_CASES)
def test_strict_enums_inside_oneof_and_anyof(
    tmp_path: Path, data: dict[str, Any], code: str | None, field: str | None
) -> None:
    """ENV-9: under strict enums a value every oneOf/anyOf branch of its type rejects by enum is E3005."""
    out = postprocess(strict_answer(**data), strict_module(tmp_path))
    if code is None:
        assert out.envelope["ok"] is True, out.envelope
        return
    err = assert_failure(out.envelope, code)
    if field is not None:
        assert err["details"]["fields"] == [field]


@pytest.mark.parametrize(("data", "code", "field"), STRICT_CASES[:5])
def test_strict_enums_inside_oneof_on_the_python_engine(
    tmp_path: Path, data: dict[str, Any], code: str | None, field: str | None
) -> None:
    """The same judgement where jsonschema-rs is missing (the pure-Python engine), through `cogn check --module`."""
    module = strict_module(tmp_path)
    doc = tmp_path / "answer.json"
    doc.write_text(json.dumps(strict_answer(**data)), encoding="utf-8")
    proc = run_cogn(
        ["check", str(doc), "--module", str(module.path), "--json"],
        tmp_path,
        extra_env={"COGTUI_SCHEMA_ENGINE": "jsonschema"},
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = {v["code"] for v in checked(proc.stdout)["violations"]}
    assert code in found and ({"E3005", "E3001"} - {code}).isdisjoint(found), found


# ---------------------------------------------------------------- error codes the model reports


def test_a_declared_module_code_passes_through() -> None:
    out = postprocess(model_failure("E5001"), PATCHER)
    assert out.envelope["error"]["code"] == "E5001" and out.warnings == []


def test_an_undeclared_module_code_is_replaced_and_flagged() -> None:
    out = postprocess(model_failure("E5009"), PATCHER)
    err = out.envelope["error"]
    assert err["code"] == "E4000" and err["details"]["module_code"] == "E5009"
    assert any("E5009" in w and "error_codes" in w for w in out.warnings)


def test_cogn_check_flags_an_undeclared_module_code(tmp_path: Path) -> None:
    doc = tmp_path / "failure.json"
    for code, flagged in (("E5009", True), ("E5001", False)):
        doc.write_text(json.dumps(model_failure(code)), encoding="utf-8")
        proc = run_cogn(["check", str(doc), "--module", str(MODULES / "json-patch-generator"), "--json"], tmp_path)
        out = checked(proc.stdout)
        assert out["valid"] is True, out
        assert any("E5009" in w["message"] for w in out.get("warnings", [])) is flagged, out
    proc = run_cogn(["check", str(doc), "--module", str(MODULES / "json-patch-generator")], tmp_path)
    assert "E5009" not in proc.stdout  # the declared E5001 was last: no warning
    doc.write_text(json.dumps(model_failure("E5009")), encoding="utf-8")
    proc = run_cogn(["check", str(doc), "--module", str(MODULES / "json-patch-generator")], tmp_path)
    assert "warning" in proc.stdout and "E5009" in proc.stdout and "error_codes" in proc.stdout


@pytest.mark.parametrize(("legacy", "numeric"), [("INVALID_INPUT", "E1001"), ("BEHAVIOR_CHANGE_REQUIRED", "E2005")])
def test_a_legacy_code_from_the_model_is_normalised(legacy: str, numeric: str) -> None:
    out = postprocess(model_failure(legacy), REVIEWER)
    assert out.envelope["error"]["code"] == numeric
    assert out.envelope["error"]["details"]["legacy_code"] == legacy


def test_legacy_and_numeric_codes_both_satisfy_an_error_schema(tmp_path: Path) -> None:
    files = clean_v22()
    schema = copy.deepcopy(files["schema.json"])
    assert isinstance(schema, dict)
    schema["error"] = {
        "type": "object",
        "required": ["code", "message"],
        "properties": {
            "code": {"enum": ["PARSE_ERROR", "INVALID_INPUT", "INTERNAL_ERROR"]},
            "message": {"type": "string"},
        },
    }
    files["schema.json"] = schema
    module = load_module(make_module(tmp_path, files))
    for code in ("E1001", "INVALID_INPUT", "E1000"):
        assert check_document(model_failure(code), "envelope", module).valid, code
    assert not check_document(model_failure("E2001"), "envelope", module).valid  # no legacy twin in the enum
    runtime = failure("PARSE_ERROR", "not JSON")
    assert runtime["error"]["code"] == "E1000" and runtime["error"]["details"]["legacy_code"] == "PARSE_ERROR"
    assert check_document(runtime, "envelope", module).valid


# ---------------------------------------------------------------- tolerated shapes


def test_an_extra_top_level_field_is_dropped_with_a_warning() -> None:
    _, expected = golden("code-reviewer")
    answer = {**model_answer(expected), "reasoning_trace": "I thought hard", "status": "done"}
    out = postprocess(answer, REVIEWER)
    assert out.envelope["ok"] is True and "reasoning_trace" not in out.envelope and "status" not in out.envelope
    assert sum("dropped" in w for w in out.warnings) == 2
    verdict = check_document(answer, "envelope", REVIEWER)
    assert verdict.valid and {w.path for w in verdict.warnings} == {("reasoning_trace",), ("status",)}


@pytest.mark.parametrize(
    ("risk", "level"), [({"level": "low", "why": "local"}, "low"), ({"custom": "legal", "reason": "r"}, "medium")]
)
def test_an_object_risk_is_normalised_with_a_warning(risk: dict[str, Any], level: str) -> None:
    _, expected = golden("code-reviewer")
    answer = model_answer(expected)
    answer["meta"]["risk"] = risk
    assert check_document(answer, "envelope", REVIEWER).valid  # the meta schema's string enum sees the level
    out = postprocess(answer, REVIEWER)
    assert out.envelope["ok"] is True and out.envelope["meta"]["risk"] == level
    assert any("object" in w for w in out.warnings)


async def test_an_extra_field_through_a_real_provider_is_no_failed_run(
    llm_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_keys(monkeypatch)
    inp, expected = golden("code-reviewer")
    llm_server.enqueue(json.dumps({**model_answer(expected), "debug": {"tokens": 5}}))
    _, result, _ = await collect(REVIEWER, inp, options(provider("openai", llm_server)))
    assert result.ok and "debug" not in result.envelope
    assert 'top-level field "debug" is not part of the envelope and was dropped' in result.warnings


# ---------------------------------------------------------------- the meta of a runtime failure


@pytest.mark.parametrize("code", ["E2010", "E2003", "E2011", "E1001", "E3001", "E4001"])
def test_runtime_failures_claim_no_confidence(code: str) -> None:
    env = failure(code, "the  stream\nbroke off   after 12 chunks")
    assert env["meta"] == {"confidence": 0.0, "risk": "high", "explain": "the stream broke off after 12 chunks"}


def test_a_long_message_gives_an_explain_within_280() -> None:
    env = failure("E2010", "x" * 1000)
    assert len(env["meta"]["explain"]) == 280
