"""Anthropic through its official SDK; the stream's events are read raw (events.py).

ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are honoured. The SDK's own retries
are off: the runner retries every provider the same way. This SDK version
rides on `httpx2`, whose transport errors are not `httpx`'s, and a stream cut
mid-way surfaces as a raw transport error rather than an `anthropic` one, and
an `error` event inside the 200 stream (overloaded mid-answer) as an
`APIStatusError` whose status is 200: its body's error type says what it was.
A stream that ends without `message_stop` is E2010 (never retried); data that
is not a JSON event object is the server's fault, reported with what it sent;
`stop_reason: max_tokens` is a `Finish` the runner turns into E2003.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from typing import Any

from cogtui.core.run.providers.anthropic.events import RawTally, sse_events
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
from cogtui.core.run.providers.registry import named
from cogtui.core.run.providers.shared_client import LoopClients, tls_context

DEFAULT_MODEL = "claude-sonnet-5-5"
SPEC = named("anthropic")  # this provider's declaration (its package's __init__.py)
KEY = SPEC.key_variables[0]


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, model: str | None = None, base_url: str | None = None) -> None:
        self.model = model or DEFAULT_MODEL
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        self.clients: LoopClients[Any] = LoopClients(self._new_client)  # one client (TLS context, pool) per loop

    def _new_client(self, key: str) -> Any:
        import anthropic

        # The SDK's own HTTP client with its defaults (timeouts, limits, proxies from the environment),
        # given the process's shared TLS context instead of building one per client.
        http_client = anthropic.DefaultAsyncHttpxClient(verify=tls_context())
        return anthropic.AsyncAnthropic(api_key=key, base_url=self.base_url, max_retries=0, http_client=http_client)

    def capabilities(self) -> dict[str, Any]:
        return SPEC.declaration({})

    def media_categories(self) -> tuple[str, ...]:
        return media_input(self.capabilities())

    def _client(self) -> Any:
        """The running event loop's client for the current API key: shared by every call until `aclose()`."""
        return self.clients.get(_required_key())

    def request_body(self, request: ModelRequest, media_by_reference: bool = False) -> dict[str, Any]:
        """The Messages API body this request is sent as (the stream's own), less `stream`; with
        `media_by_reference`, each attachment's base64 data is a note of its size and source (`cogn prompt`)."""
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "system": system_blocks(request),
            "messages": _messages(request, media_by_reference),
        }
        if request.response_schema is not None:  # structured output, GA in this SDK (RUN-5)
            body["output_config"] = {"format": {"type": "json_schema", "schema": request.response_schema}}
        return body

    async def count_tokens(self, request: ModelRequest) -> int:
        """The request's input tokens, as Anthropic's `messages.count_tokens` counts them (nothing is generated)."""
        import anthropic

        body = self.request_body(request)
        body.pop("max_tokens")
        try:
            counted = await self._client().messages.count_tokens(**body, timeout=anthropic.Timeout(30.0, connect=10.0))
        except anthropic.APIStatusError as exc:
            raise status_error(exc.status_code, _message(exc)) from None
        except anthropic.APIConnectionError as exc:
            raise ProviderError("E4001", f"cannot reach the Anthropic API: {_cause(exc)}") from None
        return int(counted.input_tokens)

    async def prepare(self) -> None:
        _required_key()  # a missing key is said at once, not after the SDK's long import
        # The SDK's first import (its pydantic models), then what its client and first request import
        await import_off_loop("anthropic", _import_sdk)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        import anthropic
        import httpx2

        received = False
        try:
            tally = RawTally()
            async with self._client().messages.with_streaming_response.create(
                **self.request_body(request), stream=True, timeout=anthropic.Timeout(request.timeout + 5, connect=10.0)
            ) as response:
                async for name, data in sse_events(response.iter_lines()):
                    if name == "error" or (isinstance(data, dict) and data.get("type") == "error"):
                        err = data.get("error", data) if isinstance(data, dict) else data
                        raise stream_error(err, received, "the Anthropic stream")
                    if not isinstance(data, dict):  # JSON, but no event object: the server's fault (CODE-4)
                        raise malformed_stream_data(
                            json.dumps(data, ensure_ascii=False), received, "the Anthropic stream"
                        )
                    text = tally.take(data)
                    if text:
                        received = True
                        yield TextDelta(text)
            if not tally.stopped:  # a clean end without message_stop: cut, never retried (CODE-4)
                raise unterminated_stream(received, "the Anthropic stream", "message_stop")
            yield Usage(tally.input_tokens, tally.output_tokens, tally.cache_read_tokens, tally.cache_write_tokens)
            if tally.stop_reason:
                yield Finish(tally.stop_reason, token_limit=tally.stop_reason == "max_tokens")
        except anthropic.APIStatusError as exc:
            if exc.status_code < 400:  # an `error` event inside the 200 stream
                body = exc.body
                err = body.get("error") if isinstance(body, dict) and "error" in body else body
                raise stream_error(err, received, "the Anthropic stream") from None
            retry_after = parse_retry_after(
                exc.response.headers.get("retry-after") if exc.response is not None else None
            )
            raise status_error(exc.status_code, _message(exc), retry_after) from None
        except anthropic.APITimeoutError:
            raise ProviderError("E2011", "the Anthropic API did not answer in time", received_text=received) from None
        except anthropic.APIConnectionError as exc:
            raise ProviderError(
                "E4001",
                f"cannot reach the Anthropic API: {_cause(exc)}",
                retryable=not received,
                received_text=received,
            ) from None
        except ValueError as exc:  # data that is not JSON (json.JSONDecodeError keeps what was sent)
            raise malformed_stream_data(getattr(exc, "doc", ""), received, "the Anthropic stream") from None
        except (TypeError, AttributeError, KeyError, IndexError) as exc:  # JSON, but not an event object
            raise malformed_stream_data(_event_excerpt(exc), received, "the Anthropic stream") from None
        except httpx2.TimeoutException:
            raise ProviderError("E2011", "the Anthropic stream went silent", received_text=received) from None
        except httpx2.TransportError as exc:
            code = "E2010" if received else "E4001"
            raise ProviderError(
                code, f"the Anthropic stream broke: {_cause(exc)}", retryable=not received, received_text=received
            ) from None

    async def aclose(self) -> None:
        await self.clients.aclose()


def _messages(request: ModelRequest, media_by_reference: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(request.messages):
        content: list[dict[str, Any]] = []
        if i == 0 and msg.role == "user":
            for media in request.media:
                kind = "document" if media.category == "document" else "image"
                data = media_reference(media) if media_by_reference else media.b64()
                content.append({"type": kind, "source": {"type": "base64", "media_type": media.mime, "data": data}})
        content.append({"type": "text", "text": msg.text})
        out.append({"role": msg.role, "content": content})
    return out


def system_blocks(request: ModelRequest) -> list[dict[str, Any]]:
    """The system prompt as one text block marked for Anthropic's prompt cache (RUN-15).

    The system prompt is the static part of every run of a module (its contract, envelope rules and
    schemas, its instructions): it comes first in the request, so each run of the module after the
    first reads it from the cache. A block shorter than the model's minimum is simply not cached.
    """
    return [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}]


def _required_key() -> str:
    key = api_key(KEY)
    if key is None:
        raise ProviderError(
            "E4001",
            f"{KEY} is not set",
            suggestion=f"Set {KEY} in the environment, or choose another provider with --provider.",
        )
    return key


def _import_sdk() -> None:
    import anthropic  # noqa: F401

    from cogtui.core.run.providers.http_client import import_http_stack

    import_http_stack()


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or exc)
    return str(getattr(exc, "message", exc))


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return f"{type(cause).__name__}: {cause}" if cause else str(exc) or type(exc).__name__


_JSON_KINDS = {"list": "a JSON array", "str": "a JSON string", "int": "a JSON number", "float": "a JSON number"}
# The SDK's words for an event it cannot type: "Unexpected event runtime type, after deserialising twice - [] - <class 'list'>".
_SDK_EVENT = re.compile(r" - (.*) - <class '(\w+)'>", re.S)


def _event_excerpt(exc: BaseException) -> str:
    """What the server sent where an event object belongs, as far as the SDK tells it."""
    found = _SDK_EVENT.search(str(exc))
    if found is None:
        return "JSON that is not an event object"
    return f"{_JSON_KINDS.get(found.group(2), 'JSON')} {found.group(1)[:200]}"
