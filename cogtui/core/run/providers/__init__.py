"""Provider selection: --provider/--model, else COGNITIVE_PROVIDER/COGNITIVE_MODEL, else config.yaml, else replay.

The anthropic and httpx imports happen only when those providers are built,
so headless commands that never call a model stay fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogtui.core.run.providers.declarations import declaration
from cogtui.core.settings.config import Config, load_config

if TYPE_CHECKING:
    from cogtui.core.run.providers.base import Provider

PROVIDERS = ("anthropic", "openai", "replay")


class UnknownProvider(ValueError):
    pass


def selected(name: str | None = None, model: str | None = None, config: Config | None = None) -> tuple[str, str | None]:
    cfg = config or load_config()
    env_provider = os.environ.get("COGNITIVE_PROVIDER")
    chosen = name or env_provider or cfg.provider or "replay"
    if chosen not in PROVIDERS:
        raise UnknownProvider(f"unknown provider {chosen!r}; choose one of {', '.join(PROVIDERS)}")
    settings = cfg.provider_settings(chosen)
    # A default model belongs to its default provider (as with the config file's `model:`):
    # `--provider openai` must not send COGNITIVE_PROVIDER=anthropic's COGNITIVE_MODEL to OpenAI.
    env_model = os.environ.get("COGNITIVE_MODEL") if env_provider in (None, "", chosen) else None
    picked = model or env_model or (cfg.model if cfg.provider == chosen else None) or settings.get("model")
    return chosen, picked if isinstance(picked, str) else None


def make_provider(
    name: str | None = None, model: str | None = None, config: Config | None = None, **overrides: Any
) -> Provider:
    cfg = config or load_config()
    chosen, picked = selected(name, model, cfg)
    settings = {**cfg.provider_settings(chosen), **overrides}
    settings.pop("model", None)
    if chosen == "replay":
        from cogtui.core.run.providers.replay import ReplayProvider

        interval = settings.get("interval")
        return ReplayProvider(interval=float(interval) if isinstance(interval, (int, float)) else None)
    if chosen == "anthropic":
        from cogtui.core.run.providers.anthropic import AnthropicProvider

        return AnthropicProvider(model=picked, base_url=settings.get("base_url"))
    from cogtui.core.run.providers.openai import OpenAIProvider

    vision = settings.get("vision")
    return OpenAIProvider(
        model=picked, base_url=settings.get("base_url"), vision=vision if isinstance(vision, bool) else True
    )


def declared(name: str | None = None, config: Config | None = None) -> tuple[str, dict[str, Any]]:
    """(name, capability declaration) of the provider `make_provider(name)` would build, without building it."""
    cfg = config or load_config()
    chosen, _model = selected(name, None, cfg)
    return chosen, declaration(chosen, cfg.provider_settings(chosen))


# What each provider reads from config.yaml's `providers.<name>` (make_provider, declarations), by type.
PROVIDER_SETTINGS: dict[str, dict[str, tuple[type, ...]]] = {
    "anthropic": {"model": (str,), "base_url": (str,)},
    "openai": {"model": (str,), "base_url": (str,), "vision": (bool,)},
    "replay": {"model": (str,), "interval": (int, float)},
}


def settings_problems(config: Config, env: Mapping[str, str] | None = None) -> list[str]:
    """What in the config's provider settings a run would not use as written: an unknown `provider` (every run
    would fail, or the TUI fall back to replay), an unknown name under `providers`, an unknown key or a value of
    the wrong type there (silently ignored by the provider). For `cogn doctor`."""
    problems: list[str] = []
    from_env = (os.environ if env is None else env).get("COGNITIVE_PROVIDER")
    if from_env and from_env not in PROVIDERS:
        problems.append(f"$COGNITIVE_PROVIDER {from_env!r} is not a provider; choose one of {', '.join(PROVIDERS)}")
    if config.provider is not None and config.provider not in PROVIDERS:
        problems.append(f"provider {config.provider!r} is not a provider; choose one of {', '.join(PROVIDERS)}")
    for name, settings in config.providers.items():
        known = PROVIDER_SETTINGS.get(name)
        if known is None:
            problems.append(f"providers.{name}: not a provider; choose one of {', '.join(PROVIDERS)}")
            continue
        for key, value in settings.items():
            types = known.get(key)
            if types is None:
                problems.append(f"providers.{name}.{key}: not a setting of {name} (known: {', '.join(known)})")
            elif not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
                wanted = {str: "text", bool: "true or false"}.get(types[0], "a number")
                problems.append(f"providers.{name}.{key} must be {wanted}, not {value!r}")
    return problems


def has_api_key(name: str) -> bool:
    # Whitespace around a key is stripped when it is used (a .env with CRLF), so a blank one is no key.
    return bool(
        os.environ.get({"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}.get(name, ""), "").strip()
    )


__all__ = [
    "PROVIDERS",
    "PROVIDER_SETTINGS",
    "UnknownProvider",
    "declared",
    "has_api_key",
    "make_provider",
    "selected",
    "settings_problems",
]
