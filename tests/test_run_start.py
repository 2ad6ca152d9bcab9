"""What a new run starts from (core.run.run_start): the inputs on offer, the prefilled one, the provider (TUI-1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from modkit import clean_v1, clean_v22, make_module, mapping_in

from cogtui.core.module.loader import load_module
from cogtui.core.run.providers.registry import secret_variables
from cogtui.core.run.run_start import InputChoice, default_provider, input_choices, starting_input
from cogtui.core.settings.config import Config


def test_goldens_are_offered_in_order_and_an_unreadable_one_is_left_out(tmp_path: Path) -> None:
    files = clean_v22()
    mapping_in(files, "module.yaml")["tests"] = [
        "tests/case1.input.json -> tests/case1.expected.json",
        "tests/broken.input.json -> tests/case1.expected.json",
        "tests/case2.input.json -> tests/case1.expected.json",
    ]
    files["tests/broken.input.json"] = "{not json"
    files["tests/case2.input.json"] = {"text": "second"}
    choices = input_choices(load_module(make_module(tmp_path, files)))
    assert [c.label for c in choices] == ["golden case1", "golden case2"]
    assert choices[1].value == {"text": "second"}


def test_examples_are_offered_after_the_goldens(tmp_path: Path) -> None:
    choices = input_choices(load_module(make_module(tmp_path, clean_v1())))
    assert [c.label.split()[0] for c in choices] == ["example"]
    assert choices[0].value == {"text": "Long text"}


def test_the_given_input_wins_then_the_first_choice_then_an_empty_object() -> None:
    choices = [InputChoice("golden a", {"a": 1}), InputChoice("golden b", {"b": 2})]
    assert starting_input(choices, {"mine": True}) == {"mine": True}
    assert starting_input(choices, "") == ""  # a given empty string is still given
    assert starting_input(choices) == {"a": 1}
    assert starting_input([]) == {}


@pytest.fixture
def no_provider_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("COGNITIVE_PROVIDER", "COGNITIVE_MODEL", *secret_variables()):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_configured_provider_without_its_key_falls_back_to_replay_quietly(
    no_provider_env: pytest.MonkeyPatch,
) -> None:
    assert default_provider(Config(provider="anthropic")) == ("replay", None)
    no_provider_env.setenv("ANTHROPIC_API_KEY", "  ")  # blank is no key
    assert default_provider(Config(provider="anthropic")) == ("replay", None)


def test_a_configured_provider_with_its_key_is_used(no_provider_env: pytest.MonkeyPatch) -> None:
    no_provider_env.setenv("OPENAI_API_KEY", "sk-test")
    assert default_provider(Config(provider="openai")) == ("openai", None)
    assert default_provider(Config()) == ("replay", None)


def test_an_unknown_provider_falls_back_to_replay_and_says_why(no_provider_env: pytest.MonkeyPatch) -> None:
    no_provider_env.setenv("COGNITIVE_PROVIDER", "nonsense")
    name, problem = default_provider(Config())
    assert name == "replay"
    assert problem is not None and "nonsense" in problem and problem.endswith("using replay")
