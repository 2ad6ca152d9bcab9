"""The prompt as sent (`cogn prompt`, the run screen's `p`): what the provider would receive, its tokens and cost.

The request is the runner's own (`RunSession.preview`: the same checks, system prompt, user prompt with the
input, structured-output schema and attachments), and the body is the provider's own (`request_body`: the
Anthropic Messages or chat-completions JSON), with each attachment's data shown by reference. Nothing is sent
to a model: a `@call:` stands as a placeholder naming the call (D256), and a URL medium is not fetched. The
input tokens are Anthropic's `messages.count_tokens` when the provider is Anthropic and its key is set, else an
estimate said to be one; the cost is the price table's for those tokens (and, at most, for `max_tokens` of
output).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cogtui.core.module.model import Module
from cogtui.core.records import field, record
from cogtui.core.run.prompt import estimate_tokens
from cogtui.core.run.providers.base import ModelRequest, Provider, ProviderError
from cogtui.core.run.run_types import RunFailed, RunOptions
from cogtui.core.run.runner import RunSession

COUNTED = "counted by Anthropic (messages.count_tokens)"
ESTIMATED = "an estimate (about 4 characters a token; the provider has no counting API here)"


@record(frozen=False)
class Attachment:
    """A medium sent beside the prompt, by reference."""

    index: int  # as the prompt's [n] notes number it
    source: str
    mime: str
    size: int | None  # bytes; None when not fetched (a URL)

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "source": self.source, "mime": self.mime, "bytes": self.size}


@record(frozen=False)
class PromptPreview:
    """What a run of `module` on this input would send, or why it would be refused (`problem`, the error)."""

    module: str
    provider: str
    model: str | None
    system: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)  # role, text
    response_schema: dict[str, Any] | None = None
    schema_name: str = ""
    attachments: list[Attachment] = field(default_factory=list)
    body: dict[str, Any] = field(default_factory=dict)  # the provider's request body, media by reference
    tokens: int | None = None  # input tokens
    counted: str = ""  # how the tokens were counted: COUNTED, or ESTIMATED (with why, when counting failed)
    max_tokens: int = 0
    cost_usd: float | None = None  # the input tokens at the price table's price; None: no price entry
    max_output_cost_usd: float | None = None  # max_tokens of output at its price
    warnings: list[str] = field(default_factory=list)
    problem: dict[str, Any] | None = None  # the error a run would be refused with, before any call

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "provider": self.provider,
            "model": self.model,
            "system": self.system,
            "messages": self.messages,
            "response_schema": self.response_schema,
            "schema_name": self.schema_name if self.response_schema is not None else None,
            "attachments": [a.to_json() for a in self.attachments],
            "body": self.body,
            "input_tokens": self.tokens,
            "tokens_counted": self.counted,
            "max_tokens": self.max_tokens,
            "cost_usd": self.cost_usd,
            "max_output_cost_usd": self.max_output_cost_usd,
            "warnings": self.warnings,
            "problem": self.problem,
        }


def sections(preview: PromptPreview) -> list[tuple[str, str]]:
    """(heading, text) of what is sent, in order: system, each message, the schema, the attachments."""
    out = [("system", preview.system), *[(m["role"], m["text"]) for m in preview.messages]]
    if preview.response_schema is not None:
        schema = json.dumps(preview.response_schema, indent=2, ensure_ascii=False)
        out.append((f"structured output (schema {preview.schema_name!r})", schema))
    if preview.attachments:
        lines = [
            f"[{a.index}] {a.source} ({a.mime}, {'not fetched' if a.size is None else f'{a.size:,} bytes'})"
            for a in preview.attachments
        ]
        out.append(("attachments (by reference)", "\n".join(lines)))
    return out


def token_line(preview: PromptPreview) -> str:
    """The tokens (and how they were counted) and the cost."""
    cost = "cost ? (no price entry)" if preview.cost_usd is None else f"${preview.cost_usd:.4f} of input"
    if preview.max_output_cost_usd is not None:
        cost += f", at most ${preview.max_output_cost_usd:.4f} for {preview.max_tokens:,} output tokens"
    return f"{preview.tokens or 0:,} input tokens ({preview.counted}) · {cost}"


@dataclass
class PromptViewState:
    """The run screen's prompt view: building (the preview is made off the UI thread), then the request and its
    cost, or why a run would be refused, or why the preview could not be made."""

    module: str
    phase: str = "building"  # building, ready, refused or failed
    preview: PromptPreview | None = None
    problem: str = ""

    def ready(self, preview: PromptPreview) -> None:
        if self.phase == "building":
            self.preview = preview
            self.phase = "refused" if preview.problem is not None else "ready"

    def failed(self, problem: str) -> None:
        if self.phase == "building":
            self.phase, self.problem = "failed", problem

    def title(self) -> str:
        p = self.preview
        target = "" if p is None else f" on {p.provider}" + (f" {p.model}" if p.model and p.model != p.provider else "")
        return f"{self.module}{target} · the prompt as sent (nothing is sent to a model)"

    def text(self) -> str:
        """The body: every section, then the tokens and cost; or what a refusal or failure says."""
        p = self.preview
        if self.phase == "building":
            return "building the request (and counting its tokens)…"
        if self.phase == "failed" or p is None:
            return f"the preview could not be made: {self.problem}"
        if p.problem is not None:
            hint = f"\nsuggestion: {p.problem['suggestion']}" if p.problem.get("suggestion") else ""
            return f"a run would be refused before any call: {p.problem.get('code')} {p.problem.get('message')}{hint}"
        body = "\n\n".join(f"── {head} ──\n{text}" for head, text in sections(p))
        notes = "".join(f"\nnote: {w}" for w in p.warnings)
        return f"{token_line(p)}{notes}\n\n{body}"


def request_body(provider: Provider, request: ModelRequest) -> dict[str, Any]:
    """The provider's own body for the request, media by reference; a provider without one (replay, which
    answers from the module's files and sends nothing anywhere) shows the request's parts."""
    build = getattr(provider, "request_body", None)
    if callable(build):
        body = build(request, media_by_reference=True)
        return body if isinstance(body, dict) else {}
    return {
        "system": request.system,
        "messages": [{"role": m.role, "content": m.text} for m in request.messages],
        "max_tokens": request.max_tokens,
        "response_schema": request.response_schema,
    }


async def prompt_as_sent(
    module: Module, input_value: Any, options: RunOptions, prices: dict[str, Any] | None = None
) -> PromptPreview:
    """Build the request a run would send and count it; nothing goes to a model (a token count may: Anthropic's
    counting API, which generates nothing)."""
    provider = options.provider
    preview = PromptPreview(module.name, provider.name, getattr(provider, "model", None), max_tokens=options.max_tokens)
    session = RunSession(module, input_value, options)
    try:
        request = await session.preview()
    except RunFailed as refused:
        preview.problem = refused.envelope.get("error")
        return preview
    preview.warnings = list(session.warnings)
    preview.system = request.system
    preview.messages = [{"role": m.role, "text": m.text} for m in request.messages]
    preview.response_schema, preview.schema_name = request.response_schema, request.schema_name
    preview.attachments = [
        Attachment(i + 1, m.source, m.mime, len(m.data) if m.fetched else None) for i, m in enumerate(request.media)
    ]
    preview.body = request_body(provider, request)
    preview.tokens, preview.counted = await count(provider, request)
    from cogtui.core.settings.prices import price_for

    price = price_for(preview.model or provider.name, prices or {})
    if price is not None:
        preview.cost_usd = round(price.cost({"input_tokens": preview.tokens}), 8)
        preview.max_output_cost_usd = round(price.cost({"output_tokens": options.max_tokens}), 8)
    return preview


async def count(provider: Provider, request: ModelRequest) -> tuple[int, str]:
    """(input tokens, how they were counted): Anthropic's count when it is the provider and its key is set."""
    from cogtui.core.run.providers.registry import named

    counter = getattr(provider, "count_tokens", None)
    why = ESTIMATED
    if provider.name == "anthropic" and callable(counter) and named("anthropic").missing_key() is None:
        try:
            await provider.prepare()
            return int(await counter(request)), COUNTED
        except ProviderError as exc:
            why = f"an estimate: Anthropic's count failed ({exc.code}: {exc.message[:160]})"
    elif provider.name == "anthropic":
        why = "an estimate: ANTHROPIC_API_KEY is not set, so Anthropic's count cannot be asked"
    text = request.system + "".join(m.text for m in request.messages)
    if request.response_schema is not None:
        text += json.dumps(request.response_schema, ensure_ascii=False)
    note = " (attachments not counted)" if request.media else ""
    return estimate_tokens(text), why + note


__all__ = [
    "COUNTED",
    "ESTIMATED",
    "Attachment",
    "PromptPreview",
    "PromptViewState",
    "count",
    "prompt_as_sent",
    "request_body",
    "sections",
    "token_line",
]
