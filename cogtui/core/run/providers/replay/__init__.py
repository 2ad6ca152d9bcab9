"""The offline provider: answers from the module's own goldens, examples or data schema (provider.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogtui.core.run.providers.declarations import capability_doc
from cogtui.core.run.providers.registry import ProviderSpec

if TYPE_CHECKING:
    from cogtui.core.run.providers.base import Provider


def declare(settings: Mapping[str, Any]) -> dict[str, Any]:
    # Replay answers with the module's own JSON (goldens, examples, an instance of the schema).
    media = ("image", "audio", "video", "document")
    return capability_doc("replay", True, media, 100, ("json_mode", "long_context"), "replay")


def build(model: str | None, settings: Mapping[str, Any]) -> Provider:
    from cogtui.core.run.providers.replay.provider import ReplayProvider

    interval = settings.get("interval")
    return ReplayProvider(interval=float(interval) if isinstance(interval, (int, float)) else None)


# Replay needs no key, and answers a request the same way every time.
SPEC = ProviderSpec("replay", declare, build, settings={"interval": (int, float)}, deterministic=True)
