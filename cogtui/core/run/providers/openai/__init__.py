"""Any OpenAI-compatible chat-completions endpoint over httpx (the client: provider.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogtui.core.run.providers.declarations import capability_doc
from cogtui.core.run.providers.registry import ProviderSpec

if TYPE_CHECKING:
    from cogtui.core.run.providers.base import Provider


def vision(settings: Mapping[str, Any]) -> bool:
    """`vision: false` for a server whose model takes no images; images are sent unless it says so."""
    value = settings.get("vision")
    return value if isinstance(value, bool) else True


def declare(settings: Mapping[str, Any]) -> dict[str, Any]:
    media = ("image",) if vision(settings) else ()
    features = ("json_mode", *(("vision",) if media else ()))
    return capability_doc("openai", True, media, 20, features, "json_schema")


def build(model: str | None, settings: Mapping[str, Any]) -> Provider:
    from cogtui.core.run.providers.openai.provider import OpenAIProvider

    return OpenAIProvider(model=model, base_url=settings.get("base_url"), vision=vision(settings))


# The key is optional for a server other than OpenAI's own (a local one): see provider.py's needs_key.
SPEC = ProviderSpec(
    "openai", declare, build, settings={"base_url": (str,), "vision": (bool,)}, key_variables=("OPENAI_API_KEY",)
)
