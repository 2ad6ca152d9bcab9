"""A screen left while it is still opening: `escape` typed right after the key that opened it (a fast typist, a
paste, a slow SSH link) goes back to the browser and never crashes the app with work the screen had scheduled
for itself (a refit after the next refresh, a query in on_mount) finding its widgets gone."""

from __future__ import annotations

from pathlib import Path

import pytest
from tuikit import burst, copy_modules, isolate, make_app, until

from cogtui.tui.screens.browser import BrowserScreen

NAMES = ("incident-narrator", "code-reviewer")


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, *NAMES)
    return root


@pytest.mark.parametrize("keys", ["h\x1b", "i\x1b", "g\x1b", "r\x1b", "h\x1bh\x1bi\x1bi\x1b"])
async def test_escape_right_after_opening_a_screen_goes_back_without_a_crash(
    root: Path, tmp_path: Path, keys: str
) -> None:
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        burst(app, keys)
        await pilot.pause(0.5)
        await until(lambda: isinstance(app.screen, BrowserScreen) and len(app.screen_stack) == 1, pilot)
        assert app.is_running and [type(s).__name__ for s in app.screen_stack] == ["BrowserScreen"]
