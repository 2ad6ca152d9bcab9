"""What config.yaml says of providers that a run would not use as written (`settings_problems`, for doctor)."""

from __future__ import annotations

from cogtui.core.run.providers import settings_problems
from cogtui.core.settings.config import Config


def test_a_clean_config_has_no_problems() -> None:
    config = Config(
        provider="openai",
        providers={"openai": {"model": "gpt-4o-mini", "base_url": "http://127.0.0.1:1/v1", "vision": False}},
    )
    assert settings_problems(config, env={}) == []
    assert settings_problems(Config(providers={"replay": {"interval": 0}}), env={}) == []


def test_what_would_be_ignored_or_fail_is_named() -> None:
    config = Config(
        provider="gpt",
        providers={"anthropic": {"model": ["a"], "temperature": 0.2}, "replay": {"interval": True}, "x": {}},
    )
    assert settings_problems(config, env={"COGNITIVE_PROVIDER": "claude"}) == [
        "$COGNITIVE_PROVIDER 'claude' is not a provider; choose one of anthropic, openai, replay",
        "provider 'gpt' is not a provider; choose one of anthropic, openai, replay",
        "providers.anthropic.model must be text, not ['a']",
        "providers.anthropic.temperature: not a setting of anthropic (known: model, base_url)",
        "providers.replay.interval must be a number, not True",  # a boolean is not a number here
        "providers.x: not a provider; choose one of anthropic, openai, replay",
    ]
