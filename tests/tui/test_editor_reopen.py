"""A tab closed in the editor opens again with the keys that open tabs: f2 lists, after the open tabs, the module's
files on disk that have no tab (closed when the file was deleted and back since, or made since the editor opened),
and choosing one opens it; "Open X" with X's editor already open gives every such file its tab again, as a new
editor would (TUI-10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_editor_kit import (
    SIZE,
    active_rel,
    area,
    buffer,
    click,
    listing_done,
    make_app,
    module_dir,
    notes,
    open_editor,
    until,
)
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Label, OptionList, Tab, TabbedContent, TabPane

from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.modals import ChoiceModal

__all__ = ["module_dir"]  # the fixture, imported so pytest finds it


async def close_deleted(pilot: Pilot[None], screen: EditorScreen, path: Path) -> None:
    """Delete `path` on disk and close its tab, as the editor offers (ctrl+s, then "close its tab")."""
    text = path.read_text()

    def delete_again() -> None:
        path.write_text(text)
        path.unlink()

    path.unlink()
    rel = path.relative_to(screen.module_path).as_posix()
    await until(pilot, lambda: buffer(screen, rel).deleted, "the deleted mark", retry=delete_again)
    screen.query_one(TabbedContent).active = buffer(screen, rel).pane_id
    await pilot.pause()
    await pilot.press("ctrl+s")
    await until(pilot, lambda: isinstance(screen.app.screen, ChoiceModal), "the choice")
    await click(pilot, "#choice-close")
    await until(pilot, lambda: all(b.rel != rel for b in screen.state.files.values()), "the tab to close")


def listed(app: CogtuiApp) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_f2_lists_a_closed_file_that_is_back_and_opens_it_again(module_dir: Path) -> None:
    prompt = module_dir / "prompt.md"
    text = prompt.read_text()
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await close_deleted(pilot, screen, prompt)
        await pilot.press("f2")
        await until(pilot, lambda: listing_done(app), "the tab list")
        assert not any(label.startswith("prompt.md") for label in listed(app))  # gone from disk: nothing to open
        await pilot.press("escape")

        prompt.write_text(text)  # back on disk (another program, or git checkout)
        (module_dir / "NOTES.md").write_text("made after the editor opened\n")
        await pilot.press("f2")
        await until(pilot, lambda: listing_done(app), "the tab list")
        labels = listed(app)
        assert labels[-2:] == ["NOTES.md  not open", "prompt.md  not open"]  # after the open tabs and the contract
        assert labels[-3].startswith("contract")
        title = str(app.screen.query_one(Label).render())
        assert title == f"Files: {len(labels) - 2} open, 2 not open"
        app.screen.query_one(OptionList).highlighted = len(labels) - 1
        await pilot.press("enter")
        await until(pilot, lambda: active_rel(screen) == "prompt.md", "the reopened tab")
        await pilot.pause()
        assert area(screen, "prompt.md").text == text and app.focused is area(screen, "prompt.md")
        assert not buffer(screen, "prompt.md").deleted and not buffer(screen, "prompt.md").modified
        tabs = [t.id or "" for t in screen.query_one(TabbedContent).query(Tab)]  # in the tab bar's order
        pane = buffer(screen, "prompt.md").pane_id
        assert tabs[-2].endswith(pane) and tabs[-1].endswith("contract") and len(set(tabs)) == len(tabs)

        await pilot.press("f2")
        await until(pilot, lambda: listing_done(app), "the tab list")
        assert "prompt.md" in listed(app) and listed(app)[-1] == "NOTES.md  not open"


async def test_open_x_again_gives_its_files_their_tabs_back(module_dir: Path) -> None:
    prompt = module_dir / "prompt.md"
    text = prompt.read_text()
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await close_deleted(pilot, screen, prompt)
        prompt.write_text(text)
        navigation.open_module(app, module_dir)  # "Open code-reviewer" (palette): back to its editor
        await until(pilot, lambda: screen.buffer_for(prompt) is not None, "the tab back")
        await pilot.pause()
        assert app.screen is screen and area(screen, "prompt.md").text == text
        assert any(n.startswith("Opened prompt.md: on disk, and no tab had it.") for n in notes(seen))

        (module_dir / "tests" / "case3.input.json").write_text("{}\n")  # a golden made elsewhere: asked for by name
        navigation.open_module(app, module_dir, module_dir / "tests" / "case3.input.json")
        await until(pilot, lambda: active_rel(screen) == "tests/case3.input.json", "the new file shown")
        assert app.screen is screen and isinstance(app.screen, EditorScreen)


async def test_the_keys_that_open_the_tab_list_close_it(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        for key in ("f2", "ctrl+tab"):
            await pilot.press(key)
            await until(pilot, lambda: listing_done(app), "the tab list")
            await pilot.press(key)  # the same key again: the list closes, the tab shown stays
            await until(pilot, lambda: app.screen is screen, "the list closed")
            assert active_rel(screen) == "module.yaml"


async def test_a_file_reopened_while_the_watcher_reports_it_is_never_used_before_its_tab_exists(
    module_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other handlers go on while a reopened file's tab mounts: the watcher's report of that file (made on disk just
    now) and a validation whose timer fired. Under load they ran in that window and found the file's buffer with no
    text area yet (NoMatches '#file-9-text', the app ended). Here they run at the window's start, every time."""
    notes_md = module_dir / "NOTES.md"
    real_add_pane = TabbedContent.add_pane
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        meanwhile: list[str] = []

        def add_pane(tabs: TabbedContent, pane: TabPane, **kwargs: Any) -> Any:
            meanwhile.append(pane.id or "")
            screen.disk.changed(frozenset({notes_md}))  # the watcher's DiskChanged, handled as the tab mounts
            screen.validate_now()  # the typing delay's timer, firing as the tab mounts
            return real_add_pane(tabs, pane, **kwargs)

        monkeypatch.setattr(TabbedContent, "add_pane", add_pane)
        notes_md.write_text("made after the editor opened\n")
        navigation.open_module(app, module_dir)  # "Open code-reviewer" again: NOTES.md gets its tab
        await until(pilot, lambda: screen.buffer_for(notes_md) is not None, "the new tab")
        await pilot.pause()
        assert app.return_code is None and app.screen is screen and len(meanwhile) == 1
        assert area(screen, "NOTES.md").text == "made after the editor opened\n"
        assert not buffer(screen, "NOTES.md").modified
