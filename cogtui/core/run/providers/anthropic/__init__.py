"""Anthropic's Messages API through its official SDK (the client: provider.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogtui.core.run.providers.declarations import capability_doc
from cogtui.core.run.providers.registry import ProviderSpec

if TYPE_CHECKING:
    from cogtui.core.run.providers.base import Provider


def declare(settings: Mapping[str, Any]) -> dict[str, Any]:
    features = ("json_mode", "long_context", "vision", "documents")
    return capability_doc("anthropic", True, ("image", "document"), 20, features, "output_config")


def build(model: str | None, settings: Mapping[str, Any]) -> Provider:
    from cogtui.core.run.providers.anthropic.provider import AnthropicProvider

    return AnthropicProvider(model=model, base_url=settings.get("base_url"))


# The SDK reads ANTHROPIC_AUTH_TOKEN too: a secret, masked in messages like the key.
SPEC = ProviderSpec(
    "anthropic",
    declare,
    build,
    settings={"base_url": (str,)},
    key_variables=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
)
