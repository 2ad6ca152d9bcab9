"""Closing the app while a screen is still being drawn, or while a key's binding is still on its way, ends it
cleanly: both crashed under load (a traceback instead of an exit)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import TabbedContent, Tabs
from tuikit import copy_modules, isolate, make_app, until

from cogtui.tui import navigation as nav
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.history import RunHistory


async def test_quitting_while_the_editor_draws_its_tabs_ends_cleanly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The app quits just as the editor's tab strip is drawn (its tabs are not mounted once the app is exiting):
    Textual's `ValueError: No Tab with id …` ended the app with a traceback and exit status 1."""
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    compose = Tabs.compose

    def quit_as_drawn(tabs: Tabs) -> Iterable[Widget]:
        screen = tabs.screen
        if isinstance(screen, EditorScreen) and screen.state.files and tabs.parent is screen.query_one(TabbedContent):
            app.exit()  # what the quit action does, at the moment the strip's tabs are to be mounted
        return compose(tabs)

    monkeypatch.setattr(Tabs, "compose", quit_as_drawn)

    async def open_the_editor(pilot: Pilot[object]) -> None:
        await until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.store.reports), pilot)
        nav.open_module(app, module)

    # The app's own run, not `run_test`: the exit then goes the way a quit does.
    await app.run_async(headless=True, size=(100, 30), auto_pilot=open_the_editor)
    assert app.return_code == 0


async def test_a_navigation_that_arrives_after_the_app_closed_goes_nowhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A key's binding that runs while the app is closing (its widget's queue is emptied as it closes) posts
    `Navigate`: with no screen left, going anywhere raised ScreenStackError in `navigation.leave_help`."""
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
    assert app.screen_stack == []
    nav.go(app, RunHistory(module))
    assert app.screen_stack == []
