"""The opt-in response cache (`cogn eval --cache`): a model answer reused for an identical request (D83).

The key is a digest of what the model would be sent and who would answer:
the module's digest, the provider, the model, and every field of the request
(system prompt, messages with the input, media bytes, max_tokens, the JSON
mode, anything a provider adds later); timeouts are not part of it. A hit
streams the stored answer through the normal pipeline (extraction, repairs,
validation), so changes to post-processing and output fixes are tried
without a model call; a miss calls the provider and keeps the answer for the
run to store once it is recorded. Answers are reused only from targets whose
sampling is deterministic (`deterministic`), unless `--cache=any`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from typing import Any, Protocol

from cogtui.core.module.model import Module
from cogtui.core.records import record_fields
from cogtui.core.run.providers.base import ModelRequest, Provider, ProviderEvent, ProviderWrapper, TextDelta, Usage
from cogtui.core.run.providers.registry import find

CACHE_FORMAT = "cogtui-response-cache/1"  # part of every key: a change of key recipe misses old entries
MODES = ("off", "deterministic", "any")


class ResponseStore(Protocol):
    def cached_response(self, key: str) -> tuple[int, str] | None:
        """(the run that paid for it, the model's raw answer) for a key, newest first; None on a miss."""
        ...


def deterministic(provider_name: str) -> bool:
    """cogtui sends no sampling parameters, so model providers run at their default temperature (above 0):
    only a provider whose spec says so (replay) answers the same request the same way every time (D83)."""
    spec = find(provider_name)
    return spec is not None and spec.deterministic


def module_digest(module: Module) -> str:
    """The module as the model sees it: manifest, prompt and schemas."""
    s = module.schemas
    doc = [module.name, module.version, module.manifest, module.prompt, s.input, s.data, s.meta, s.error, s.root]
    return _digest(doc)


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def request_key(module_hash: str, provider: str, model: str | None, request: ModelRequest) -> str:
    fields: dict[str, Any] = {}
    for f in record_fields(request):
        if f.name in ("module", "input", "timeout"):
            continue
        value = getattr(request, f.name)
        if f.name == "media":
            value = [[m.mime, hashlib.sha256(m.data).hexdigest(), list(m.path)] for m in value]
        elif f.name == "messages":
            value = [[m.role, m.text] for m in value]
        fields[f.name] = value
    return _digest([CACHE_FORMAT, module_hash, provider, model, fields])


class CachingProvider(ProviderWrapper):
    """One run's provider with the response cache in front: hits replay a stored answer, misses call through.

    `hits` holds the runs whose answers were reused; `fresh` the (key, raw answer) pairs of calls that
    completed, for the caller to store with the run's id once the run is recorded."""

    def __init__(self, inner: Provider, store: ResponseStore | None, module_hash: str) -> None:
        super().__init__(inner)
        self.store = store
        self.module_hash = module_hash
        self.hits: list[int] = []
        self.calls = 0  # calls that went to the provider
        self.fresh: list[tuple[str, str]] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        key = request_key(self.module_hash, self.name, self.model, request)
        found = self.store.cached_response(key) if self.store is not None else None
        if found is not None:
            run_id, raw = found
            self.hits.append(run_id)
            yield TextDelta(raw)
            yield Usage(0, 0)  # nothing was paid for this answer
            return
        self.calls += 1
        text: list[str] = []
        async for event in self.inner.stream(request):
            if isinstance(event, TextDelta):
                text.append(event.text)
            yield event
        self.fresh.append((key, "".join(text)))

    async def aclose(self) -> None:
        return None  # the inner provider is shared by every run of its target; its owner closes it

    @property
    def served_from_cache(self) -> bool:
        return bool(self.hits) and self.calls == 0
