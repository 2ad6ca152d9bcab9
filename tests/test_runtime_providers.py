"""Both provider protocols through their real clients (anthropic SDK, httpx) against tests/llmserver.py.

Model misbehaviour (prose, malformed JSON, v2.1 payloads, overflow, custom
enums), transport failures (disconnect, 429/529, silence, refused
connections), media, and secrets. Every run's root stream must also pass
check_stream, and no API key may appear in anything the runtime returns.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from llmserver import disconnect_after, error, silence_after_headers, text
from rtkit import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    PROTOCOLS,
    assert_failure,
    assert_valid_success,
    collect,
    example,
    free_port,
    golden,
    model_answer,
    options,
    provider,
    set_keys,
    user_text,
)

from cogtui.core.rules.chunk_rules import check_stream
from cogtui.core.run.providers.anthropic.provider import AnthropicProvider
from cogtui.core.run.providers.openai.provider import OpenAIProvider

both = pytest.mark.parametrize("proto", PROTOCOLS)

REVIEWER = example("code-reviewer")
REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
RATIONALE = REVIEW_OUT["data"]["rationale"]


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


async def run(
    srv: Any, proto: str, *replies: Any, module: Any = REVIEWER, input_value: Any = REVIEW_IN, **opts: Any
) -> tuple[list[dict[str, Any]], Any]:
    srv.enqueue(*replies)
    chunks, result, _ = await collect(module, input_value, options(provider(proto, srv), **opts))
    assert check_stream(chunks, module) == [], [v.message for v in check_stream(chunks, module)]
    dumped = json.dumps(result.envelope) + json.dumps(chunks)
    assert ANTHROPIC_KEY not in dumped and OPENAI_KEY not in dumped
    return chunks, result


def rationale_first() -> str:
    """The code-reviewer answer with data.rationale as the first data field, so it streams early."""
    answer = model_answer(REVIEW_OUT)
    answer["data"] = {"rationale": RATIONALE, **{k: v for k, v in answer["data"].items() if k != "rationale"}}
    return json.dumps(answer, indent=2)


def assert_sent_key(srv: Any, proto: str) -> None:
    key = ANTHROPIC_KEY if proto == "anthropic" else OPENAI_KEY
    for req in srv.requests:
        assert req.headers["authorization"] == f"Bearer {key}"  # used on the wire, and only there
        assert key.encode() not in req.raw_body


# ---------------------------------------------------------------- what models do


@both
async def test_prose_around_json(llm_server: Any, proto: str) -> None:
    body = "Here is my review.\n\n" + json.dumps(model_answer(REVIEW_OUT)) + "\n\nHope this helps!"
    chunks, result = await run(llm_server, proto, text(body, chunk_size=17))
    assert_valid_success(result.envelope, REVIEWER)
    assert result.envelope["data"] == REVIEW_OUT["data"]
    assert result.usage and result.usage["output_tokens"] > 0 and chunks[-1]["usage"] == result.usage
    assert_sent_key(llm_server, proto)


@both
async def test_malformed_json_gets_one_retry_then_e1000(llm_server: Any, proto: str) -> None:
    bad = '{"ok": true, "meta": {"confidence": 0.9,, "risk": low}, "data": }'
    _, result = await run(llm_server, proto, bad, bad + " again", fixes=frozenset({"corrective_retry"}))
    err = assert_failure(result.envelope, "E1000")
    assert err["details"]["raw_output"] == bad + " again"
    assert len(llm_server.requests) == 2


@both
async def test_v21_payload(llm_server: Any, proto: str) -> None:
    module = example("api-naming-reviewer")
    payload = json.loads((module.path / "examples/output.json").read_text(encoding="utf-8"))
    inp = json.loads((module.path / "examples/input.json").read_text(encoding="utf-8"))
    _, result = await run(llm_server, proto, json.dumps(payload), module=module, input_value=inp)
    assert_valid_success(result.envelope, module)
    assert result.envelope["meta"]["explain"] == payload["rationale"][:200]
    assert result.envelope["meta"]["risk"] == "none" and result.envelope["data"] == payload


@both
async def test_too_many_insights(llm_server: Any, proto: str) -> None:
    answer = model_answer(REVIEW_OUT)
    answer["data"]["extensions"]["insights"] = [{"text": f"t{i}", "suggested_mapping": f"m{i}"} for i in range(9)]
    chunks, result = await run(llm_server, proto, json.dumps(answer))
    assert_failure(result.envelope, "E3004")
    assert chunks[-1]["error"]["code"] == "E3004" and len(chunks[-1]["partial_data"]["extensions"]["insights"]) == 9


@both
async def test_custom_enum_values(llm_server: Any, proto: str) -> None:
    inp, expected = golden("code-reviewer", "case2")
    _, result = await run(llm_server, proto, json.dumps(model_answer(expected)), input_value=inp)
    assert_valid_success(result.envelope, REVIEWER)
    assert result.envelope["data"] == expected["data"]


# ---------------------------------------------------------------- transport failures


@both
async def test_mid_stream_disconnect_is_e2010_with_partial_data(llm_server: Any, proto: str) -> None:
    body = rationale_first()
    cut = body.index(RATIONALE[:40]) + 120
    chunks, result = await run(llm_server, proto, disconnect_after(body, cut, chunk_size=9))
    assert_failure(result.envelope, "E2010")
    partial = result.envelope["partial_data"]["rationale"]
    assert partial and RATIONALE.startswith(partial) and len(partial) < len(RATIONALE)
    assert chunks[-1]["ok"] is False and chunks[-1]["partial_data"] == result.envelope["partial_data"]
    assert len(llm_server.requests) == 1  # text had arrived: never retried


@both
async def test_silence_after_data_is_e2011_with_partial_data(llm_server: Any, proto: str) -> None:
    body = rationale_first()
    first = body.index(RATIONALE[:40]) + 60
    chunks, result = await run(llm_server, proto, text(body, chunk_size=first, delay=30), stream_timeout=0.5)
    assert_failure(result.envelope, "E2011")
    partial = result.envelope["partial_data"]["rationale"]
    assert partial and RATIONALE.startswith(partial)
    assert chunks[-1]["error"]["code"] == "E2011" and chunks[-1]["partial_data"]["rationale"] == partial


@both
async def test_429_then_success(llm_server: Any, proto: str) -> None:
    reply = text(json.dumps(model_answer(REVIEW_OUT)), input_tokens=11, output_tokens=5)
    chunks, result = await run(llm_server, proto, error(429), reply)
    assert_valid_success(result.envelope, REVIEWER)
    assert len(llm_server.requests) == 2 and result.attempts == 2
    assert [c["progress"]["stage"] for c in chunks if "progress" in c] == ["retry"]
    assert result.usage == {
        "input_tokens": 11,
        "output_tokens": 5,
        "total_tokens": 16,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
    }


@both
async def test_usage_counts_every_call_of_the_run(llm_server: Any, proto: str) -> None:
    first = text("Let me think about this diff first...", input_tokens=100, output_tokens=7)
    second = text(json.dumps(model_answer(REVIEW_OUT)), input_tokens=150, output_tokens=40)
    chunks, result = await run(llm_server, proto, first, second, fixes=frozenset({"corrective_retry"}))
    assert result.ok and len(llm_server.requests) == 2  # the corrective retry (opt-in, D51)
    assert result.usage == {
        "input_tokens": 250,
        "output_tokens": 47,
        "total_tokens": 297,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
    }
    assert chunks[-1]["usage"] == result.usage


@both
async def test_529_three_times_is_e4001(llm_server: Any, proto: str) -> None:
    _, result = await run(llm_server, proto, error(529), error(529), error(529), json.dumps(model_answer(REVIEW_OUT)))
    err = assert_failure(result.envelope, "E4001")
    assert err["details"]["attempts"] == 3 and err["details"]["status"] == 529
    assert len(llm_server.requests) == 3 and llm_server.pending == 1


@both
async def test_401_is_e4001_and_not_retried(llm_server: Any, proto: str) -> None:
    _, result = await run(llm_server, proto, error(401), json.dumps(model_answer(REVIEW_OUT)))
    err = assert_failure(result.envelope, "E4001")
    assert err["details"]["status"] == 401 and len(llm_server.requests) == 1


@both
async def test_a_key_echoed_by_the_server_is_masked(llm_server: Any, proto: str) -> None:
    key = ANTHROPIC_KEY if proto == "anthropic" else OPENAI_KEY
    _, result = await run(llm_server, proto, error(401, message=f"Incorrect API key provided: {key}."))
    err = assert_failure(result.envelope, "E4001")
    assert "Incorrect API key provided: [redacted]." in err["message"]


@both
async def test_silence_is_e2011(llm_server: Any, proto: str) -> None:
    chunks, result = await run(llm_server, proto, silence_after_headers(30), stream_timeout=0.5)
    assert_failure(result.envelope, "E2011")
    assert len(llm_server.requests) == 1 and "partial_data" not in chunks[-1]


@both
async def test_heartbeats_during_silence(llm_server: Any, proto: str) -> None:
    reply = silence_after_headers(0.6, then=text(json.dumps(model_answer(REVIEW_OUT))))
    chunks, result = await run(llm_server, proto, reply, heartbeat=0.1, stream_timeout=5)
    assert_valid_success(result.envelope, REVIEWER)
    beats = [i for i, c in enumerate(chunks) if c == {}]
    assert len(beats) >= 2
    first_delta = next(i for i, c in enumerate(chunks) if "chunk" in c)
    assert beats[0] < first_delta  # emitted while the provider was silent


@both
async def test_connection_refused_is_e4001(proto: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    prov = (
        AnthropicProvider(model="claude-test-model", base_url=url)
        if proto == "anthropic"
        else OpenAIProvider(model="gpt-test-model", base_url=url + "/v1")
    )
    chunks, result, _ = await collect(REVIEWER, REVIEW_IN, options(prov))
    err = assert_failure(result.envelope, "E4001")
    assert err["details"]["attempts"] == 3
    assert check_stream(chunks, REVIEWER) == []
    assert ANTHROPIC_KEY not in json.dumps(result.envelope) and OPENAI_KEY not in json.dumps(result.envelope)


@both
async def test_missing_api_key(llm_server: Any, proto: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    llm_server.enqueue(json.dumps(model_answer(REVIEW_OUT)))
    _, result, _ = await collect(REVIEWER, REVIEW_IN, options(provider(proto, llm_server)))
    if proto == "anthropic":
        err = assert_failure(result.envelope, "E4001")
        assert "ANTHROPIC_API_KEY" in err["message"] and llm_server.requests == []
    else:  # local OpenAI-compatible servers need no key: the request goes out without one
        assert result.ok and "authorization" not in llm_server.last_request.headers


# ---------------------------------------------------------------- media


AUDITOR = example("screenshot-auditor")
PNG = (AUDITOR.path / "assets/login-form.png").read_bytes()


@both
async def test_image_input_reaches_the_model(llm_server: Any, proto: str) -> None:
    inp, expected = golden("screenshot-auditor")
    _, result = await run(llm_server, proto, json.dumps(model_answer(expected)), module=AUDITOR, input_value=inp)
    assert_valid_success(result.envelope, AUDITOR)
    req = llm_server.last_request
    if proto == "anthropic":
        content = req.body["messages"][0]["content"]
        image = next(b for b in content if b["type"] == "image")
        assert image["source"]["type"] == "base64" and image["source"]["media_type"] == "image/png"
        assert base64.b64decode(image["source"]["data"]) == PNG
    else:
        parts = req.body["messages"][1]["content"]
        url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        prefix = "data:image/png;base64,"
        assert url.startswith(prefix) and base64.b64decode(url[len(prefix) :]) == PNG
    text_part = user_text(req)
    assert "image/png" in text_part and "$MEDIA_INPUTS" not in text_part  # the media note replaced the marker


async def test_no_vision_is_e4011_without_a_request(llm_server: Any) -> None:
    """vision: false is an OpenAI-compatible setting (a local text-only model); Anthropic models take images."""
    inp, expected = golden("screenshot-auditor")
    llm_server.enqueue(json.dumps(model_answer(expected)))
    _, result, _ = await collect(AUDITOR, inp, options(provider("openai", llm_server, vision=False)))
    err = assert_failure(result.envelope, "E4011")
    assert err["details"]["supported"] == [] and llm_server.requests == []


def test_credentials_in_a_base_url_are_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtui.core.run.providers.base import ProviderError

    err = ProviderError("E4001", "connection to https://alice:s3cret@llm.example/v1 failed")
    assert "s3cret" not in err.message and "alice" not in str(err) and "https://***@llm.example/v1" in err.message
