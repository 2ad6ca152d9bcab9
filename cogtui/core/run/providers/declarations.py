"""The SPEC-v2.5 §8.1 capability declaration, as each provider's spec writes it (its package's `declare`).

`cogn validate` checks runtime_requirements against the default provider's
declaration (M021); the specs build it without importing the providers'
run-time code (asyncio, the SDKs). The provider classes answer
`capabilities()` and `media_categories()` from their spec's declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Capability names a module may list under runtime_requirements.preferred_capabilities (D54).
KNOWN_FEATURES = ("json_mode", "long_context", "streaming", "vision", "documents")


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


def media_input(declaration: Mapping[str, Any]) -> tuple[str, ...]:
    """The input media categories a declaration names (a provider's `media_categories()`)."""
    return tuple(declaration["capabilities"]["multimodal"]["input"])
