"""Provider selection: --provider/--model, else COGNITIVE_PROVIDER/COGNITIVE_MODEL, else config.yaml, else replay.

The providers are those the registry finds (registry.py: one package each, declaring its `ProviderSpec`);
everything here is derived from their specs. The anthropic and httpx imports happen only when those
providers are built, so headless commands that never call a model stay fast.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from cogtui.core.run.providers.registry import find, named, specs
from cogtui.core.settings.config import Config, load_config

if TYPE_CHECKING:
    from cogtui.core.run.providers.base import Provider


class ProviderNames(Sequence[str]):
    """The providers' names in name order, read from the registry each time it is asked (so argparse's
    `choices`, a picker's options and every "choose one of" see a provider registered later)."""

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return tuple(specs())[index]

    def __len__(self) -> int:
        return len(specs())

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(specs()))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and find(name) is not None

    def __repr__(self) -> str:
        return repr(tuple(specs()))


PROVIDERS = ProviderNames()


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
    provider: Provider = named(chosen).build(picked, settings)
    return provider


def declared(name: str | None = None, config: Config | None = None) -> tuple[str, dict[str, Any]]:
    """(name, capability declaration) of the provider `make_provider(name)` would build, without building it."""
    cfg = config or load_config()
    chosen, _model = selected(name, None, cfg)
    return chosen, named(chosen).declaration(cfg.provider_settings(chosen))


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
        spec = find(name)
        if spec is None:
            problems.append(f"providers.{name}: not a provider; choose one of {', '.join(PROVIDERS)}")
            continue
        known = spec.accepted_settings
        for key, value in settings.items():
            types = known.get(key)
            if types is None:
                problems.append(f"providers.{name}.{key}: not a setting of {name} (known: {', '.join(known)})")
            elif not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
                wanted = {str: "text", bool: "true or false"}.get(types[0], "a number")
                problems.append(f"providers.{name}.{key} must be {wanted}, not {value!r}")
    return problems


def missing_key(name: str) -> str | None:
    """The environment variable holding the key provider `name` needs, when it is not set; None when the
    provider has its key or needs none."""
    spec = find(name)
    return spec.missing_key() if spec is not None else None


__all__ = [
    "PROVIDERS",
    "ProviderNames",
    "UnknownProvider",
    "declared",
    "make_provider",
    "missing_key",
    "selected",
    "settings_problems",
]
