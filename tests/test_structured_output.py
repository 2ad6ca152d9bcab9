"""Structured output (issue 14 item 3, RUN-4 to RUN-6): the response schema sent, the fallback, what is recorded.

Runs go through the real anthropic SDK and httpx to tests/llmserver.py, which records every request
(`calls()`, `RecordedRequest.param`): the tests read what was sent and count the model calls.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from llmserver import error
from rtkit import assert_failure, copy_module, example, golden, model_answer, options, provider, set_keys

from cogtui.core.history.run_record import to_record
from cogtui.core.history.store import History
from cogtui.core.module.loader import load_module
from cogtui.core.module.model import Module
from cogtui.core.module.response_schema import response_schema
from cogtui.core.run.golden_runner import run_case
from cogtui.core.run.runner import run_module

REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
REVIEWER = example("code-reviewer")  # runtime_requirements.structured_output: true


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def with_requirement(tmp_path: Path, value: Any, schema_edit: Any = None) -> Module:
    """code-reviewer with runtime_requirements.structured_output set to `value` (None removes it)."""
    root = copy_module(tmp_path, "code-reviewer", f"reviewer-{value}".lower())
    man = yaml.safe_load((root / "module.yaml").read_text(encoding="utf-8"))
    man["runtime_requirements"].pop("structured_output", None)
    if value is not None:
        man["runtime_requirements"]["structured_output"] = value
    (root / "module.yaml").write_text(yaml.safe_dump(man, sort_keys=False), encoding="utf-8")
    if schema_edit is not None:
        schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
        schema_edit(schema)
        (root / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    return load_module(root)


async def run(srv: Any, module: Module, proto: str, *replies: Any) -> Any:
    srv.enqueue(*(r if not isinstance(r, dict) else json.dumps(r) for r in replies))
    return await run_module(module, REVIEW_IN, options(provider(proto, srv)))


def answer_with_nulls() -> dict[str, Any]:
    """What a model under strict json_schema writes: null for every optional property it leaves out."""
    out = model_answer(REVIEW_OUT)
    out["error"] = None
    out["data"]["strengths"] = None
    out["data"]["extensions"] = None
    out["data"]["issues"][0]["suggestion"] = None
    return out


# ---------------------------------------------------------------- what is sent


async def test_openai_gets_the_envelope_as_a_strict_json_schema(llm_server: Any) -> None:
    result = await run(llm_server, REVIEWER, "openai", answer_with_nulls())
    (call,) = llm_server.calls("openai")
    sent = call.param("response_format")
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    assert sent["json_schema"]["name"] == "envelope"
    assert sent["json_schema"]["schema"] == response_schema(REVIEWER, "json_schema").schema
    # The nulls strict mode made the model write are gone; the answer is the module's contract.
    assert result.ok, result.envelope
    assert "strengths" not in result.envelope["data"] and "suggestion" not in result.envelope["data"]["issues"][0]
    assert "error" not in result.envelope
    record = result.envelope["meta"]["structured_output"]
    assert record["path"] == "json_schema" and "maxLength" in record["dropped"]
    assert "minimum" not in record["dropped"]  # OpenAI enforces it
    assert any(w.startswith("structured output (json_schema)") and "maxLength" in w for w in result.warnings)


async def test_anthropic_gets_the_envelope_as_output_config(llm_server: Any) -> None:
    result = await run(llm_server, REVIEWER, "anthropic", model_answer(REVIEW_OUT))
    (call,) = llm_server.calls("anthropic")
    assert call.param("output_config") == {
        "format": {"type": "json_schema", "schema": response_schema(REVIEWER, "output_config").schema}
    }
    assert result.ok, result.envelope
    record = result.envelope["meta"]["structured_output"]
    assert record["path"] == "output_config" and {"minimum", "maxLength"} <= set(record["dropped"])


def test_the_schemas_are_provider_compatible() -> None:
    strict = response_schema(REVIEWER, "json_schema").schema
    loose = response_schema(REVIEWER, "output_config").schema
    assert strict is not None and loose is not None

    def objects(node: Any) -> list[dict[str, Any]]:
        found = []
        if isinstance(node, dict):
            if node.get("type") == "object":
                found.append(node)
            for v in node.values():
                found += objects(v)
        elif isinstance(node, list):
            for v in node:
                found += objects(v)
        return found

    assert all(o["additionalProperties"] is False for o in objects(strict) + objects(loose))
    assert all(sorted(o["required"]) == sorted(o["properties"]) for o in objects(strict))
    issue = strict["properties"]["data"]["anyOf"][0]["properties"]["issues"]["items"]
    assert issue["properties"]["line"] == {
        "anyOf": [{"type": "integer", "minimum": 1, "description": "Line in the new file."}, {"type": "null"}]
    }
    loose_issue = loose["properties"]["data"]["properties"]["issues"]["items"]
    assert loose_issue["required"] == ["file", "category", "severity", "title", "detail"]
    assert "minimum" not in loose_issue["properties"]["line"]
    assert strict["$defs"]["extensions"]["additionalProperties"] is False


def test_a_schema_that_cannot_be_expressed_gives_a_reason(tmp_path: Path) -> None:
    def open_object(schema: dict[str, Any]) -> None:
        schema["data"]["properties"]["context"] = {"type": "object"}

    module = with_requirement(tmp_path, None, open_object)
    converted = response_schema(module, "json_schema")
    assert converted.schema is None and "data/context" in converted.reason and "any keys" in converted.reason


def test_recursion_is_kept_for_json_schema_and_refused_for_output_config(tmp_path: Path) -> None:
    def tree(schema: dict[str, Any]) -> None:
        schema["$defs"]["node"] = {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["name"],
        }
        schema["data"]["properties"]["tree"] = {"$ref": "#/$defs/node"}

    module = with_requirement(tmp_path, None, tree)
    strict = response_schema(module, "json_schema")
    assert strict.schema is not None and strict.schema["$defs"]["node"]["properties"]["children"]["anyOf"][0][
        "items"
    ] == {"$ref": "#/$defs/node"}
    loose = response_schema(module, "output_config")
    assert loose.schema is None and "recursive" in loose.reason


# ---------------------------------------------------------------- the fallback


@pytest.mark.parametrize("proto", ["openai", "anthropic"])
async def test_a_refused_schema_is_dropped_once_and_the_run_goes_on(
    tmp_path: Path, llm_server: Any, proto: str
) -> None:
    module = with_requirement(tmp_path, None)  # structured output preferred: the fallback is allowed
    param = "response_format" if proto == "openai" else "output_config"
    result = await run(
        llm_server,
        module,
        proto,
        error(400, message="response_format json_schema is not supported"),
        model_answer(REVIEW_OUT),
    )
    calls = llm_server.calls(proto)
    assert len(calls) == 2 and llm_server.pending == 0
    assert calls[0].param(param) is not None and calls[1].param(param) is None
    assert result.ok, result.envelope
    meta = result.envelope["meta"]
    assert meta["structured_output"] == {"path": "prompt", "dropped": [], "refused": param_path(proto)}
    assert meta["model_calls"] == 2
    assert any("refused the response schema" in w and "not supported" in w for w in meta["warnings"])


def param_path(proto: str) -> str:
    return "json_schema" if proto == "openai" else "output_config"


async def test_a_second_refusal_is_the_providers_error_not_another_call(tmp_path: Path, llm_server: Any) -> None:
    module = with_requirement(tmp_path, None)
    result = await run(llm_server, module, "openai", error(400), error(400), model_answer(REVIEW_OUT))
    assert_failure(result.envelope, "E1004")
    assert len(llm_server.calls()) == 2 and llm_server.pending == 1


@pytest.mark.parametrize("proto", ["openai", "anthropic"])
async def test_required_structured_output_refused_is_e4007_without_a_second_call(llm_server: Any, proto: str) -> None:
    refusal = error(400, message="output_config.format: structured outputs are not supported by this model")
    result = await run(llm_server, REVIEWER, proto, refusal)
    err = assert_failure(result.envelope, "E4007")
    assert err["details"]["field"] == "runtime_requirements.structured_output"
    assert "refused" in err["message"] and len(llm_server.calls()) == 1
    # A 400 about something else keeps its own code: the schema is not blamed for it, nor dropped.
    other = await run(
        llm_server, REVIEWER, proto, error(400, message="max_tokens is too large"), model_answer(REVIEW_OUT)
    )
    assert_failure(other.envelope, "E1004")
    assert len(llm_server.calls()) == 2 and llm_server.pending == 1


async def test_required_but_inexpressible_is_e4007_before_any_call(tmp_path: Path, llm_server: Any) -> None:
    module = with_requirement(tmp_path, True, lambda s: s["data"]["properties"].update(context={"type": "object"}))
    result = await run(llm_server, module, "openai", model_answer(REVIEW_OUT))
    err = assert_failure(result.envelope, "E4007")
    assert "cannot be sent" in err["message"] and llm_server.calls() == []


async def test_structured_output_false_sends_no_schema(tmp_path: Path, llm_server: Any) -> None:
    module = with_requirement(tmp_path, False)
    for proto in ("openai", "anthropic"):
        result = await run(llm_server, module, proto, model_answer(REVIEW_OUT))
        assert result.ok and result.envelope["meta"]["structured_output"] == {"path": "prompt", "dropped": []}
    openai_call, anthropic_call = llm_server.calls()
    assert openai_call.param("response_format") is None and anthropic_call.param("output_config") is None


# ---------------------------------------------------------------- what is recorded


async def test_the_path_is_kept_in_history_and_ignored_by_golden_tests(tmp_path: Path, llm_server: Any) -> None:
    result = await run(llm_server, REVIEWER, "openai", answer_with_nulls())
    with History(tmp_path / "history.db") as history:
        stored = history.get(history.record(to_record(REVIEWER, REVIEW_IN, None, result)))
    assert stored is not None and stored.envelope["meta"]["structured_output"]["path"] == "json_schema"
    llm_server.enqueue(json.dumps({**model_answer(REVIEW_OUT), "error": None}))
    case = next(t for t in REVIEWER.tests if t.name == "case1")
    outcome = await run_case(REVIEWER, case, options(provider("openai", llm_server)))
    assert outcome.passed, outcome
