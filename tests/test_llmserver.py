"""Proves tests/llmserver.py against the real anthropic SDK and plain httpx (no mocks)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import httpx2  # the anthropic SDK's HTTP stack; its errors are NOT httpx's
import pytest

if TYPE_CHECKING:  # the tests import the SDK where they use it: every xdist worker collects this file, and
    import anthropic  # importing the SDK costs ~1.9 s of CPU, which a worker that runs none of these need not pay
    from anthropic.types import ImageBlockParam, MessageParam

from llmserver import (
    ScriptedLLMServer,
    disconnect_after,
    error,
    silence,
    silence_after_headers,
    silence_before_headers,
    text,
)

TIMEOUT = 0.5
SHORT_TIMEOUT = 0.3  # the other stall tests: keeps the file well under 5 s
USER: list[MessageParam] = [{"role": "user", "content": "hi"}]


@pytest.fixture
def srv() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server
    assert server.errors == []


def claude(srv: ScriptedLLMServer, **kw: Any) -> anthropic.Anthropic:
    import anthropic

    return anthropic.Anthropic(base_url=srv.base_url, api_key="test-key", max_retries=kw.pop("max_retries", 0), **kw)


def chat_url(srv: ScriptedLLMServer) -> str:
    return srv.base_url + "/v1/chat/completions"


def sse_data(lines: Iterator[str]) -> Iterator[str]:
    # A generator, so a disconnect test sees the events that arrived before the error.
    return (line[len("data: ") :] for line in lines if line.startswith("data: "))


# --------------------------------------------------------------------------- Anthropic


def test_anthropic_create_records_request(srv: ScriptedLLMServer) -> None:
    srv.enqueue(text("Hello there", input_tokens=12, output_tokens=3))
    image: ImageBlockParam = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    msg = claude(srv).messages.create(
        model="claude-test-1",
        max_tokens=64,
        system="be brief",
        messages=[{"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]}],
    )
    assert msg.content[0].type == "text" and msg.content[0].text == "Hello there"
    assert (msg.model, msg.stop_reason) == ("claude-test-1", "end_turn")
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (12, 3)
    req = srv.last_request
    assert (req.method, req.path, req.protocol, req.stream) == ("POST", "/v1/messages", "anthropic", False)
    # anthropic 2.x sends api_key as a Bearer token, not the x-api-key header of the 0.x SDKs.
    assert req.headers["authorization"] == "Bearer test-key" and "x-api-key" not in req.headers
    assert "anthropic-version" in req.headers
    assert req.body["system"] == "be brief" and req.model == "claude-test-1"
    assert req.body["messages"][0]["content"][1]["source"]["media_type"] == "image/png"


def test_anthropic_stream_text_and_usage(srv: ScriptedLLMServer) -> None:
    srv.enqueue(text("The quick brown fox", chunk_size=5, delay=0.01, input_tokens=11, output_tokens=7))
    with claude(srv).messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream:
        assert list(stream.text_stream) == ["The q", "uick ", "brown", " fox"]
        final = stream.get_final_message()
    assert final.content[0].type == "text" and final.content[0].text == "The quick brown fox"
    assert final.stop_reason == "end_turn"
    assert (final.usage.input_tokens, final.usage.output_tokens) == (11, 7)
    assert srv.last_request.stream is True


@pytest.mark.parametrize(
    ("status", "exc_name", "kind"),
    [
        (429, "RateLimitError", "rate_limit_error"),
        (529, "OverloadedError", "overloaded_error"),  # subclass of InternalServerError
        (500, "InternalServerError", "api_error"),
        (401, "AuthenticationError", "authentication_error"),
    ],
)
def test_anthropic_errors(srv: ScriptedLLMServer, status: int, exc_name: str, kind: str) -> None:
    import anthropic

    exc_type = getattr(anthropic, exc_name)
    srv.enqueue(error(status, message="scripted failure", retry_after=7 if status == 429 else None))
    with pytest.raises(exc_type) as info:
        claude(srv).messages.create(model="m", max_tokens=8, messages=USER)
    exc = info.value
    assert type(exc) is exc_type and isinstance(exc, anthropic.APIStatusError)
    assert exc.status_code == status
    assert exc.body == {
        "type": "error",
        "error": {"type": kind, "message": "scripted failure"},
        "request_id": exc.request_id,
    }
    if status == 529:
        assert isinstance(exc, anthropic.InternalServerError)
    if status == 429:
        assert exc.response.headers["retry-after"] == "7"


def test_anthropic_sdk_retry_honours_retry_after(srv: ScriptedLLMServer) -> None:
    srv.enqueue(error(429, retry_after=0.05), "recovered")
    msg = claude(srv, max_retries=1).messages.create(model="m", max_tokens=8, messages=USER)
    assert msg.content[0].type == "text" and msg.content[0].text == "recovered"
    assert len(srv.requests) == 2 and srv.pending == 0


def test_anthropic_stream_disconnect_raises_raw_httpx2_error(srv: ScriptedLLMServer) -> None:
    import anthropic

    srv.enqueue(disconnect_after("Hello broken world", 7, chunk_size=3))
    got: list[str] = []
    with (
        pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read") as info,
        claude(srv).messages.stream(model="m", max_tokens=8, messages=USER) as stream,
    ):
        got.extend(stream.text_stream)
    # Mid-stream failures escape the SDK unwrapped: not an anthropic.APIError, not an httpx error.
    assert not isinstance(info.value, (anthropic.APIError, httpx.HTTPError))
    assert "".join(got) == "Hello b"


def test_anthropic_nonstream_disconnect_is_connection_error(srv: ScriptedLLMServer) -> None:
    import anthropic

    srv.enqueue(disconnect_after("Hello broken world", 7))
    with pytest.raises(anthropic.APIConnectionError) as info:
        claude(srv).messages.create(model="m", max_tokens=8, messages=USER)
    assert type(info.value) is anthropic.APIConnectionError
    assert isinstance(info.value.__cause__, httpx2.RemoteProtocolError)


def test_anthropic_silence_before_headers_times_out(srv: ScriptedLLMServer) -> None:
    import anthropic

    srv.enqueue(silence(30))  # then a closed connection: a timeout error says the client's own timer fired
    with pytest.raises(anthropic.APITimeoutError) as info:
        claude(srv, timeout=TIMEOUT).messages.create(model="m", max_tokens=8, messages=USER)
    assert isinstance(info.value.__cause__, httpx2.ReadTimeout)


def test_anthropic_stall_after_headers_raises_raw_read_timeout(srv: ScriptedLLMServer) -> None:
    srv.enqueue(silence_after_headers(30, then=text("never sent")))  # the read timeout fires first
    with (
        claude(srv, timeout=SHORT_TIMEOUT).messages.stream(model="m", max_tokens=8, messages=USER) as stream,
        pytest.raises(httpx2.ReadTimeout),
    ):
        list(stream.text_stream)


def test_anthropic_silence_then_answer(srv: ScriptedLLMServer) -> None:
    srv.enqueue(
        silence_before_headers(0.1, then=text("late")),
        silence_after_headers(0.1, then=text("slow first token", chunk_size=4)),
    )
    client = claude(srv, timeout=5)
    first = client.messages.create(model="m", max_tokens=8, messages=USER).content[0]
    assert first.type == "text" and first.text == "late"
    with client.messages.stream(model="m", max_tokens=8, messages=USER) as stream:
        assert stream.get_final_text() == "slow first token"


def test_exhausted_script_fails_loudly(srv: ScriptedLLMServer) -> None:
    import anthropic

    with pytest.raises(anthropic.InternalServerError, match="script exhausted"):
        claude(srv).messages.create(model="m", max_tokens=8, messages=USER)


async def test_async_client_streams(srv: ScriptedLLMServer) -> None:
    import anthropic

    srv.enqueue(text("async works", chunk_size=4))
    client = anthropic.AsyncAnthropic(base_url=srv.base_url, api_key="test-key", max_retries=0)
    async with client.messages.stream(model="m", max_tokens=8, messages=USER) as stream:
        pieces = [t async for t in stream.text_stream]
    assert pieces == ["asyn", "c wo", "rks"]
    await client.close()


# --------------------------------------------------------------------------- OpenAI (plain httpx)


def test_openai_non_streaming(srv: ScriptedLLMServer) -> None:
    srv.enqueue(text("Bonjour", input_tokens=5, output_tokens=2))
    resp = httpx.post(
        chat_url(srv), headers={"Authorization": "Bearer sk-test"}, json={"model": "gpt-test", "messages": USER}
    )
    assert resp.status_code == 200
    data = resp.json()
    assert data["object"] == "chat.completion" and data["model"] == "gpt-test"
    assert data["choices"][0]["message"] == {"role": "assistant", "content": "Bonjour", "refusal": None}
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["usage"] == {
        "prompt_tokens": 5,
        "completion_tokens": 2,
        "total_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    req = srv.last_request
    assert req.protocol == "openai" and req.headers["authorization"] == "Bearer sk-test" and not req.stream


@pytest.mark.parametrize("include_usage", [False, True])
def test_openai_streaming(srv: ScriptedLLMServer, include_usage: bool) -> None:
    srv.enqueue(text("streamed reply", chunk_size=6, input_tokens=4, output_tokens=3))
    body: dict[str, Any] = {"model": "gpt-test", "messages": USER, "stream": True}
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    with (
        httpx.Client() as client,
        client.stream("POST", chat_url(srv), json=body, headers={"Authorization": "Bearer sk-test"}) as resp,
    ):
        assert resp.headers["content-type"].startswith("text/event-stream")
        datas = list(sse_data(resp.iter_lines()))
    assert datas[-1] == "[DONE]"
    chunks = [json.loads(d) for d in datas[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    with_choices = [c for c in chunks if c["choices"]]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in with_choices) == "streamed reply"
    assert [c["choices"][0]["finish_reason"] for c in with_choices][-2:] == [None, "stop"]
    usage_chunks = [c for c in chunks if not c["choices"]]
    if include_usage:
        assert [c["usage"] for c in usage_chunks] == [
            {
                "prompt_tokens": 4,
                "completion_tokens": 3,
                "total_tokens": 7,
                "prompt_tokens_details": {"cached_tokens": 0},
            }
        ]
    else:
        assert usage_chunks == [] and all("usage" not in c for c in chunks)
    assert srv.last_request.stream is True


def test_openai_rate_limit_and_same_reply_in_both_shapes(srv: ScriptedLLMServer) -> None:
    srv.enqueue(error(429, "rate_limit_error", "slow down", retry_after=2), error(529))
    resp = httpx.post(chat_url(srv), json={"model": "gpt-test", "messages": USER})
    assert resp.status_code == 429 and resp.headers["retry-after"] == "2"
    assert resp.json() == {"error": {"message": "slow down", "type": "rate_limit_error", "param": None, "code": None}}
    resp = httpx.post(chat_url(srv), json={"model": "gpt-test", "messages": USER})
    assert resp.status_code == 529 and resp.json()["error"]["type"] == "overloaded_error"


def test_openai_stream_disconnect(srv: ScriptedLLMServer) -> None:
    srv.enqueue(disconnect_after("partial answer", 7, chunk_size=2))
    got: list[str] = []
    body = {"model": "gpt-test", "messages": USER, "stream": True}
    with (
        pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"),
        httpx.stream("POST", chat_url(srv), json=body) as resp,
    ):
        for d in sse_data(resp.iter_lines()):
            assert d != "[DONE]"
            got.append(json.loads(d)["choices"][0]["delta"].get("content", ""))
    assert "".join(got) == "partial"


def test_openai_timeouts(srv: ScriptedLLMServer) -> None:
    srv.enqueue(silence_before_headers(30), silence_after_headers(30, then=text("never")))
    body = {"model": "gpt-test", "messages": USER, "stream": True}
    with httpx.Client(timeout=SHORT_TIMEOUT) as client:
        with pytest.raises(httpx.ReadTimeout):
            client.post(chat_url(srv), json=body)
        with client.stream("POST", chat_url(srv), json=body) as resp:
            assert resp.status_code == 200  # headers arrived, then the body stalls
            with pytest.raises(httpx.ReadTimeout):
                resp.read()


def test_unknown_path_is_404_and_keeps_script(srv: ScriptedLLMServer) -> None:
    srv.enqueue("kept")
    resp = httpx.post(srv.base_url + "/v1/completions", json={"prompt": "x"})
    assert resp.status_code == 404 and srv.pending == 1 and srv.last_request.protocol is None


# --------------------------------------------------------------------------- lifecycle


def test_stop_ends_stalled_and_idle_connections() -> None:
    before = set(threading.enumerate())
    server = ScriptedLLMServer().start()
    server.enqueue("warm-up", silence(30), silence_after_headers(30))
    idle = httpx.Client()  # keeps its keep-alive connection open across stop()
    assert idle.post(chat_url(server), json={"messages": USER}).status_code == 200
    outcomes: list[BaseException | None] = []

    def call(stream: bool) -> None:
        try:
            with httpx.Client(timeout=30) as c:
                c.post(chat_url(server), json={"messages": USER, "stream": stream}).read()
            outcomes.append(None)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion below
            outcomes.append(exc)

    threads = [threading.Thread(target=call, args=(s,)) for s in (False, True)]
    for t in threads:
        t.start()
    server.wait_for_requests(3)
    handlers = [t for t in threading.enumerate() if t.name.startswith("llmserver-conn-") and t not in before]
    server.stop(timeout=20)  # joins the handlers for up to 20 s: woken, they end at once, however loaded the machine
    # stop() woke both 30 s pauses and closed the idle connection: no handler of this server is left running.
    assert len(handlers) == 3 and not any(t.is_alive() for t in handlers)
    for t in threads:
        t.join(30)
    assert len(outcomes) == 2 and all(isinstance(o, httpx.RemoteProtocolError) for o in outcomes)
    idle.close()
    with pytest.raises(RuntimeError):
        server.base_url  # noqa: B018 - a stopped server has no URL
