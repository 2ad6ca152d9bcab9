"""Provider failures the happy-path scripts do not show: bad keys, errors inside a 200 stream, malformed servers.

Everything goes through the real clients (anthropic SDK, httpx) against
tests/llmserver.py. Raw protocol bytes that llmserver has no reply type for
(an SSE `error` event, `data: []`) come from `Scripted` replies, rendered by
a hook around llmserver's own renderer; the SDKs themselves are never mocked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

import llmserver
from cli_json import document
from cli_json import envelope as printed_envelope
from llmserver import RecordedRequest, Text, text
from rtkit import (
    ANTHROPIC_KEY,
    MODULES,
    OPENAI_KEY,
    PROTOCOLS,
    Scripted,
    allow_scripted,
    assert_failure,
    assert_valid_success,
    cli_env,
    cogn,
    collect,
    example,
    golden,
    model_answer,
    options,
    provider,
    set_keys,
    sse,
)

from cogtui.core.rules.chunk_rules import check_stream
from cogtui.core.run.runner import CORRECTIVE, CORRECTIVE_EMPTY

RETRY = frozenset({"corrective_retry"})  # the opt-in second call (ENV-10)

both = pytest.mark.parametrize("proto", PROTOCOLS)
VAR = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}

REVIEWER = example("code-reviewer")
REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
ANSWER = json.dumps(model_answer(REVIEW_OUT))


@pytest.fixture(autouse=True)
def _setup(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)
    allow_scripted(monkeypatch)


async def run(srv: Any, proto: str, *replies: Any, **opts: Any) -> tuple[list[dict[str, Any]], Any]:
    srv.enqueue(*replies)
    chunks, result, _ = await collect(REVIEWER, REVIEW_IN, options(provider(proto, srv), **opts))
    assert check_stream(chunks, REVIEWER) == [], [v.message for v in check_stream(chunks, REVIEWER)]
    dumped = json.dumps(result.envelope) + json.dumps(chunks)
    assert ANTHROPIC_KEY not in dumped and OPENAI_KEY not in dumped
    return chunks, result


# ---------------------------------------------------------------- API keys with stray characters

SECRET_HEAD, SECRET_TAIL = "sk-live-c0ffee5ecret", "tail9d1b77aa"
TRIMMED = ["\r", "\n", "\r\n", " \u2028"]  # a .env written on Windows, a stray separator: trimmed, then used
REFUSED = ["é", "\r" + SECRET_TAIL, "\n" + SECRET_TAIL, "é" + SECRET_TAIL, "\u2028" + SECRET_TAIL]


def assert_no_secret(*texts: str | bytes) -> None:
    for blob in texts:
        raw = blob if isinstance(blob, bytes) else blob.encode("utf-8", "surrogatepass")
        assert SECRET_HEAD.encode() not in raw and SECRET_TAIL.encode() not in raw, raw[:2000]


def data_files(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


@both
@pytest.mark.parametrize("suffix", TRIMMED + REFUSED, ids=repr)
def test_a_key_with_stray_characters_never_leaks(tmp_path: Path, llm_server: Any, proto: str, suffix: str) -> None:
    """Through the CLI: a trimmed key works; other stray characters are E4001 before any request. Never shown or stored."""
    llm_server.enqueue(ANSWER)
    key = SECRET_HEAD + suffix
    env = cli_env(
        tmp_path,
        **{VAR[proto]: key, "ANTHROPIC_BASE_URL": llm_server.base_url, "OPENAI_BASE_URL": llm_server.openai_base_url},
    )
    inp = str(MODULES / "code-reviewer" / "tests" / "case1.input.json")
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", inp, "--provider", proto, "--json", env=env)
    envelope = printed_envelope(proc.stdout)
    history = cogn(tmp_path, "history", "--json", env=env)
    assert_no_secret(proc.stdout, proc.stderr, history.stdout, history.stderr, data_files(tmp_path / "data"))
    if suffix in TRIMMED:
        assert proc.returncode == 0 and envelope["ok"] is True, proc.stdout
        assert llm_server.last_request.headers["authorization"] == f"Bearer {SECRET_HEAD}"
    else:
        assert proc.returncode == 1
        err = assert_failure(envelope, "E4001")
        assert VAR[proto] in err["message"] and llm_server.requests == []
        assert document(history.stdout, "history")["items"][0]["error_code"] == "E4001"


@both
async def test_a_refused_key_is_e4001_in_the_runner(
    llm_server: Any, proto: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VAR[proto], SECRET_HEAD + "\r" + SECRET_TAIL)
    chunks, result = await run(llm_server, proto, ANSWER)
    err = assert_failure(result.envelope, "E4001")
    # Not retried: it cannot get better. Anthropic's key is checked before its SDK is loaded, so no call was tried.
    assert err["details"]["attempts"] == (0 if proto == "anthropic" else 1) and llm_server.requests == []
    assert_no_secret(json.dumps(result.envelope), json.dumps(chunks, ensure_ascii=False))


@pytest.mark.parametrize("suffix", ["\r" + SECRET_TAIL, "\n" + SECRET_TAIL, "é" + SECRET_TAIL, "\u2028" + SECRET_TAIL])
async def test_failure_masks_every_quoted_form_of_a_key(
    llm_server: Any, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What httpx/h11 really raise for such a header, and the other escapes, never survive failure()."""
    import httpx

    from cogtui.core.run.envelope_builder import failure
    from cogtui.core.run.providers.base import ProviderError

    key = SECRET_HEAD + suffix
    monkeypatch.setenv("OPENAI_API_KEY", key)
    try:
        async with httpx.AsyncClient() as client:
            await client.post(
                llm_server.openai_base_url + "/chat/completions", headers={"Authorization": f"Bearer {key}"}
            )
        raise AssertionError("httpx accepted the header")
    except (httpx.HTTPError, UnicodeError) as exc:
        raised = exc
    quoted = [str(raised), repr(raised), repr(key), repr(key.encode()), json.dumps(key), key]
    env = failure(
        "E4000",
        f"internal error: {raised}",
        explain=repr(raised),
        details={
            "exception": repr(raised),
            "forms": quoted,
            "nested": {"deeper": [{"x": quoted}]},
            repr(key): "a key as a key",
        },
    )
    assert_no_secret(json.dumps(env), json.dumps(env, ensure_ascii=False))
    assert "[redacted]" in env["error"]["details"]["exception"] and env["error"]["details"]["forms"][-1] == "[redacted]"
    assert_no_secret(ProviderError("E4001", " ".join(quoted)).message)


def test_short_dummy_keys_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtui.core.run.envelope_builder import failure

    monkeypatch.setenv("OPENAI_API_KEY", "none")  # a local server's placeholder: masking it would mangle words
    assert failure("E4001", "none of the hosts answered")["error"]["message"] == "none of the hosts answered"


# ---------------------------------------------------------------- Anthropic: an `error` event inside a 200 stream


def anthropic_error_event(kind: str, message: str, after: str = "") -> Scripted:
    """message_start, `after` as text deltas, then an `error` event: how the API reports overload mid-answer."""

    def render(req: RecordedRequest) -> list[Any]:
        steps = llmserver.anthropic_text(Text(after or "x", chunk_size=9), req, len(after))
        return [*steps, sse({"type": "error", "error": {"type": kind, "message": message}}, "error")]

    return Scripted(render)


async def test_overloaded_event_before_text_is_retried(llm_server: Any) -> None:
    chunks, result = await run(llm_server, "anthropic", anthropic_error_event("overloaded_error", "Overloaded"), ANSWER)
    assert_valid_success(result.envelope, REVIEWER)
    assert len(llm_server.requests) == 2 and [c["progress"]["stage"] for c in chunks if "progress" in c] == ["retry"]


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [("overloaded_error", 529, "E4001"), ("api_error", 500, "E4001"), ("rate_limit_error", 429, "E4002")],
)
async def test_error_events_until_the_last_attempt(llm_server: Any, kind: str, status: int, code: str) -> None:
    """5xx after the last retry is E4001 provider unavailable; E4002 is rate limiting only (CODE-4)."""
    _, result = await run(llm_server, "anthropic", *[anthropic_error_event(kind, f"scripted {kind}")] * 3, ANSWER)
    err = assert_failure(result.envelope, code)
    assert err["details"]["status"] == status and err["details"]["attempts"] == 3
    assert f"scripted {kind}" in err["message"] and llm_server.pending == 1


async def test_error_event_after_text_is_e2010_with_partial_data(llm_server: Any) -> None:
    rationale = REVIEW_OUT["data"]["rationale"]
    answer = model_answer(REVIEW_OUT)
    answer["data"] = {"rationale": rationale, **{k: v for k, v in answer["data"].items() if k != "rationale"}}
    body = json.dumps(answer, indent=2)
    cut = body.index(rationale[:40]) + 60
    overloaded = anthropic_error_event("overloaded_error", "Overloaded", body[:cut])
    chunks, result = await run(llm_server, "anthropic", overloaded, ANSWER)
    err = assert_failure(result.envelope, "E2010")
    assert "Overloaded" in err["message"] and err["details"]["status"] == 529
    partial = result.envelope["partial_data"]["rationale"]
    assert partial and rationale.startswith(partial) and chunks[-1]["partial_data"] == result.envelope["partial_data"]
    assert len(llm_server.requests) == 1  # text had arrived: never retried (RUN-11)


async def test_invalid_request_event_is_not_retried(llm_server: Any) -> None:
    _, result = await run(
        llm_server,
        "anthropic",
        anthropic_error_event("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        ANSWER,
    )
    err = assert_failure(result.envelope, "E1004")  # a client error keeps its own code, never E4000 (CODE-4)
    assert "(400)" in err["message"] and "prompt is too long" in err["message"] and len(llm_server.requests) == 1


# ---------------------------------------------------------------- OpenAI-compatible servers that misbehave


def openai_stream(*inserted: bytes, body: str = ANSWER, upto: int | None = None, tail: bytes = b"") -> Scripted:
    """A normal chat-completions stream with `inserted` events right after the headers, cut at `upto` chars."""

    def render(req: RecordedRequest) -> list[Any]:
        head, *rest = llmserver.openai_text(Text(body, chunk_size=50), req, upto)
        return [head, *inserted, *rest, *([tail] if tail else [])]

    return Scripted(render)


def json_body(raw: bytes, status: int = 200) -> Scripted:
    return Scripted(
        lambda req: [
            llmserver.Head(
                status, (("Content-Type", "application/json"), ("Content-Length", str(len(raw)))), chunked=False
            ),
            raw,
        ]
    )


async def test_odd_objects_are_skipped(llm_server: Any) -> None:
    """JSON objects with odd fields carry nothing usable and are skipped; non-objects are errors (test_provider_codes)."""
    junk = [
        sse({"choices": [1, None, {"delta": []}, {"delta": {"content": 5}}]}),
        sse({"choices": {"0": {}}}),
        sse({"choices": [], "usage": "lots"}),
    ]
    _, result = await run(llm_server, "openai", openai_stream(*junk))
    assert_valid_success(result.envelope, REVIEWER)
    assert result.envelope["data"] == REVIEW_OUT["data"] and result.usage and result.usage["output_tokens"] > 0


async def test_a_non_json_body_labelled_json_is_e4001(llm_server: Any) -> None:
    page = b"<html><body>502 Bad Gateway</body></html>"
    _, result = await run(llm_server, "openai", *[json_body(page)] * 3, ANSWER)
    err = assert_failure(result.envelope, "E4001")
    assert "not a chat completion" in err["message"] and "502 Bad Gateway" in err["message"]
    assert err["details"]["attempts"] == 3 and llm_server.pending == 1


@pytest.mark.parametrize("raw", [b"[]", b'{"choices": "none"}', b'{"choices": [[]]}', b"\xff\xfe"])
async def test_a_json_body_that_is_no_completion_is_retried(llm_server: Any, raw: bytes) -> None:
    _, result = await run(llm_server, "openai", json_body(raw), ANSWER)
    assert_valid_success(result.envelope, REVIEWER)
    assert len(llm_server.requests) == 2


async def test_an_error_object_in_a_json_body_maps_like_http(llm_server: Any) -> None:
    limited = json.dumps(
        {"error": {"message": "Rate limit reached for gpt-x", "type": "requests", "code": "rate_limit_exceeded"}}
    ).encode()
    _, result = await run(llm_server, "openai", *[json_body(limited)] * 3)
    err = assert_failure(result.envelope, "E4002")
    assert "Rate limit reached" in err["message"] and err["details"]["status"] == 429 and len(llm_server.requests) == 3


CONTEXT = {
    "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.",
    "type": "invalid_request_error",
    "param": "messages",
    "code": "context_length_exceeded",
}


@pytest.mark.parametrize(
    "err",
    [
        CONTEXT,
        {"message": CONTEXT["message"]},
        {"object": "error", "message": CONTEXT["message"], "type": "BadRequestError", "code": 400},
        {**CONTEXT, "message": "Too many tokens in the prompt."},
    ],
    ids=["openai", "bare", "vllm", "code-only"],
)
async def test_a_context_error_in_the_stream_is_e4003(llm_server: Any, err: dict[str, Any]) -> None:
    _, result = await run(llm_server, "openai", openai_stream(sse({"error": err}), upto=0), ANSWER)
    out = assert_failure(result.envelope, "E4003")
    assert out["message"] == err["message"] and len(llm_server.requests) == 1


async def test_a_server_error_in_the_stream_is_retried_then_e4001(llm_server: Any) -> None:
    failing = openai_stream(
        sse({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}),
        upto=0,
    )
    _, result = await run(llm_server, "openai", failing, failing, failing, ANSWER)
    err = assert_failure(result.envelope, "E4001")
    assert "The server had an error" in err["message"] and err["details"]["status"] == 500
    assert err["details"]["attempts"] == 3 and llm_server.pending == 1


async def test_an_error_in_the_stream_after_text_is_e2010(llm_server: Any) -> None:
    cut = ANSWER.index('"data"') + 120
    broken = openai_stream(
        body=ANSWER, upto=cut, tail=sse({"error": {"message": "upstream model crashed", "code": 502}})
    )
    chunks, result = await run(llm_server, "openai", broken, ANSWER)
    err = assert_failure(result.envelope, "E2010")
    assert "upstream model crashed" in err["message"] and err["details"]["status"] == 502
    assert len(llm_server.requests) == 1 and chunks[-1]["error"]["code"] == "E2010"


# ---------------------------------------------------------------- the corrective retry after an empty answer


@both
@pytest.mark.parametrize("first", ["", "  \n\t "])
async def test_an_empty_answer_never_becomes_an_empty_assistant_turn(llm_server: Any, proto: str, first: str) -> None:
    _, result = await run(llm_server, proto, text(first), ANSWER, fixes=RETRY)
    assert_valid_success(result.envelope, REVIEWER)
    first_req, second = llm_server.requests
    msgs = [m for m in second.body["messages"] if m["role"] != "system"]
    assert [m["role"] for m in msgs] == ["user"]  # no assistant turn, and turns still alternate
    content = msgs[0]["content"]
    sent = content if isinstance(content, str) else "".join(b["text"] for b in content if b["type"] == "text")
    first_msgs = [m for m in first_req.body["messages"] if m["role"] != "system"]
    before = first_msgs[0]["content"]
    before = before if isinstance(before, str) else "".join(b["text"] for b in before if b["type"] == "text")
    assert sent == f"{before}\n\n{CORRECTIVE_EMPTY}"


@both
async def test_a_prose_answer_is_still_shown_back(llm_server: Any, proto: str) -> None:
    _, result = await run(llm_server, proto, text("Sure! Let me look."), ANSWER, fixes=RETRY)
    assert result.ok
    msgs = [m for m in llm_server.last_request.body["messages"] if m["role"] != "system"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    last = msgs[2]["content"]
    assert (last if isinstance(last, str) else last[0]["text"]) == CORRECTIVE
    mid = msgs[1]["content"]
    assert (mid if isinstance(mid, str) else mid[0]["text"]) == "Sure! Let me look."


@both
async def test_a_blank_key_counts_as_missing(llm_server: Any, proto: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VAR[proto], " \r\n")
    llm_server.enqueue(ANSWER)
    _, result, _ = await collect(REVIEWER, REVIEW_IN, options(provider(proto, llm_server)))
    if proto == "anthropic":
        err = assert_failure(result.envelope, "E4001")
        assert err["message"] == "ANTHROPIC_API_KEY is not set" and llm_server.requests == []
    else:  # optional for local servers: the request goes out without one
        assert result.ok and "authorization" not in llm_server.last_request.headers
