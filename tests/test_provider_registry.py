"""One registry of providers (issue 32): every surface that names providers derives from the specs it finds.

The built-in providers are found in their packages. The stand-in (`providerkit.STAND_IN`, declared once,
registered through the registry's test API) is then seen by each headless surface: the `--provider` choices of
every command, selection and building, which key is missing and the message saying so, the masking of its key
values in an envelope, the history and an escaped bug's line, eval targets, `cogn capabilities`, `cogn
validate`'s capability check, the config check and `cogn doctor`. The TUI's pickers: tests/tui/test_provider_pickers.py.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document, envelope
from providerkit import STAND_IN, STAND_IN_KEY, STAND_IN_TOKEN, DeclaredStandIn, stand_in_declaration
from rtkit import MODULES, cli_env, cogn

from cogtui.cli import COMMANDS, build_parser, internal_error
from cogtui.core.eval.cache import deterministic
from cogtui.core.eval.model import Target
from cogtui.core.eval.targets import TargetOption, configured_targets, parse_target
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.providers import PROVIDERS, make_provider, missing_key, selected, settings_problems
from cogtui.core.run.providers.base import ProviderError
from cogtui.core.run.providers.registry import ProviderSpec, registered, secret_variables, specs
from cogtui.core.run.run_start import default_provider
from cogtui.core.settings.config import Config

KEY_VALUE = "sk-stand-in-0123456789abcdef"
TOKEN_VALUE = "tok-stand-in-fedcba9876543210"
# Every command that takes a provider: each must offer every registered provider.
TAKES_A_PROVIDER = {"run", "test", "eval", "validate", "capabilities", "serve", "mcp", "prompt"}


@pytest.fixture
def stand_in() -> Iterator[ProviderSpec]:
    with registered(STAND_IN):
        yield STAND_IN


def test_each_built_in_provider_is_found_in_its_own_package() -> None:
    assert tuple(PROVIDERS) == ("anthropic", "openai", "replay")
    for name, spec in specs().items():
        assert importlib.import_module(f"cogtui.core.run.providers.{name}").SPEC is spec
    assert secret_variables() == ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")


def test_a_registration_lasts_for_its_block_and_refuses_a_name_taken() -> None:
    with registered(STAND_IN):
        assert "stand-in" in PROVIDERS and tuple(PROVIDERS)[-1] == "stand-in"
        with pytest.raises(ValueError, match="a provider named stand-in exists already"), registered(STAND_IN):
            pass
        assert "stand-in" in PROVIDERS
    assert "stand-in" not in PROVIDERS and STAND_IN_KEY not in secret_variables()


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        build_parser("cogn").parse_args([command, "--help"])
    return capsys.readouterr().out


def test_every_provider_option_of_every_command_offers_the_stand_in(
    stand_in: ProviderSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    offering: set[str] = set()
    for command in COMMANDS:
        text = " ".join(help_of(command, capsys).split())
        for choices in re.findall(r"--[\w-]*provider \{([^}]*)\}", text):
            assert choices.split(",") == ["anthropic", "openai", "replay", "stand-in"], (command, choices)
            offering.add(command)
    assert offering == TAKES_A_PROVIDER


def test_it_is_selected_and_built_from_its_settings(stand_in: ProviderSpec) -> None:
    config = Config(provider="stand-in", providers={"stand-in": {"model": "si-2", "fail": True}})
    assert selected(config=config) == ("stand-in", "si-2")
    provider = make_provider(config=config)
    assert isinstance(provider, DeclaredStandIn) and (provider.model, provider.fail) == ("si-2", True)
    assert make_provider("stand-in", "si-3", Config()).model == "si-3"


def test_a_missing_key_is_named_and_the_workbench_falls_back_to_replay(
    stand_in: ProviderSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COGNITIVE_PROVIDER", raising=False)
    monkeypatch.delenv(STAND_IN_KEY, raising=False)
    config = Config(provider="stand-in")
    assert missing_key("stand-in") == STAND_IN_KEY
    assert default_provider(config) == ("replay", None)
    (offered,) = [o for o in configured_targets(Config()) if o.target.provider == "stand-in"]
    assert offered == TargetOption(Target("stand-in", "si-1"), "no API key (STAND_IN_API_KEY is not set)")
    monkeypatch.setenv(STAND_IN_KEY, " \r")  # blank is no key
    assert missing_key("stand-in") == STAND_IN_KEY
    monkeypatch.setenv(STAND_IN_KEY, KEY_VALUE)
    assert missing_key("stand-in") is None and default_provider(config) == ("stand-in", None)
    assert TargetOption(Target("stand-in", "si-1")) in configured_targets(Config())


def test_it_is_an_eval_target_and_not_taken_for_deterministic(stand_in: ProviderSpec) -> None:
    assert parse_target("stand-in/si-9") == Target("stand-in", "si-9")
    assert not deterministic("stand-in") and deterministic("replay")


def test_its_key_values_are_masked_in_envelopes_and_errors(
    stand_in: ProviderSpec, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(STAND_IN_KEY, KEY_VALUE)
    monkeypatch.setenv(STAND_IN_TOKEN, TOKEN_VALUE)
    failed = failure("E4001", f"refused {KEY_VALUE}", details={"sent": [repr(TOKEN_VALUE)]})
    assert failed["error"]["message"] == "refused [redacted]" and failed["error"]["details"] == {
        "sent": ["'[redacted]'"]
    }
    assert ProviderError("E4001", f"refused {KEY_VALUE!r}").message == "refused '[redacted]'"
    assert internal_error("cogn", "run", RuntimeError(f"boom {TOKEN_VALUE}")) == 70
    assert TOKEN_VALUE not in capsys.readouterr().err


def test_a_run_on_it_records_no_key_value_in_the_history(stand_in: ProviderSpec, tmp_path: Path) -> None:
    """Its error quotes both secrets: the envelope printed and the run recorded hold neither."""
    (tmp_path / "config.yaml").write_text("providers:\n  stand-in: {fail: true}\n", encoding="utf-8")
    env = cli_env(tmp_path, **{STAND_IN_KEY: KEY_VALUE, STAND_IN_TOKEN: TOKEN_VALUE})
    inp = MODULES / "code-reviewer" / "tests" / "case1.input.json"
    proc = cogn(tmp_path, "run", "code-reviewer", "--provider", "stand-in", "--json", "--input", str(inp), env=env)
    error = envelope(proc.stdout)["error"]
    assert error["code"] == "E4000" and "[redacted]" in error["message"]
    history = cogn(tmp_path, "history", "--json", env=env)
    (recorded,) = document(history.stdout, "history")["items"]
    assert (recorded["provider"], recorded["outcome"]) == ("stand-in", "error")
    stored = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    assert b"[redacted]" in stored
    for secret in (KEY_VALUE, TOKEN_VALUE):
        assert secret not in proc.stdout + proc.stderr + history.stdout and secret.encode() not in stored


def test_a_run_on_it_answers(stand_in: ProviderSpec, tmp_path: Path) -> None:
    inp = MODULES / "code-reviewer" / "tests" / "case1.input.json"
    args = ("run", "code-reviewer", "--provider", "stand-in", "--model", "si-5", "--json", "--no-history")
    answer = envelope(cogn(tmp_path, *args, "--input", str(inp)).stdout)
    assert answer["ok"] is True and answer["meta"]["model"] == "si-5"


def test_capabilities_prints_its_declaration(stand_in: ProviderSpec, tmp_path: Path) -> None:
    every = json.loads(cogn(tmp_path, "capabilities").stdout)["providers"]
    assert [doc["provider"] for doc in every] == ["anthropic", "openai", "replay", "stand-in"]
    assert json.loads(cogn(tmp_path, "capabilities", "--provider", "stand-in").stdout) == stand_in_declaration({})


def test_validate_judges_a_module_on_its_declaration(stand_in: ProviderSpec, tmp_path: Path) -> None:
    """code-reviewer prefers long_context, which the stand-in does not declare (replay does)."""
    on_replay = cogn(tmp_path, "validate", "code-reviewer", "--provider", "replay").stdout
    on_stand_in = cogn(tmp_path, "validate", "code-reviewer", "--provider", "stand-in").stdout
    assert "long_context" not in on_replay and "provider stand-in lacks long_context" in on_stand_in


def test_config_check_knows_its_name_and_settings(stand_in: ProviderSpec) -> None:
    config = Config(provider="stand-in", providers={"stand-in": {"fail": "yes", "temperature": 0.5, "seed": 1}})
    assert settings_problems(config, env={"COGNITIVE_PROVIDER": "stand-in"}) == [
        "providers.stand-in.fail must be true or false, not 'yes'",
        "providers.stand-in.seed: not a setting of stand-in (known: model, fail, temperature)",
    ]
    assert settings_problems(Config(provider="gpt"), env={}) == [
        "provider 'gpt' is not a provider; choose one of anthropic, openai, replay, stand-in"
    ]


def test_doctor_checks_its_settings(stand_in: ProviderSpec, tmp_path: Path) -> None:
    config = "provider: stand-in\nproviders:\n  stand-in: {temperature: hot, fail: false}\n"
    (tmp_path / "config.yaml").write_text(config, encoding="utf-8")
    proc = cogn(tmp_path, "doctor", env=cli_env(tmp_path, TERM="xterm-256color", COLORTERM="truecolor"))
    assert proc.returncode == 1
    assert "✗ providers.stand-in.temperature must be a number, not 'hot'" in proc.stdout
    assert "not a provider" not in proc.stdout and proc.stdout.rstrip().endswith("1 problem")


def test_finding_the_providers_builds_none_and_imports_no_sdk() -> None:
    """Every command that lists providers finds them: each spec is a cheap declaration, its client and SDK
    are imported by its factory only."""
    probe = (
        "import sys; from cogtui.core.run.providers.registry import specs; found = specs(); "
        "print(sorted(found), sorted(m for m in sys.modules if m.split('.')[0] in "
        "('asyncio', 'threading', 'ssl', 'httpx', 'anthropic') or m.endswith('.provider')))"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "['anthropic', 'openai', 'replay'] []"
