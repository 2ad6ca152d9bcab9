"""Each provider's capability declaration (SPEC-v2.5 §8.1), known without building the provider.

`cogn validate` checks runtime_requirements against the default provider's
declaration (M021); reading it from here costs no import of the providers'
run-time code (asyncio, the SDKs). The provider classes answer
`capabilities()` and `media_categories()` from the same tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Capability names a module may list under runtime_requirements.preferred_capabilities (D54).
KNOWN_FEATURES = ("json_mode", "long_context", "streaming", "vision", "documents")

REPLAY_MEDIA = ("image", "audio", "video", "document")
ANTHROPIC_MEDIA = ("image", "document")


def capability_doc(
    name: str,
    streaming: bool,
    media_in: tuple[str, ...],
    max_mb: int,
    features: tuple[str, ...] = (),
    structured: str | None = None,
) -> dict[str, Any]:
    """SPEC-v2.5 §8.1 capability declaration; `features` are what preferred_capabilities is checked against.

    `structured` is how the provider takes a response schema (`structured_output_format`): json_schema
    (OpenAI-compatible response_format), output_config (Anthropic), replay (answers from the module's
    own goldens), or None for no structured output (D72).
    """
    from cogtui import __version__

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
            "structured_output": structured is not None,
            "structured_output_format": structured,
            "features": sorted({*features, *(["streaming"] if streaming else [])}),
        },
    }


def openai_media(vision: bool) -> tuple[str, ...]:
    return ("image",) if vision else ()


def declaration(name: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The declaration of provider `name` (one of PROVIDERS) configured with `settings` (config.yaml's)."""
    if name == "replay":
        # Replay answers with the module's own JSON (goldens, examples, an instance of the schema).
        return capability_doc(name, True, REPLAY_MEDIA, 100, ("json_mode", "long_context"), "replay")
    if name == "anthropic":
        features = ("json_mode", "long_context", "vision", "documents")
        return capability_doc(name, True, ANTHROPIC_MEDIA, 20, features, "output_config")
    vision = settings.get("vision")
    media = openai_media(vision if isinstance(vision, bool) else True)
    return capability_doc(name, True, media, 20, ("json_mode", *(("vision",) if media else ())), "json_schema")
