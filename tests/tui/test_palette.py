"""The command palette (ctrl+p): every screen of a module is there, and Textual's entries that cogtui's own
commands replace (a theme picker that did not save, a second Quit that did not ask, a second Keys) are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from tuikit import copy_modules, isolate, make_app, palette_pick, until

from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.history.screen import HistoryScreen


async def test_eval_and_history_of_a_module_are_in_the_palette(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: bool(app.store.entries), pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert not {"Theme", "Quit", "Keys"} & set(titles)
        assert "Screenshot" in titles  # Textual's other entries stay
        await palette_pick(app, pilot, "Eval of code")
        await until(lambda: isinstance(app.screen, EvalScreen), pilot)
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EvalScreen), pilot)
        await palette_pick(app, pilot, "History of code")
        await until(lambda: isinstance(app.screen, HistoryScreen), pilot)
