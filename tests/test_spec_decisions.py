"""The decisions of docs/spec-decisions.md that have no better home: ENV-1, STREAM-6, ENV-2, ENV-6, CODE-1, ENV-3."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogtui.core.module.loader import load_module
from cogtui.core.rules.document_checker import check_document
from cogtui.core.run.normalize import repair, wrap_v21
from cogtui.core.run.postprocess import postprocess

MODULES = Path(__file__).resolve().parents[1] / "modules"


def _env(**meta: Any) -> dict[str, Any]:
    base = {"confidence": 0.95, "risk": "low", "explain": "fine"}
    base.update(meta)
    return {"ok": True, "meta": base, "data": {"rationale": "because"}}


def test_explain_280_is_the_limit_everywhere() -> None:
    assert check_document(_env(explain="x" * 280)).valid
    bad = check_document(_env(explain="x" * 281))
    assert [v.rule for v in bad.violations] == ["meta.explain.length"]


def test_explain_counts_code_points_not_bytes() -> None:
    # 280 CJK characters are 840 UTF-8 bytes but within the limit.
    assert check_document(_env(explain="中" * 280)).valid


def test_explain_wrap_copies_200_and_repair_truncates_to_280() -> None:
    wrapped = wrap_v21({"rationale": "r" * 500, "confidence": 0.7})
    assert wrapped["meta"]["explain"] == "r" * 200
    fixed, notes = repair(_env(explain="e" * 300), None, None)
    assert fixed["meta"]["explain"] == "e" * 280
    assert any("truncated" in n for n in notes)


def test_confidence_null_only_in_meta_chunk() -> None:
    meta_chunk = {"ok": True, "streaming": True, "session_id": "s1", "meta": {"confidence": None}}
    assert check_document(meta_chunk, "chunk").valid
    final = {"final": True, "meta": {"confidence": None, "risk": "low", "explain": "x"}, "data": {"rationale": "r"}}
    assert "meta.confidence.type" in {v.rule for v in check_document(final, "chunk").violations}
    assert not check_document(_env(confidence=None)).valid


def test_exec_threshold() -> None:
    module = load_module(MODULES / "json-patch-generator")
    test = module.tests[0]
    answer = dict(test.expected)
    for conf, risk, ok in ((0.9, "low", True), (0.89, "low", False), (0.95, "medium", False), (0.99, "none", True)):
        env = {**answer, "meta": {**answer["meta"], "confidence": conf, "risk": risk}}
        out = postprocess(env, module).envelope
        assert out["ok"] is ok, (conf, risk, out.get("error"))
        if not ok:
            assert out["error"]["code"] == "E2001"
            assert out["partial_data"] == answer["data"]


def test_loosest_insight_limit_without_module_is_20() -> None:
    def with_insights(n: int) -> dict[str, Any]:
        env = _env()
        env["data"]["extensions"] = {"insights": [{"text": f"i{i}"} for i in range(n)]}
        return env

    assert check_document(with_insights(20)).valid
    assert check_document(with_insights(21)).codes == ["E3004"]


def test_error_codes_accept_legacy_and_module_codes() -> None:
    for code in ("E1001", "PARSE_ERROR", "E5001", "BEHAVIOR_CHANGE_REQUIRED"):
        env: dict[str, Any] = {
            "ok": False,
            "meta": {"confidence": 0.0, "risk": "high", "explain": "x"},
            "error": {"code": code, "message": "m"},
        }
        assert check_document(env).valid, code
    env["error"]["code"] = "not a code"
    assert not check_document(env).valid


def test_risk_object_forms() -> None:
    """ENV-3: the level or extensible object forms are valid; anything else is not."""
    assert check_document(_env(risk={"custom": "severe", "reason": "r"})).valid
    assert check_document(_env(risk={"level": "low", "source": "changes"})).valid
    assert not check_document(_env(risk={"reason": "r"})).valid
    assert not check_document(_env(risk={"level": "critical"})).valid
    assert not check_document(_env(risk="critical")).valid
