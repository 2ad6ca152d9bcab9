"""Issue 10 §2: every provider failure carries the code error-codes.md names (CODE-4, CODE-5).

Real SDKs (anthropic, httpx) against tests/llmserver.py; raw protocol bytes
llmserver has no reply type for come from `Scripted` replies.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

import llmserver
from llmserver import RecordedRequest, Text, error
from rtkit import (
    PROTOCOLS,
    Scripted,
    allow_scripted,
    assert_failure,
    collect,
    example,
    golden,
    model_answer,
    options,
    provider,
    set_keys,
)

both = pytest.mark.parametrize("proto", PROTOCOLS)
REVIEWER = example("code-reviewer")
REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
ANSWER = json.dumps(model_answer(REVIEW_OUT), indent=2)


@pytest.fixture(autouse=True)
def _setup(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)
    allow_scripted(monkeypatch)


async def run(srv: Any, proto: str, *replies: Any) -> tuple[list[dict[str, Any]], Any]:
    srv.enqueue(*replies)
    chunks, result, _ = await collect(REVIEWER, REVIEW_IN, options(provider(proto, srv)))
    return chunks, result


def renderer(proto: str) -> Any:
    return llmserver.anthropic_text if proto == "anthropic" else llmserver.openai_text


def no_terminator(proto: str, body: str = ANSWER, keep_stop_reason: bool = False) -> Scripted:
    """A stream that ends cleanly (the chunked body is closed properly) but never sends message_stop / [DONE]."""

    def render(req: RecordedRequest) -> list[Any]:
        if keep_stop_reason and proto == "anthropic":
            return renderer(proto)(Text(body, chunk_size=40), req, None)[:-1]  # everything but message_stop
        return renderer(proto)(Text(body, chunk_size=40), req, len(body))

    return Scripted(render)


def inserted(proto: str, *events: bytes, upto: int | None = 0) -> Scripted:
    """`upto` characters of the answer, then `events`, then the stream ends (cleanly)."""

    def render(req: RecordedRequest) -> list[Any]:
        steps = renderer(proto)(Text(ANSWER, chunk_size=40), req, upto)
        return [*steps, *events]

    return Scripted(render)


# ---------------------------------------------------------------- a clean end without the terminator


@both
async def test_a_stream_without_its_terminator_is_e2010_without_a_second_call(llm_server: Any, proto: str) -> None:
    chunks, result = await run(llm_server, proto, no_terminator(proto), ANSWER)
    err = assert_failure(result.envelope, "E2010")
    assert ("message_stop" if proto == "anthropic" else "[DONE]") in err["message"]
    assert len(llm_server.requests) == 1 and llm_server.pending == 1
    assert result.envelope["partial_data"]["rationale"] == REVIEW_OUT["data"]["rationale"]
    assert chunks[-1]["error"]["code"] == "E2010"


async def test_anthropic_stop_reason_without_message_stop_is_still_e2010(llm_server: Any) -> None:
    _, result = await run(llm_server, "anthropic", no_terminator("anthropic", keep_stop_reason=True), ANSWER)
    assert_failure(result.envelope, "E2010")
    assert len(llm_server.requests) == 1


@both
async def test_an_empty_stream_without_terminator_is_e2010_and_not_retried(llm_server: Any, proto: str) -> None:
    _, result = await run(llm_server, proto, no_terminator(proto, body=""), ANSWER)
    assert_failure(result.envelope, "E2010")
    assert len(llm_server.requests) == 1


# ---------------------------------------------------------------- HTTP statuses


@both
@pytest.mark.parametrize(
    ("status", "code", "attempts"),
    [
        (500, "E4001", 3),
        (502, "E4001", 3),
        (503, "E4001", 3),
        (529, "E4001", 3),
        (429, "E4002", 3),
        (404, "E4001", 1),
        (403, "E4007", 1),
        (400, "E1004", 1),
        (422, "E1004", 1),
        (408, "E2002", 1),
        (409, "E4001", 1),
    ],
)
async def test_http_statuses_map_to_their_own_codes(
    llm_server: Any, proto: str, status: int, code: str, attempts: int
) -> None:
    replies = [error(status, message=f"scripted failure {status}")] * 3
    _, result = await run(llm_server, proto, *replies, ANSWER)
    err = assert_failure(result.envelope, code)
    assert f"scripted failure {status}" in err["message"]
    assert err["details"]["status"] == status and err["details"]["attempts"] == attempts
    assert len(llm_server.requests) == attempts


@both
@pytest.mark.parametrize(
    ("status", "advice"),
    [(401, "Check the API key"), (404, "Check the model name"), (500, "Check the provider's base URL")],
)
async def test_each_e4001_says_what_to_check(llm_server: Any, proto: str, status: int, advice: str) -> None:
    """E4001 covers a refused key, a missing model and a provider that is down: each with its own advice."""
    _, result = await run(llm_server, proto, *[error(status, message="scripted")] * 3, ANSWER)
    err = assert_failure(result.envelope, "E4001")
    assert err["suggestion"].startswith(advice), err["suggestion"]


# ---------------------------------------------------------------- errors and junk inside the stream


async def test_openai_sse_error_event_after_text_is_e2010_with_the_servers_message(llm_server: Any) -> None:
    event = b'event: error\ndata: {"message": "upstream exploded", "code": 502}\n\n'
    _, result = await run(llm_server, "openai", inserted("openai", event, upto=400), ANSWER)
    err = assert_failure(result.envelope, "E2010")
    assert "upstream exploded" in err["message"] and "Error" not in err["message"].split(":")[0]
    assert len(llm_server.requests) == 1


async def test_openai_sse_error_event_before_text_maps_like_its_status(llm_server: Any) -> None:
    event = b'event: error\ndata: {"message": "rate limited upstream", "type": "rate_limit_error"}\n\n'
    _, result = await run(llm_server, "openai", *[inserted("openai", event)] * 3, ANSWER)
    err = assert_failure(result.envelope, "E4002")
    assert "rate limited upstream" in err["message"] and len(llm_server.requests) == 3


def _junk(proto: str, payload: str) -> bytes:
    if proto == "anthropic":
        return f"event: content_block_delta\ndata: {payload}\n\n".encode()
    return f"data: {payload}\n\n".encode()


@both
@pytest.mark.parametrize("payload", ["{not json at all", "[]", '"text"', "17"])
@pytest.mark.parametrize("after_text", [False, True])
async def test_stream_data_that_is_no_json_object_is_a_provider_error(
    llm_server: Any, proto: str, payload: str, after_text: bool
) -> None:
    upto = 300 if after_text else 0
    bad = inserted(proto, _junk(proto, payload), upto=upto)
    _, result = await run(llm_server, proto, *[bad] * 3, ANSWER)
    code = "E2010" if after_text else "E4001"
    err = assert_failure(result.envelope, code)
    assert json.dumps(payload) in err["message"], err["message"]  # what the server sent, quoted as JSON (CODE-11)
    assert "Traceback" not in err["message"] and "exception" not in err.get("details", {})
    assert len(llm_server.requests) == (1 if after_text else 3)


# ---------------------------------------------------------------- the token limit


@both
async def test_output_cut_by_the_token_limit_is_e2003_with_partial_data(llm_server: Any, proto: str) -> None:
    rationale = REVIEW_OUT["data"]["rationale"]
    cut = ANSWER.index(json.dumps(rationale)) + len(json.dumps(rationale)) + 5
    chunks, result = await run(llm_server, proto, Text(ANSWER[:cut], chunk_size=40, stop_reason="max_tokens"), ANSWER)
    err = assert_failure(result.envelope, "E2003")
    assert err["details"]["stop_reason"] == ("max_tokens" if proto == "anthropic" else "length")
    assert result.envelope["partial_data"]["rationale"] == rationale
    assert len(llm_server.requests) == 1 and llm_server.pending == 1  # no corrective retry on a cut answer
    assert chunks[-1]["error"]["code"] == "E2003" and chunks[-1]["partial_data"] == result.envelope["partial_data"]


async def test_a_non_streamed_openai_answer_cut_by_length_is_e2003(llm_server: Any) -> None:
    body = json.dumps(
        {
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": ANSWER[:50]}, "finish_reason": "length"}
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 7},
        }
    ).encode()
    reply = Scripted(
        lambda req: [
            llmserver.Head(200, (("Content-Type", "application/json"), ("Content-Length", str(len(body)))), False),
            body,
        ]
    )
    _, result = await run(llm_server, "openai", reply, ANSWER)
    assert_failure(result.envelope, "E2003")
    assert len(llm_server.requests) == 1
