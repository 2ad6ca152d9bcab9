"""The browser's status says what file watching does: on, off, what it leaves out, or why it stopped."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static
from tuikit import copy_modules, isolate, make_app, palette_pick, until

from cogtui.tui.app import CogtuiApp
from cogtui.tui.messages import WatchState
from cogtui.tui.screens.browser import BrowserScreen


def status(app: CogtuiApp) -> str:
    return str(app.screen.query_one("#status", Static).render())


async def test_toggling_from_the_palette_changes_the_status_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, watch=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and "watching files" in status(app), pilot)
        await palette_pick(app, pilot, "Toggle file watching")
        await until(lambda: isinstance(app.screen, BrowserScreen) and "not watching" in status(app), pilot)
        await palette_pick(app, pilot, "Toggle file watching")
        await until(lambda: isinstance(app.screen, BrowserScreen) and "watching files" in status(app), pilot)
        assert "not watching" not in status(app)


async def test_what_the_watcher_leaves_out_or_why_it_stopped_is_in_the_status(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, watch=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and "watching files" in status(app), pilot)
        await until(lambda: any(w.name == "watch modules" for w in app.workers), pilot)  # started: it said ""
        app.post_message(WatchState("2 folders unreadable"))
        await until(lambda: "watching files (2 folders unreadable)" in status(app), pilot)
        app.post_message(WatchState("inotify watch limit [reached]", stopped=True))
        await until(lambda: "not watching: inotify watch limit [reached]" in status(app), pilot)  # shown literally
        assert "watching files" not in status(app)
        app.post_message(WatchState(""))
        await until(lambda: status(app).rstrip().endswith("watching files"), pilot)
