"""A stand-in provider for tests and benchmarks: the `Provider` protocol's plumbing in one place.

A stand-in answers in-process (no HTTP client, no SDK): a subclass names itself (`name`, `model`) and writes
`stream`; what it does not say is the plainest answer: no capabilities, no media, nothing to prepare or close.
`STAND_IN` declares one as a provider package would (a `ProviderSpec`), for the tests that register it
(`registry.registered`) and check that every surface naming providers sees it.
Imported by tests (the folder is on sys.path under pytest's default import mode) and by bench/ (which puts
tests/ on its path); mypy checks this file with bench/, so a stand-in that no longer fits `Provider` fails
the build, not `make bench`.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping
from typing import Any

from cogtui.core.run.providers.base import ModelRequest, Provider, ProviderEvent, TextDelta, Usage
from cogtui.core.run.providers.declarations import capability_doc
from cogtui.core.run.providers.registry import ProviderSpec


class StandInProvider:
    """The `Provider` protocol with nothing declared; subclasses override `stream` (and what else they declare)."""

    name = "stand-in"
    model = "stand-in"

    def capabilities(self) -> dict[str, Any]:
        return {}

    def media_categories(self) -> tuple[str, ...]:
        return ()

    async def prepare(self) -> None:
        return None

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        raise NotImplementedError(f"{type(self).__name__} answers nothing: write its stream")

    async def aclose(self) -> None:
        return None


def as_provider(stand_in: StandInProvider) -> Provider:
    """A stand-in where a `Provider` is asked for (mypy checks here that the base class fits the protocol)."""
    return stand_in


STAND_IN_KEY, STAND_IN_TOKEN = "STAND_IN_API_KEY", "STAND_IN_TOKEN"  # its key variables: the key, and a secret


def stand_in_declaration(settings: Mapping[str, Any]) -> dict[str, Any]:
    """What `cogn capabilities` prints for it: streaming, no media, 1 MB, answers like replay."""
    return capability_doc("stand-in", True, (), 1, ("json_mode",), "replay")


class DeclaredStandIn(StandInProvider):
    """The provider `STAND_IN` builds: it answers with the module's matching golden (as replay does); with
    `fail: true` in its settings it raises an error quoting its key and token, as a careless SDK might."""

    def __init__(self, model: str | None, fail: bool) -> None:
        self.model = model or "si-1"
        self.fail = fail

    def capabilities(self) -> dict[str, Any]:
        return stand_in_declaration({})

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        from cogtui.core.run.providers.replay.provider import choose_answer

        if self.fail:
            secrets = [os.environ.get(STAND_IN_KEY), os.environ.get(STAND_IN_TOKEN)]
            raise RuntimeError(f"the server said: {secrets!r} are not valid")
        assert request.module is not None
        answer, _source = choose_answer(request.module, request.input)
        yield TextDelta(json.dumps(answer))
        yield Usage(1, 1)


def build_stand_in(model: str | None, settings: Mapping[str, Any]) -> Provider:
    return DeclaredStandIn(model, settings.get("fail") is True)


STAND_IN = ProviderSpec(
    "stand-in",
    stand_in_declaration,
    build_stand_in,
    settings={"fail": (bool,), "temperature": (int, float)},
    key_variables=(STAND_IN_KEY, STAND_IN_TOKEN),
)
