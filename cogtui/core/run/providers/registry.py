"""The providers cogtui knows: each declares a `ProviderSpec` in its own package, and this module finds them.

A provider is a package `cogtui/core/run/providers/<name>/` whose `__init__.py` declares `SPEC`: its
name, the settings config.yaml's `providers.<name>` may hold and their types, the environment variables
holding its key, its SPEC-v2.5 §8.1 capability declaration and a factory that builds it. Every place that
names providers asks here: selection and the config checks (providers/__init__.py), the CLI's `--provider`
choices, which key a run is missing, the masking of key values in every message (envelope_builder), eval
targets, `cogn capabilities`, `cogn doctor` and the TUI's pickers. Adding a provider is its package and
its test (docs/providers.md).

A spec is a cheap declaration: finding the specs imports each provider's `__init__.py` and nothing else,
so the headless start-up stays light; a factory imports its provider's client (and SDK) when it builds one.
This module imports nothing of the providers' run-time code: `base.py` redacts through it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cogtui.core.records import field, record

# The model is a setting of every provider (selection reads `providers.<name>.model` for each).
MODEL_SETTING: dict[str, tuple[type, ...]] = {"model": (str,)}


@record
class ProviderSpec:
    """One provider, declared: everything cogtui needs to offer, check and build it without building it."""

    name: str
    # (settings) -> the §8.1 declaration (declarations.capability_doc), from config.yaml's providers.<name>.
    declare: Callable[[Mapping[str, Any]], dict[str, Any]]
    # (model or None for the provider's default, settings without `model`) -> a Provider (providers/base.py).
    # Typed loosely: naming base.Provider here would import base, which imports this module to redact.
    factory: Callable[[str | None, Mapping[str, Any]], Any]
    # config.yaml's providers.<name> keys besides `model`, with the types each accepts.
    settings: Mapping[str, tuple[type, ...]] = field(default_factory=dict)
    # Environment variables holding secrets: the first is the key a run needs; every one is masked in messages.
    key_variables: tuple[str, ...] = ()
    # Answers the same request the same way every time (eval's `--cache` deterministic mode may reuse them).
    deterministic: bool = False

    @property
    def key(self) -> str | None:
        """The variable whose key a run needs, or None for a provider that needs none."""
        return self.key_variables[0] if self.key_variables else None

    @property
    def accepted_settings(self) -> dict[str, tuple[type, ...]]:
        return {**MODEL_SETTING, **self.settings}

    def missing_key(self, env: Mapping[str, str] | None = None) -> str | None:
        """The key variable a run needs and that is unset, else None. Whitespace around a key is stripped where
        it is used (a .env with CRLF), so a blank value is no key."""
        if self.key is None:
            return None
        return None if ((os.environ if env is None else env).get(self.key) or "").strip() else self.key

    def declaration(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        return self.declare(settings)

    def build(self, model: str | None, settings: Mapping[str, Any]) -> Any:
        return self.factory(model, settings)


_found: dict[str, ProviderSpec] | None = None  # the packages' specs, found once per process
_added: dict[str, ProviderSpec] = {}  # specs registered from outside the package (tests' stand-ins)


def _discover() -> dict[str, ProviderSpec]:
    """Every package beside this module that declares a `SPEC`, by name. (A listing of the folder: pkgutil's
    would import `inspect` into every command's start-up.)"""
    import importlib

    package, here = __name__.rpartition(".")[0], os.path.dirname(__file__)
    found: dict[str, ProviderSpec] = {}
    for entry in sorted(os.scandir(here), key=lambda e: e.name):
        if entry.name.isidentifier() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
            spec = getattr(importlib.import_module(f"{package}.{entry.name}"), "SPEC", None)
            if isinstance(spec, ProviderSpec):
                found[spec.name] = spec
    return found


def specs() -> dict[str, ProviderSpec]:
    """Every provider, by name, in name order."""
    global _found
    if _found is None:
        _found = _discover()
    return dict(sorted({**_found, **_added}.items()))


def find(name: str | None) -> ProviderSpec | None:
    return specs().get(name) if name else None


def named(name: str) -> ProviderSpec:
    """The spec of a provider that exists (a provider's own client asks for its spec so)."""
    return specs()[name]


def secret_variables() -> tuple[str, ...]:
    """Every provider's key variables: their values are masked wherever a message might quote them."""
    return tuple(dict.fromkeys(var for spec in specs().values() for var in spec.key_variables))


@contextmanager
def registered(*added: ProviderSpec) -> Iterator[None]:
    """Providers declared outside the package for the block's duration (the test's stand-ins): every surface
    that lists or checks providers sees them, as it sees a package's own."""
    taken = [spec.name for spec in added if spec.name in specs()]
    if taken:
        raise ValueError(f"a provider named {', '.join(taken)} exists already")
    _added.update((spec.name, spec) for spec in added)
    try:
        yield
    finally:
        for spec in added:
            _added.pop(spec.name, None)


__all__ = ["ProviderSpec", "find", "named", "registered", "secret_variables", "specs"]
