"""One editor per module (TUI-2): opening a module whose editor is already on the screen stack (the palette's
"Open X", the browser's enter) goes back to that editor with its unsaved edits, closing the screens above it,
never stacking a second editor that shows the disk's version as clean. A screen above that closing would cut
short (a running run, another editor's unsaved edits) is not closed: nothing moves and a notification says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from tuikit import copy_modules, isolate, make_app, notices, palette_pick, until

from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane

MODULE = "incident-narrator"


async def palette(app: CogtuiApp, pilot: Pilot[None], words: str) -> None:
    await palette_pick(app, pilot, words)
    await until(lambda: not isinstance(app.screen, CommandPalette), pilot)
    await pilot.pause()


def editors(app: CogtuiApp) -> list[EditorScreen]:
    return [s for s in app.screen_stack if isinstance(s, EditorScreen)]


async def open_and_type(app: CogtuiApp, pilot: Pilot[None], module: Path) -> EditorScreen:
    nav.open_module(app, module)
    await until(lambda: isinstance(app.screen, EditorScreen) and app.screen.module_path == module, pilot)
    editor = app.screen
    assert isinstance(editor, EditorScreen)
    await until(lambda: editor.is_mounted and not editor.state.checking, pilot)
    editor.area(editor.state.files[editor.state.active]).focus()
    await pilot.press(*"ZZZ")
    await until(editor.has_unsaved_changes, pilot)
    return editor


async def test_opening_an_open_module_goes_back_to_its_editor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    module, other = copy_modules(root, MODULE, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        said = notices(app)
        await until(lambda: bool(app.store.entries), pilot)
        editor = await open_and_type(app, pilot, module)
        typed = editor.area(editor.state.current()).text
        await palette(app, pilot, "Open incident")  # the editor is on top: stays, nothing stacked
        assert app.screen is editor and editors(app) == [editor] and editor.has_unsaved_changes()
        assert f"{MODULE} is already open: back to its editor: its unsaved edits are kept." in said[-1]

        # Screens above it that hold nothing are closed: a run screen with no run, a clean editor of another module.
        nav.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        nav.open_module(app, other)
        await until(lambda: isinstance(app.screen, EditorScreen) and app.screen is not editor, pilot)
        await palette(app, pilot, "Open incident")
        await until(lambda: app.screen is editor, pilot)
        assert editors(app) == [editor] and not any(isinstance(s, RunScreen) for s in app.screen_stack)
        assert editor.has_unsaved_changes() and editor.area(editor.state.current()).text == typed

        # The browser's way (Navigate → navigation.go) follows the same rule, and a file asked for is shown.
        prompt = next(b for b in editor.state.files.values() if b.rel.startswith("prompt"))
        from cogtui.tui.messages import Navigate
        from cogtui.tui.screens.editor import EditModule

        app.post_message(Navigate(EditModule(module, prompt.path)))
        await until(lambda: editor.state.active == prompt.pane_id, pilot)
        assert editors(app) == [editor] and app.screen is editor


async def test_a_screen_above_with_work_is_never_closed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.1")  # a run that lasts long enough
    module, other = copy_modules(root, MODULE, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        said = notices(app)
        await until(lambda: bool(app.store.entries), pilot)
        editor = await open_and_type(app, pilot, module)

        # Another module's editor with unsaved edits above it: refused, both kept.
        second = await open_and_type(app, pilot, other)
        await palette(app, pilot, "Open incident")
        assert app.screen is second and editors(app) == [editor, second]
        assert "unsaved edits in the editor of code-reviewer" in said[-1] and "already open" in said[-1]
        assert second.has_unsaved_changes() and editor.has_unsaved_changes()

        # A run screen with a run running above it: refused, the run keeps running.
        nav.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        run_screen = app.screen
        await pilot.press("ctrl+r")
        await until(lambda: bool(run_screen.query(RunPane)) and run_screen.query_one(RunPane).running, pilot)
        await palette(app, pilot, "Open incident")
        assert app.screen is run_screen and run_screen.query_one(RunPane).running
        assert "1 run still running" in said[-1]
        assert editors(app) == [editor, second]
        run_screen.query_one(RunPane).cancel()
        await until(lambda: not run_screen.query_one(RunPane).running, pilot)
