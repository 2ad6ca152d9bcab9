"""The offline provider: answers from the module's own goldens, examples, or data schema.

It streams its answer in even chunks at a steady pace, never touches the
network, and its answers always carry `meta.model: "replay"` (the runner
writes the provider's model name into meta) so nobody mistakes it for a model.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any

from cogtui.core.module.model import UNPARSED, Module
from cogtui.core.rules.golden_contract import is_contract
from cogtui.core.rules.judge_spec import without_judge
from cogtui.core.run.manifest_policy import without_runtime_meta
from cogtui.core.run.prompt import estimate_tokens
from cogtui.core.run.providers.base import ModelRequest, ProviderEvent, TextDelta, Usage
from cogtui.core.run.providers.declarations import media_input
from cogtui.core.run.providers.registry import named
from cogtui.core.run.schema_instance import contract_instance, minimal_instance

SPEC = named("replay")  # this provider's declaration (its package's __init__.py)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def choose_answer(module: Module, input_value: Any) -> tuple[dict[str, Any], str]:
    """(answer, where it came from): a matching golden, a matching or first example, or a minimal instance."""
    key = canonical(input_value)
    for test in module.tests:
        if test.input is not UNPARSED and canonical(test.input) == key and isinstance(test.expected, dict):
            if is_contract(test.expected):  # a contract golden: an instance generated to satisfy it (GOLD-1)
                return contract_instance(module, test.expected), f"golden {test.name} (contract)"
            return _strip_runtime(test.expected), f"golden {test.name}"
    examples = [e for e in module.examples if isinstance(e.output, dict)]
    for ex in examples:
        if ex.input is not UNPARSED and canonical(ex.input) == key:
            return _strip_runtime(ex.output), f"example {ex.name}"
    if examples:
        return _strip_runtime(examples[0].output), f"example {examples[0].name} (input differs)"
    data = minimal_instance(module.schemas.data or {"type": "object", "required": ["rationale"]}, module.schemas.root)
    if not isinstance(data, dict):
        data = {}
    data.setdefault("rationale", "Replay: minimal instance of the data schema.")
    meta = {
        "confidence": 0.5,
        "risk": "medium",
        "explain": "Replay: no golden test matched this input, so this is a minimal instance of the data schema.",
    }
    if module.format.has_envelope_contract:
        return {"ok": True, "meta": meta, "data": data}, "minimal instance"
    return {**data, "confidence": data.get("confidence", 0.5)}, "minimal instance"


def _strip_runtime(answer: dict[str, Any]) -> dict[str, Any]:
    """The runtime fills trace_id, model, latency_ms, warnings and model_calls: a model never writes them. A
    golden's `$judge` rubric is for the judge, no part of the answer."""
    return without_runtime_meta(without_judge(answer))


class ReplayProvider:
    name = "replay"
    offline = True  # the runner fetches no URL media for it (RUN-20)

    def __init__(self, model: str | None = None, chunk_size: int = 24, interval: float | None = None) -> None:
        self.model = "replay"
        self.chunk_size = max(1, chunk_size)
        env = os.environ.get("COGTUI_REPLAY_INTERVAL")
        self.interval = interval if interval is not None else (float(env) if env else 0.01)

    def capabilities(self) -> dict[str, Any]:
        return SPEC.declaration({})

    def media_categories(self) -> tuple[str, ...]:
        return media_input(self.capabilities())

    async def prepare(self) -> None:
        return None  # nothing to load

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        if request.module is None:
            raise ValueError("the replay provider needs the module")
        answer, _source = choose_answer(request.module, request.input)
        text = json.dumps(answer, ensure_ascii=False, indent=2)
        for i in range(0, len(text), self.chunk_size):
            if self.interval:
                await asyncio.sleep(self.interval)
            yield TextDelta(text[i : i + self.chunk_size])
        prompt = request.system + "".join(m.text for m in request.messages)
        yield Usage(estimate_tokens(prompt), estimate_tokens(text))

    async def aclose(self) -> None:
        return None
