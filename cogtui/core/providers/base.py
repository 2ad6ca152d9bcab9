"""What every provider implements, and the errors it may raise.

Providers turn a `ModelRequest` into a stream of `TextDelta`s and one
`Usage`. They never retry (the runner does, uniformly) and map every failure
to a `ProviderError` carrying the E-code the runner reports.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..media import ResolvedMedia
    from ..model import Module


@dataclass(frozen=True)
class Message:
    role: str  # "user" or "assistant"
    text: str


@dataclass
class ModelRequest:
    system: str
    messages: list[Message]
    media: list[ResolvedMedia] = field(default_factory=list)
    model: str | None = None
    max_tokens: int = 4096
    stream: bool = True
    timeout: float = 60.0  # seconds of silence before the stream is abandoned
    # For the replay provider, which answers from the module's own goldens.
    module: Module | None = None
    input: Any = None


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def to_json(self) -> dict[str, int]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "total_tokens": self.input_tokens + self.output_tokens}


ProviderEvent = TextDelta | Usage


KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


_USERINFO = re.compile(r"(\w+://)[^/@\s]+@")


def redact_keys(text: str) -> str:
    """Mask the API keys from the environment, should a server or a library echo one back.

    Provider messages end up in envelopes, on screen and in the history, where
    secrets never go (AGENTS.md invariant 7). Very short values (a local
    server's dummy key) are left alone: masking them would mangle ordinary words.
    """
    text = _USERINFO.sub(r"\1***@", text)  # credentials written into a base URL (https://user:pass@host)
    for var in KEY_VARIABLES:
        key = os.environ.get(var) or ""
        if len(key) >= 8 and key in text:
            text = text.replace(key, "[redacted]")
    return text


class ProviderError(Exception):
    """A failed model call. `retryable` failures may be retried by the runner before any text arrived."""

    def __init__(self, code: str, message: str, *, retryable: bool = False, retry_after: float | None = None,
                 status: int | None = None, received_text: bool = False) -> None:
        message = redact_keys(message)
        super().__init__(message)
        self.code = code
        self.message = message
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

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]: ...

    async def aclose(self) -> None: ...


def capability_doc(name: str, streaming: bool, media_in: tuple[str, ...], max_mb: int) -> dict[str, Any]:
    """SPEC-v2.5 §8.1 capability declaration."""
    from ... import __version__

    return {
        "runtime": "cogtui",
        "version": __version__,
        "spec_version": "2.5.0",
        "provider": name,
        "capabilities": {
            "streaming": streaming,
            "multimodal": {"input": list(media_in), "output": []},
            "max_media_size_mb": max_mb,
            "supported_transports": ["sse", "ndjson"],
        },
    }


def status_error(status: int, message: str, retry_after: float | None = None) -> ProviderError:
    """Map an HTTP status to the runtime's codes.

    429, 5xx and 529 (overloaded) are retried and end as E4002 after the last attempt
    (the issue's rule); 401/403 are E4001; a context-length rejection is E4003.
    """
    if status == 429 or status >= 500:
        return ProviderError("E4002", message, retryable=True, retry_after=retry_after, status=status)
    if status in (401, 403):
        return ProviderError("E4001", f"authentication failed ({status}): {message}", status=status)
    if status == 413 or "context" in message.lower() and "length" in message.lower():
        return ProviderError("E4003", message, status=status)
    return ProviderError("E4000", f"provider rejected the request ({status}): {message}", status=status)


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
