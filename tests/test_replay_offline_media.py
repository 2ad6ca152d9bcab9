"""D95: the replay provider is offline. A URL MediaInput is checked (shape, the module's network policy) and
described, never fetched: no name lookup, no connection. Before D95 a replay run with an image URL resolved and
fetched it, so it failed offline (issue 12)."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from cli_json import envelope

from cogtui.cli import main
from cogtui.core.module.loader import load_module
from cogtui.core.run.providers.replay.provider import ReplayProvider
from cogtui.core.run.runner import RunOptions, run_module

MODULES = Path(__file__).resolve().parents[1] / "modules"
URL = "https://images.example.com/screens/login.png?token=s3cret"


@pytest.fixture
def network_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name lookup or connection attempted, each refused (as on a machine without a network)."""
    calls: list[str] = []

    def refuse(what: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(f"{what}{args[1:] if what == 'connect' else args}")
            raise OSError(f"no network in this test ({what})")

        return call

    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("connect_ex"))
    return calls


def auditor(tmp_path: Path, network: str) -> Path:
    """screenshot-auditor (image input) with its network policy set to `network`."""
    root = tmp_path / "screenshot-auditor"
    shutil.copytree(MODULES / "screenshot-auditor", root)
    manifest = root / "module.yaml"
    text = manifest.read_text(encoding="utf-8")
    assert "  network: deny\n" in text
    text = text.replace("  network: deny\n", f"  network: {network}\n")
    # A golden whose input is the URL: replay answers with its expected envelope (the contract is not the point).
    text = text.replace("tests:\n", "tests:\n  - tests/url.input.json -> tests/case1.expected.json\n")
    manifest.write_text(text, encoding="utf-8")
    (root / "tests" / "url.input.json").write_text(json.dumps(url_input()), encoding="utf-8")
    return root


def url_input() -> dict[str, Any]:
    return {"screenshot": {"type": "url", "url": URL}, "question": "Is the contrast enough?"}


async def test_a_replay_run_with_an_image_url_connects_to_nothing(tmp_path: Path, network_calls: list[str]) -> None:
    module = load_module(auditor(tmp_path, "allow"))
    result = await run_module(module, url_input(), RunOptions(ReplayProvider(interval=0)))
    assert result.envelope["ok"] is True, result.envelope
    assert network_calls == []


async def test_the_network_policy_still_refuses_the_url_on_replay(tmp_path: Path, network_calls: list[str]) -> None:
    """Replay refuses what a real run would refuse: a module that denies the network gets E4007, offline too."""
    module = load_module(auditor(tmp_path, "deny"))
    result = await run_module(module, url_input(), RunOptions(ReplayProvider(interval=0)))
    assert result.envelope["ok"] is False and result.envelope["error"]["code"] == "E4007"
    assert "s3cret" not in json.dumps(result.envelope)  # the URL's credential is redacted in the message
    assert network_calls == []


def test_cogn_run_on_replay_with_an_image_url_works_offline(
    tmp_path: Path, network_calls: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "config.yaml"))
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0")
    monkeypatch.delenv("COGNITIVE_MODULES_PATH", raising=False)
    root = auditor(tmp_path / "mods", "allow")
    given = tmp_path / "input.json"
    given.write_text(json.dumps(url_input()), encoding="utf-8")
    code = main(
        [
            "run",
            "--path",
            str(root.parent),
            "screenshot-auditor",
            "--provider",
            "replay",
            "--input",
            str(given),
            "--json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert envelope(out.out)["ok"] is True, out
    assert network_calls == []
