"""Any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Ollama, vLLM, llama.cpp) over httpx + SSE.

OPENAI_API_KEY (optional for local servers) and OPENAI_BASE_URL are honoured.
A stream that ends without `[DONE]` or a finish_reason was cut: E2010, never
retried. An `{"error": ...}` object or an SSE `error` event in the stream (or an
error in a 200 JSON body) maps as its HTTP twin would; data that is not a JSON
object is the server's fault (E4001, E2010 after text), reported with what it
sent, never an internal error. `finish_reason: length` is a `Finish` the runner
turns into E2003.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

from cogtui.core.module.schema_types import excerpt
from cogtui.core.run.providers.base import (
    Finish,
    ModelRequest,
    ProviderError,
    ProviderEvent,
    TextDelta,
    Usage,
    api_key,
    import_off_loop,
    malformed_stream_data,
    media_reference,
    parse_retry_after,
    status_error,
    stream_error,
    unterminated_stream,
)
from cogtui.core.run.providers.declarations import media_input
from cogtui.core.run.providers.http_client import drain_after_done, import_http_stack, import_httpx, new_client
from cogtui.core.run.providers.registry import named
from cogtui.core.run.providers.shared_client import LoopClients

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
SPEC = named("openai")  # this provider's declaration (its package's __init__.py)
KEY = SPEC.key_variables[0]


def needs_key(base_url: str) -> bool:
    """OpenAI's own API needs a key; an OpenAI-compatible server elsewhere (a local one) may not."""
    from urllib.parse import urlsplit

    return (urlsplit(base_url).hostname or "").lower() == "api.openai.com"


class OpenAIProvider:
    name = "openai"

    def __init__(self, model: str | None = None, base_url: str | None = None, vision: bool = True) -> None:
        self.model = model or DEFAULT_MODEL
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.vision = vision
        self.clients: LoopClients[Any] = LoopClients(self._new_client)  # one client (TLS context, pool) per loop

    def capabilities(self) -> dict[str, Any]:
        return SPEC.declaration({"vision": self.vision})

    def media_categories(self) -> tuple[str, ...]:
        return media_input(self.capabilities())

    def request_body(self, request: ModelRequest, media_by_reference: bool = False) -> dict[str, Any]:
        """The chat-completions body this request is sent as; with `media_by_reference`, each attachment's base64
        data is a note of its size and source (`cogn prompt`)."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
        for i, msg in enumerate(request.messages):
            if i == 0 and msg.role == "user" and request.media:
                parts: list[dict[str, Any]] = [{"type": "text", "text": msg.text}]
                for media in request.media:
                    data = media_reference(media) if media_by_reference else media.b64()
                    parts.append({"type": "image_url", "image_url": {"url": f"data:{media.mime};base64,{data}"}})
                messages.append({"role": "user", "content": parts})
            else:
                # Plain strings: some local servers reject content arrays.
                messages.append({"role": msg.role, "content": msg.text})
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": request.max_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        # Strict structured output (RUN-5); a server that refuses the schema is asked again without it (RUN-6).
        if request.response_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "strict": True, "schema": request.response_schema},
            }
        return body

    def _new_client(self, _key: object) -> Any:
        return new_client(self.base_url)

    async def prepare(self) -> None:
        # The HTTP stack's first import, in a thread: made on the loop, it would block the event loop
        await import_off_loop("httpcore", import_http_stack)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        httpx = import_httpx()
        headers = {"Accept": "text/event-stream"}
        key = api_key(KEY)  # optional: local servers need none
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif needs_key(self.base_url):  # OpenAI's own API answers 401 without one: said now, not after retries
            raise ProviderError(
                "E4001",
                f"{KEY} is not set",
                suggestion=f"Set {KEY}, or set OPENAI_BASE_URL to a server that needs no key (a local one).",
            )
        timeout = httpx.Timeout(connect=10.0, read=request.timeout + 5, write=30.0, pool=10.0)
        received = False
        finished = False
        try:
            async with self.clients.get().stream(
                "POST",
                f"{self.base_url}/chat/completions",
                json=self.request_body(request),
                headers=headers,
                timeout=timeout,
            ) as resp:
                if resp.status_code >= 400:
                    raw = await resp.aread()
                    raise status_error(
                        resp.status_code,
                        _error_message(raw, resp.status_code),
                        parse_retry_after(resp.headers.get("retry-after")),
                    )
                if resp.headers.get("content-type", "").startswith("application/json"):
                    # A server that ignored stream: true.
                    text, usage, reason = _whole_answer(await resp.aread(), self.base_url)
                    yield TextDelta(text)
                    yield usage
                    if reason:
                        yield Finish(reason, token_limit=reason == "length")
                    return
                event = ""
                lines = resp.aiter_lines()
                async for line in lines:
                    if line.startswith("event:"):
                        event = line[6:].strip()
                        continue
                    if not line.startswith("data:"):
                        if not line:
                            event = ""  # a blank line ends the SSE event
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        finished = True
                        await drain_after_done(lines)  # the body's end: the connection goes back to the pool
                        break
                    try:
                        obj = json.loads(payload)
                    except ValueError:
                        obj = None
                    if not isinstance(obj, dict):  # junk is the server's fault: say what it sent (CODE-4)
                        raise malformed_stream_data(payload, received, f"the stream from {self.base_url}")
                    if obj.get("error") or event == "error":  # the server failed mid-stream: say what it said
                        raise stream_error(obj.get("error") or obj, received, f"the stream from {self.base_url}")
                    for choice in _dicts(obj.get("choices")):
                        delta = choice.get("delta")
                        content = delta.get("content") if isinstance(delta, dict) else None
                        if isinstance(content, str) and content:
                            received = True
                            yield TextDelta(content)
                        stop = choice.get("finish_reason")
                        if stop:
                            finished = True
                            yield Finish(str(stop), token_limit=stop == "length")
                    if isinstance(obj.get("usage"), dict):
                        yield _usage(obj["usage"])
        except httpx.TimeoutException:
            raise ProviderError("E2011", f"{self.base_url} went silent", received_text=received) from None
        except httpx.TransportError as exc:
            code = "E2010" if received else "E4001"
            raise ProviderError(
                code,
                f"connection to {self.base_url} failed: {type(exc).__name__}: {exc}",
                retryable=not received,
                received_text=received,
            ) from None
        if not finished:
            raise unterminated_stream(received, f"the stream from {self.base_url}", "[DONE]")

    async def aclose(self) -> None:
        await self.clients.aclose()


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _count(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else 0


def _usage(raw: Any) -> Usage:
    """prompt_tokens include the cached ones: those are counted once, as cache reads (RUN-14)."""
    raw = raw if isinstance(raw, dict) else {}
    details = raw.get("prompt_tokens_details")
    prompt = _count(raw.get("prompt_tokens"))
    cached = min(prompt, _count(details.get("cached_tokens"))) if isinstance(details, dict) else 0
    return Usage(prompt - cached, _count(raw.get("completion_tokens")), cache_read_tokens=cached)


def _whole_answer(raw: bytes, where: str) -> tuple[str, Usage, str]:
    """The text and usage of a non-streamed completion; a body that is not one is the server's fault (E4001)."""
    try:
        obj = json.loads(raw)
    except ValueError:
        obj = None
    if isinstance(obj, dict) and obj.get("error"):
        raise stream_error(obj["error"], False, where)
    choices = _dicts(obj.get("choices")) if isinstance(obj, dict) else []
    if not choices:
        snippet = excerpt(raw[:400].decode("utf-8", errors="replace"), 200)
        raise ProviderError(
            "E4001", f"{where} answered with something that is not a chat completion: {snippet}", retryable=True
        )
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    # No content (a refusal, a tool call) is an empty answer: the runner's corrective retry handles it.
    reason = choices[0].get("finish_reason")
    return (content if isinstance(content, str) else ""), _usage(obj.get("usage")), str(reason or "")


def _error_message(raw: bytes, status: int) -> str:
    try:
        obj = json.loads(raw)
        err = obj.get("error") if isinstance(obj, dict) else None
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    except ValueError:
        pass
    return raw.decode("utf-8", errors="replace")[:300] or f"HTTP {status}"
