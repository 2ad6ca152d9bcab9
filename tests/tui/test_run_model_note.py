"""A model name for a provider that uses none (replay): the run says so, and its tab names what ran."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, TabbedContent
from tuikit import copy_modules, isolate, make_app, notices, open_run, until

from cogtui.tui.widgets.run_pane import RunPane


async def test_replay_with_a_model_name_runs_as_replay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        screen.query_one("#run-model", Input).value = "other"
        seen = notices(app)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        assert any("replay does not use a model name: replay/other runs as replay" in n for n in seen)
        tabs = screen.query_one("#runs", TabbedContent)
        assert str(tabs.get_tab(tabs.active).label) == "1 · replay"  # not "replay/other": history says replay too
