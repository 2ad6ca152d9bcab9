"""What every provider implements, and the errors it may raise.

Providers turn a `ModelRequest` into a stream of `TextDelta`s and one
`Usage`. They never retry (the runner does, uniformly) and map every failure
to a `ProviderError` carrying the E-code the runner reports.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from cogtui.core.module.schema_types import excerpt
from cogtui.core.records import field, record

# Masking lives with failure(), the one place every failure envelope is built; ProviderError masks too.
from cogtui.core.run.envelope_builder import redact_keys

if TYPE_CHECKING:
    import concurrent.futures

    from cogtui.core.module.model import Module
    from cogtui.core.rules.media_rules import ResolvedMedia


@record
class Message:
    """One turn of the conversation sent to a model."""

    role: str  # "user" or "assistant"
    text: str


@record(frozen=False)
class ModelRequest:
    """What a provider is asked: system prompt, messages, media and the answer's format."""

    system: str
    messages: list[Message]
    media: list[ResolvedMedia] = field(default_factory=list)
    model: str | None = None
    max_tokens: int = 4096
    stream: bool = True
    # Structured output (D72-D74): the answer's schema in the provider's dialect, and its name.
    response_schema: dict[str, Any] | None = None
    schema_name: str = "envelope"
    timeout: float = 60.0  # seconds of silence before the stream is abandoned
    # For the replay provider, which answers from the module's own goldens.
    module: Module | None = None
    input: Any = None


@dataclass(frozen=True)
class TextDelta:
    """A piece of the model's answer, as it streams in."""

    text: str


@record
class Finish:
    """Why the model stopped; `token_limit` when output was cut by max_tokens / finish_reason length."""

    reason: str
    token_limit: bool = False


@record
class Usage:
    """Tokens of one call (or, summed, of a run), the same on every provider (D70).

    `input_tokens` is the input read at full price: Anthropic's `input_tokens`, OpenAI's prompt_tokens
    less its cached_tokens. `cache_read_tokens` came from the provider's prompt cache (Anthropic's
    cache_read_input_tokens, OpenAI's prompt_tokens_details.cached_tokens); `cache_write_tokens` were
    written to it (Anthropic's cache_creation_input_tokens; OpenAI caches without saying so: 0).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def to_json(self) -> dict[str, int]:
        """The run record's `usage`; `total_tokens` counts every token the calls processed, cached or not."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }


ProviderEvent = TextDelta | Usage | Finish


def media_reference(media: ResolvedMedia) -> str:
    """An attachment as the prompt-as-sent shows it instead of its base64 data: its size and where it is from."""
    if not media.fetched:
        return f"<not fetched for the preview: {media.source}>"
    return f"<{len(media.data):,} bytes of base64 data: {media.source}>"


# Printable ASCII: anything else in a key makes the HTTP library reject the header and quote it, key included.
_KEY_CHARS = re.compile(r"^[\x20-\x7e]+$")


class ProviderError(Exception):
    """A failed model call. `retryable` failures may be retried by the runner before any text arrived."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
        received_text: bool = False,
        suggestion: str | None = None,
    ) -> None:
        message = redact_keys(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.suggestion = suggestion  # what the envelope suggests, when the code's usual advice would mislead
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.received_text = received_text


class Provider(Protocol):
    name: str
    model: str

    def capabilities(self) -> dict[str, Any]: ...

    def media_categories(self) -> tuple[str, ...]:
        """Input media categories this provider and model accept (image, document, audio, video)."""
        ...

    async def prepare(self) -> None:
        """Load what a call needs (an SDK's import) without blocking the event loop; the runner awaits it
        before a call's stream timers start, so a slow first import is neither a frozen screen nor a silence."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]: ...

    async def aclose(self) -> None: ...


_imports: dict[str, concurrent.futures.Future[None]] = {}  # imports started by import_off_loop, by name
_imports_lock = threading.Lock()


async def import_off_loop(name: str, importer: Callable[[], object] | None = None) -> None:
    """Import `name` (with `importer`, else importlib) in a thread the first time, so the event loop keeps
    running; once it is imported, at once (a provider's `prepare` runs before every call).

    Calls made while that import runs wait for the same import: `name` is in `sys.modules` from the moment
    its import starts, and a call that took that for done would import it again on the event loop, which
    blocks on the import's lock until the thread is through. A failed import is tried again next time."""
    with _imports_lock:
        started = _imports.get(name)
        if started is None:
            if name in sys.modules:  # imported some other way
                return
            import concurrent.futures  # asyncio has imported it already

            started = _imports[name] = concurrent.futures.Future()
            started.set_running_or_notify_cancel()  # running: a cancelled caller cannot cancel it for the rest
            threading.Thread(target=_import, args=(name, importer, started), name=f"import {name}").start()
    if not started.done():
        import asyncio

        await asyncio.wrap_future(started)
    started.result()


def _import(name: str, importer: Callable[[], object] | None, done: concurrent.futures.Future[None]) -> None:
    try:
        if importer is None:
            import importlib

            importlib.import_module(name)
        else:
            importer()
    except BaseException as exc:  # noqa: BLE001  # handed to every waiting call; left unset, they would hang
        with _imports_lock:
            del _imports[name]
        done.set_exception(exc)
    else:
        done.set_result(None)


class ProviderWrapper:
    """A provider in front of another (a gate, a cache): name, model, capabilities, closing and whatever a
    provider adds are the inner provider's; a wrapper overrides `stream` (and `aclose` if it must not close)."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copying, unpickling): no endless lookup
            raise AttributeError(name)
        return getattr(self.inner, name)

    def capabilities(self) -> dict[str, Any]:
        return self.inner.capabilities()

    def media_categories(self) -> tuple[str, ...]:
        return self.inner.media_categories()

    async def prepare(self) -> None:
        await self.inner.prepare()

    async def aclose(self) -> None:
        await self.inner.aclose()


def status_error(status: int, message: str, retry_after: float | None = None) -> ProviderError:
    """Map an HTTP status to the runtime's codes (error-codes.md, D20 as revised by D37).

    429 is rate limiting (E4002); 5xx and 529 (overloaded) mean the provider cannot serve now (E4001);
    both are retried. Client errors keep their own meaning and are never retried: 401 E4001 (bad
    credentials), 403 E4007, 404 E4001 (no such model or endpoint), 408 E2002, 413 and context-length
    rejections E4003, 400/422 E1004 (the provider refused a value in the request), any other 4xx E4001.
    """
    if status == 429:
        return ProviderError("E4002", message, retryable=True, retry_after=retry_after, status=status)
    if status >= 500:
        return ProviderError(
            "E4001",
            f"provider unavailable ({status}): {message}",
            retryable=True,
            retry_after=retry_after,
            status=status,
        )
    if status == 413 or ("context" in message.lower() and "length" in message.lower()):
        return ProviderError("E4003", message, status=status)
    if status == 401:
        return ProviderError(
            "E4001",
            f"authentication failed ({status}): {message}",
            status=status,
            suggestion="Check the API key: set, current, and meant for this provider (and base URL).",
        )
    if status == 403:
        return ProviderError("E4007", f"the provider refused access ({status}): {message}", status=status)
    if status == 404:
        return ProviderError(
            "E4001",
            f"the provider has no such model or endpoint ({status}): {message}",
            status=status,
            suggestion="Check the model name (--model) and the provider's base URL.",
        )
    if status == 408:
        return ProviderError("E2002", f"the provider timed out ({status}): {message}", status=status)
    if status in (400, 422):
        return ProviderError("E1004", f"the provider rejected the request ({status}): {message}", status=status)
    return ProviderError("E4001", f"the provider refused the request ({status}): {message}", status=status)


def malformed_stream_data(payload: str, received: bool, where: str) -> ProviderError:
    """Stream data that is not a JSON object: the provider's fault, reported with what it sent (D37).

    Before any text it is E4001 (retried: the server is misbehaving); after text it broke the answer, E2010.
    """
    message = f"{where} sent data that is not a JSON object: {excerpt(payload.strip(), 200)}"
    if received:
        return ProviderError("E2010", message, received_text=True)
    return ProviderError("E4001", message, retryable=True)


def unterminated_stream(received: bool, where: str, terminator: str) -> ProviderError:
    """A stream that ended cleanly without its terminator: E2010, never retried (D37)."""
    return ProviderError(
        "E2010", f"{where} ended without {terminator}: the answer may be incomplete", received_text=received
    )


def api_key(var: str) -> str | None:
    """The key in `var`, trimmed; None when unset or blank.

    A .env written on Windows leaves a trailing "\\r": trimmed. A key that still holds a control or non-ASCII
    character is refused here (E4001, like a missing key), with a message that never shows it.
    """
    key = (os.environ.get(var) or "").strip()
    if not key:
        return None
    if not _KEY_CHARS.match(key):
        raise ProviderError(
            "E4001",
            f"{var} contains a control or non-ASCII character (the key is not shown); "
            "copy it again, e.g. from a .env file with Windows line endings",
        )
    return key


# Error types (Anthropic's, OpenAI's, common proxies') and the HTTP status each stands for.
ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "invalid_api_key": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "context_length_exceeded": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def _status_of(value: Any) -> int | None:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and 400 <= value <= 599 else None


def describe_error(err: Any) -> tuple[int, str]:
    """(status, message) for an error object a server sent inside a 200 response.

    The status comes from a numeric `code`/`status`, else the string code or error type, else a
    context-length message (400, so it maps to E4003), else 500: a server failing mid-answer.
    """
    if not isinstance(err, dict):
        return 500, str(err)[:500] or "the server reported an error"
    message = err.get("message")
    message = message if isinstance(message, str) and message else json.dumps(err, ensure_ascii=False)[:500]
    kinds = [k for k in (err.get("code"), err.get("type")) if isinstance(k, str)]  # the code is the more specific
    status = (
        _status_of(err.get("code"))
        or _status_of(err.get("status"))
        or next((ERROR_TYPE_STATUS[k] for k in kinds if k in ERROR_TYPE_STATUS), None)
    )
    if status is None:
        low = message.lower()
        status = 400 if "context" in low and "length" in low else 500
    return status, message


def stream_error(err: Any, received: bool, where: str) -> ProviderError:
    """An error a server reported inside a 200 response: an SSE `error` event or an `{"error": ...}` object.

    Before any text it maps exactly as its HTTP twin would (an overloaded_error is a retryable 529, D20);
    after text arrived the stream is broken: E2010, never retried, keeping the server's message.
    """
    status, message = describe_error(err)
    if received:
        return ProviderError("E2010", f"{where} broke off: {message}", status=status, received_text=True)
    return status_error(status, message)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
