"""Issue 12 ("the replay provider fetches image URLs and so fails offline"), in the workbench: a replay run of a
module whose input is an image URL finishes, shown as done, on a machine without a network (RUN-20)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Select, TextArea
from tuikit import isolate, make_app, screen_of, until

from cogtui.core.run.run_state import Phase
from cogtui.tui import navigation as nav
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane

MODULES = Path(__file__).resolve().parents[2] / "modules"
URL = "https://images.example.com/screens/login.png?token=s3cret"


async def test_a_replay_run_with_an_image_url_finishes_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0")
    module = root / "screenshot-auditor"
    module.mkdir()
    for item in (MODULES / "screenshot-auditor").rglob("*"):
        target = module / item.relative_to(MODULES / "screenshot-auditor")
        if item.is_dir():
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(item.read_bytes())
    given = {"screenshot": {"type": "url", "url": URL}, "question": "Is the contrast enough?"}
    # A golden whose input is the URL: replay answers with its expected envelope (the contract is not the point).
    (module / "tests" / "url.input.json").write_text(json.dumps(given), encoding="utf-8")
    manifest = module / "module.yaml"
    text = manifest.read_text(encoding="utf-8").replace("  network: deny\n", "  network: allow\n")
    manifest.write_text(text.replace("tests:\n", "tests:\n  - tests/url.input.json -> tests/case1.expected.json\n"))
    app = make_app(root, tmp_path)
    calls: list[str] = []

    def refuse(what: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(what)
            raise OSError(f"no network in this test ({what})")

        return call

    async with app.run_test(size=(120, 36)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        nav.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        screen = screen_of(app, RunScreen)
        assert screen.query_one("#run-provider", Select).value == "replay"
        screen.query_one("#run-input", TextArea).text = json.dumps(given)
        for name in ("getaddrinfo", "create_connection"):  # from here on, as on a machine without a network
            monkeypatch.setattr(socket, name, refuse(name))
        monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and not screen.query_one(RunPane).running, pilot)
        pane = screen.query_one(RunPane)
        assert pane.state.phase is Phase.DONE, (pane.state.error_code, pane.state.error_message)
        assert calls == []
