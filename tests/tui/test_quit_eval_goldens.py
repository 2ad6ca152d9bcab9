"""Quitting (`q`) while an eval or a golden run is running asks first, as it does for runs (quitting.py):
declining keeps it running; confirming cancels it, then exits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static
from tuikit import click, copy_modules, endless_replay, isolate, make_app, screen_of, until

from cogtui.core.eval.eval_state import EvalPhase
from cogtui.core.run.golden_state import GoldensPhase
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.widgets.module_tree import ModuleTree


def record_exits(app: CogtuiApp, monkeypatch: pytest.MonkeyPatch, screen_type: type, group: str) -> list[list[bool]]:
    """Whether each worker of the screen's run was cancelled, at the moment the app is told to exit (one per call)."""
    seen: list[list[bool]] = []
    original = app.exit

    def exit_(*args: Any, **kwargs: Any) -> None:
        screen = next(s for s in app.screen_stack if isinstance(s, screen_type))
        seen.append([w.is_cancelled for w in app.workers if w.node is screen and w.group == group])
        original(*args, **kwargs)

    monkeypatch.setattr(app, "exit", exit_)
    return seen


@pytest.mark.parametrize(
    ("key", "screen_type", "group", "running", "said"),
    [
        ("e", EvalScreen, "eval", EvalPhase.RUNNING, "1 eval is still running: quitting cancels it"),
        ("g", GoldensScreen, "goldens", GoldensPhase.RUNNING, "1 golden run is still running: quitting cancels it"),
    ],
)
async def test_q_asks_while_an_eval_or_golden_run_is_running(
    key: str,
    screen_type: type[EvalScreen | GoldensScreen],
    group: str,
    running: object,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    root = isolate(monkeypatch, tmp_path)
    endless_replay(monkeypatch)  # answers that stream until they are quit
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        exits = record_exits(app, monkeypatch, screen_type, group)
        await until(
            lambda: isinstance(app.screen, BrowserScreen) and app.screen.query_one(ModuleTree).cursor_entry is not None,
            pilot,
        )
        await pilot.press(key)
        await until(lambda: isinstance(app.screen, screen_type) and app.screen.state.phase is running, pilot)
        screen = screen_of(app, screen_type)
        await pilot.press("q")
        await until(lambda: isinstance(app.screen, ConfirmModal) and bool(app.screen.query("#confirm")), pilot)
        assert said in str(app.screen.query_one(".dialog-body", Static).render())
        await pilot.press("escape")  # declining: it keeps running
        await until(lambda: app.screen is screen, pilot)
        assert screen.state.phase is running and not exits and app.is_running
        await pilot.press("q")
        await until(lambda: isinstance(app.screen, ConfirmModal) and bool(app.screen.query("#confirm")), pilot)
        await click(pilot, "#confirm")
        await until(lambda: bool(exits), pilot)
        [cancelled] = exits  # told to exit once, its run cancelled by then
        assert cancelled and all(cancelled)
        if screen_type is EvalScreen:
            assert screen.state.phase is EvalPhase.CANCELLED  # shown cancelled: not recorded in the history
