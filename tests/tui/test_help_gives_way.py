"""Help gives way (TUI-3): going somewhere while the help screen is shown closes it, so "Open X" from the palette
goes back to X's editor instead of refusing over "an open dialog", and a new screen never opens with help left
under it. A dialog waiting for an answer (the editor's "save or discard?") still keeps everything where it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_one_editor_per_module import open_and_type, palette
from tuikit import copy_modules, isolate, make_app, notices, screen_of, until

from cogtui.tui import navigation as nav
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.help import HelpScreen
from cogtui.tui.screens.modals import ChoiceModal
from cogtui.tui.screens.run.screen import RunScreen

MODULE = "incident-narrator"


async def test_help_closes_on_the_way_and_a_dialog_still_blocks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    module, other = copy_modules(root, MODULE, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        said = notices(app)
        await until(lambda: bool(app.store.entries), pilot)
        editor = await open_and_type(app, pilot, module)
        await pilot.press("f1")
        await until(lambda: isinstance(app.screen, HelpScreen), pilot)
        await palette(app, pilot, "Open incident")  # help above the editor: closed, back to the editor
        await until(lambda: app.screen is editor, pilot)
        assert not any(isinstance(s, HelpScreen) for s in app.screen_stack) and editor.has_unsaved_changes()
        assert f"{MODULE} is already open: back to its editor: its unsaved edits are kept." in said[-1]

        await pilot.press("f1")  # a new screen opens in help's place, not over it
        await until(lambda: isinstance(app.screen, HelpScreen), pilot)
        nav.run_module(app, other)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.is_mounted, pilot)
        assert [type(s) for s in app.screen_stack[1:]] == [EditorScreen, RunScreen]

        nav.open_module(app, module)  # back down to the editor, its unsaved edits kept
        await until(lambda: app.screen is editor, pilot)
        await pilot.press("escape")  # unsaved edits: "save or discard?" waits for an answer
        await until(lambda: isinstance(app.screen, ChoiceModal), pilot)
        dialog = screen_of(app, ChoiceModal)
        nav.open_module(app, module)  # the palette's way: the dialog stays and blocks
        await pilot.pause()
        assert app.screen is dialog and "an open dialog" in said[-1] and "already open" in said[-1]
        assert editor.has_unsaved_changes()
