"""A stand-in provider for tests and benchmarks: the `Provider` protocol's plumbing in one place.

A stand-in answers in-process (no HTTP client, no SDK): a subclass names itself (`name`, `model`) and writes
`stream`; what it does not say is the plainest answer: no capabilities, no media, nothing to prepare or close.
Imported by tests (the folder is on sys.path under pytest's default import mode) and by bench/ (which puts
tests/ on its path); mypy checks this file with bench/, so a stand-in that no longer fits `Provider` fails
the build, not `make bench`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from cogtui.core.run.providers.base import ModelRequest, Provider, ProviderEvent


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
