"""What an eval can run against, for the TUI's target picker: each provider as configured, and typed pairs.

`cogn eval` takes targets as `--provider P --model M` pairs; the eval screen offers
each provider with the model it would use (the same selection as `make_provider`:
$COGNITIVE_MODEL, config.yaml, the provider's default), and takes more as typed
`provider/model` text. A target whose provider has no API key is offered with a
note: its runs fail with E4001, which is itself an answer. Nothing here makes an
HTTP client or reads a key's value beyond whether it is set.
"""

from __future__ import annotations

from cogtui.core.eval.model import Target
from cogtui.core.records import record
from cogtui.core.run.providers import PROVIDERS, UnknownProvider, make_provider, missing_key
from cogtui.core.settings.config import Config

CACHE_MODES = ("off", "deterministic", "any")  # EvalSettings.cache: off, `--cache`, `--cache=any` (D83)


@record
class EvalChoice:
    """What an eval runs against, in order, and its response cache mode (one of CACHE_MODES)."""

    targets: tuple[Target, ...]
    cache: str = "off"


@record
class TargetOption:
    """A provider/model an eval can run on, offered with what would keep its runs from succeeding."""

    target: Target
    note: str = ""  # why its runs would fail (no API key), shown next to it


def configured_targets(config: Config) -> list[TargetOption]:
    """Every provider, with the model it would run (its configured one, else its default)."""
    return [option(Target(name), config) for name in PROVIDERS]


def option(target: Target, config: Config) -> TargetOption:
    """The target with the model it would really run (a provider alone: its configured or default model)."""
    provider = make_provider(target.provider, target.model, config)  # builds no client: the first call does
    variable = missing_key(provider.name)
    note = f"no API key ({variable} is not set)" if variable else ""
    return TargetOption(Target(provider.name, provider.model), note)


def parse_target(text: str) -> Target:
    """`provider` or `provider/model` (a model may hold slashes itself: `openai/meta-llama/Llama-3`)."""
    provider, _, model = text.strip().partition("/")
    provider, model = provider.strip(), model.strip()
    if provider not in PROVIDERS:
        raise UnknownProvider(
            f"unknown provider {provider!r} in {text.strip()!r}; write provider/model with a provider among "
            + ", ".join(PROVIDERS)
        )
    return Target(provider, model or None)


def target_note(typed: Target, runs_as: Target, listed: bool) -> str:
    """What to tell the user who typed `typed` in the targets dialog, when it is not simply added ("" when it is):
    a provider that has no use for the model named (replay answers with the goldens), or a target listed already."""
    if typed.model and runs_as.model != typed.model:
        return f"{typed.provider} does not use a model name: {typed.label} runs as {runs_as.label}" + (
            " (already listed)" if listed else ""
        )
    return f"{runs_as.label} is already listed" if listed else ""


__all__ = ["CACHE_MODES", "EvalChoice", "TargetOption", "configured_targets", "option", "parse_target", "target_note"]
