"""The eval's target choices (core/eval/targets.py): each provider with the model it would run, a note when its
API key is missing, and typed `provider/model` pairs (a model may hold slashes; an unknown provider is refused)."""

from __future__ import annotations

import pytest

from cogtui.core.eval.model import Target
from cogtui.core.eval.targets import configured_targets, option, parse_target, target_note
from cogtui.core.run.providers import UnknownProvider
from cogtui.core.run.providers.registry import secret_variables
from cogtui.core.settings.config import Config


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*secret_variables(), "COGNITIVE_PROVIDER", "COGNITIVE_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_each_provider_is_offered_with_its_configured_model_and_a_note_without_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set")
    config = Config(providers={"anthropic": {"model": "claude-haiku-4-5"}})
    offered = {o.target.label: o.note for o in configured_targets(config)}
    assert offered == {
        "anthropic/claude-haiku-4-5": "no API key (ANTHROPIC_API_KEY is not set)",
        "openai/gpt-4o-mini": "",
        "replay": "",
    }


def test_typed_targets() -> None:
    assert parse_target(" openai/meta-llama/Llama-3.1 ") == Target("openai", "meta-llama/Llama-3.1")
    assert parse_target("replay") == Target("replay", None)
    assert option(parse_target("openai"), Config()).target.label == "openai/gpt-4o-mini"  # its default model
    for bad in ("", "gpt-4o", "OpenAI/gpt-4o"):
        with pytest.raises(UnknownProvider, match="write provider/model"):
            parse_target(bad)


def test_the_note_for_a_typed_target() -> None:
    typed, runs_as = parse_target("replay/other"), option(parse_target("replay/other"), Config()).target
    assert target_note(typed, runs_as, listed=False) == "replay does not use a model name: replay/other runs as replay"
    assert target_note(typed, runs_as, listed=True).endswith("(already listed)")
    openai = parse_target("openai/gpt-test")
    assert target_note(openai, openai, listed=False) == ""
    assert target_note(openai, openai, listed=True) == "openai/gpt-test is already listed"
