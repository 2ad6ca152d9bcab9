"""`cogn validate` checks runtime_requirements against the chosen or default provider (issue 10, RUN-4: M021).

The details pane shows the same report (workspace.ReportCache -> check_path -> validate_module), so
the rule is tested here once, through the core API and through the real `cogn` process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import report
from rtkit import MODULES, cli_env, cogn, copy_module

from cogtui.core.module.loader import load_module
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.run.providers.anthropic.provider import AnthropicProvider
from cogtui.core.run.providers.openai.provider import OpenAIProvider
from cogtui.core.run.providers.replay.provider import ReplayProvider
from cogtui.core.workspace import ReportCache, check_path, provider_capabilities

OPENAI = ("openai", OpenAIProvider().capabilities())
ANTHROPIC = ("anthropic", AnthropicProvider().capabilities())
REPLAY = ("replay", ReplayProvider().capabilities())


def m021(diags: list[Any]) -> list[Any]:
    return [d for d in diags if d.code == "M021"]


def open_schema_module(tmp_path: Path, requirement: Any) -> Path:
    """code-reviewer whose data has a free-form object, which no strict response schema can say."""
    root = copy_module(tmp_path, "code-reviewer", "free-form")
    schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    schema["data"]["properties"]["context"] = {"type": "object"}
    (root / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    man = yaml.safe_load((root / "module.yaml").read_text(encoding="utf-8"))
    man["runtime_requirements"] = {"structured_output": requirement}
    (root / "module.yaml").write_text(yaml.safe_dump(man, sort_keys=False), encoding="utf-8")
    return root


def test_each_provider_is_judged_on_its_own_declaration() -> None:
    module = load_module(MODULES / "code-reviewer")  # structured_output: true, prefers json_mode and long_context
    assert m021(validate_module(module, provider=REPLAY)) == []
    on_openai = m021(validate_module(module, provider=OPENAI))
    lacks = [d for d in on_openai if "preferred_capabilities" in d.message]
    assert len(lacks) == 1 and "lacks long_context" in lacks[0].message and "json_mode" not in lacks[0].message
    # Required structured output that holds in part: the keywords the provider cannot enforce are named.
    partial = [d for d in on_openai if d.message.startswith("runtime_requirements.structured_output")]
    assert len(partial) == 1 and "maxLength" in partial[0].message and "minimum" not in partial[0].message
    on_anthropic = [d.message for d in m021(validate_module(module, provider=ANTHROPIC))]
    assert len(on_anthropic) == 1 and "minimum" in on_anthropic[0] and "output_config" in on_anthropic[0]
    assert all(d.line is not None and d.line > 1 for d in on_openai)  # located at the field in module.yaml


@pytest.mark.parametrize(("requirement", "then"), [(True, "runs fail with E4007"), (None, "prompt contract only")])
def test_a_schema_no_provider_can_take_is_reported(tmp_path: Path, requirement: Any, then: str) -> None:
    module = load_module(open_schema_module(tmp_path, requirement))
    (found,) = [d for d in m021(validate_module(module, provider=OPENAI)) if "cannot be sent" in d.message]
    assert "data/context" in found.message and then in found.message
    assert m021(validate_module(load_module(open_schema_module(tmp_path / "off", False)), provider=OPENAI)) == []


def test_no_structured_output_at_all_is_reported_only_when_required(tmp_path: Path) -> None:
    plain = ("plain", {"capabilities": {"streaming": True, "structured_output": False, "features": ["streaming"]}})
    module = load_module(open_schema_module(tmp_path, True))
    assert any("has no structured output" in d.message for d in m021(validate_module(module, provider=plain)))
    preferred = load_module(open_schema_module(tmp_path / "p", None))
    assert m021(validate_module(preferred, provider=plain)) == []


def test_the_default_provider_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "no-config.yaml"))
    monkeypatch.delenv("COGNITIVE_MODEL", raising=False)
    monkeypatch.setenv("COGNITIVE_PROVIDER", "replay")
    cache = ReportCache()
    assert m021(check_path(MODULES / "code-reviewer").diagnostics) == []
    assert m021(cache.check(MODULES / "code-reviewer").diagnostics) == []
    monkeypatch.setenv("COGNITIVE_PROVIDER", "openai")
    assert (capabilities := provider_capabilities()) is not None and capabilities[0] == "openai"
    assert m021(check_path(MODULES / "code-reviewer").diagnostics) != []
    # The details pane's cache does not hand back the report made for another provider.
    assert m021(cache.check(MODULES / "code-reviewer").diagnostics) != []
    assert provider_capabilities("nonsense") is None


def test_cogn_validate_takes_a_provider(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    plain = cogn(tmp_path, "validate", "code-reviewer", "--json", env=env)
    assert plain.returncode == 0 and "M021" not in plain.stdout  # the default provider: replay
    chosen = cogn(tmp_path, "validate", "code-reviewer", "--provider", "openai", "--json", env=env)
    assert chosen.returncode == 0, chosen.stderr  # warnings only
    codes = [d["code"] for d in report(chosen.stdout)["diagnostics"]]
    assert codes.count("M021") == 2
    by_env = cogn(tmp_path, "validate", "code-reviewer", env={**env, "COGNITIVE_PROVIDER": "anthropic"})
    assert "M021" in by_env.stdout and "output_config" in by_env.stdout
