"""The browser's empty state names modules put in ./cognitive/modules, which the search path does not reach (PATH-4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static
from tuikit import copy_modules, isolate, until

from cogtui.core.settings.config import Config
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.widgets.module_detail import ModuleDetail


async def test_an_empty_browser_says_where_the_modules_are_and_how_to_add_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    isolate(monkeypatch, tmp_path)
    project = tmp_path / "project"
    (project / "cognitive" / "modules").mkdir(parents=True)
    copy_modules(project / "cognitive" / "modules", "code-reviewer")
    from cogtui.tui.app import CogtuiApp

    app = CogtuiApp(paths=[], cwd=project, watch=False, config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        body = app.screen.query_one(ModuleDetail).query_one("#detail-body", Static)
        await until(lambda: "No modules on the search path." in str(body.render()), pilot)
        shown = " ".join(str(body.render()).split())
        assert f"{project / 'cognitive' / 'modules'} holds 1 module, but it is not on the search path" in shown
        assert "add it with `--path cognitive/modules`" in shown
