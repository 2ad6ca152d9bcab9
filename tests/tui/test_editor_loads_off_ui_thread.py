"""The editor reads its module and its files off the UI thread as it opens, and the module folder's listing for the
tab list (f2) too (TUI-4), through module_loads.py's mechanism: the screen says it is loading meanwhile and answers
keys, a folder gone during the read is said, never a traceback. The read is held here until the test lets it go
(test_run_loads_off_ui_thread.HeldLoads), as the run, goldens and eval screens' loads are held."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from test_run_loads_off_ui_thread import HeldLoads
from textual.app import ComposeResult
from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TabbedContent
from tuikit import HANG_S, copy_modules, editor_ready, isolate, make_app, screen_of, until

import cogtui.tui.screens.editor.opening as editor_opening
from cogtui.core.authoring.editor_files import FileBuffer
from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.picker import TabPickerModal
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.shown import markup


def on_ui_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def status(screen: EditorScreen) -> str:
    return str(screen.query_one("#editor-status", Static).render())


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CogtuiApp:
    """The app on a copy of code-reviewer (tmp_path/modules/code-reviewer), isolated in tmp_path."""
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    return make_app(root, tmp_path)


async def held_editor(
    app: CogtuiApp, pilot: Pilot[None], monkeypatch: pytest.MonkeyPatch, file: Path | None = None
) -> tuple[EditorScreen, HeldLoads, Path]:
    """The editor of code-reviewer opened under `app`, its module's read held: (screen, loads, module folder)."""
    await until(lambda: bool(app.store.entries), pilot)
    module = app.store.entries[0].path
    loads = HeldLoads(monkeypatch, module)
    navigation.open_module(app, module, file)
    await until(lambda: isinstance(app.screen, EditorScreen) and bool(loads.on_ui_thread), pilot)
    return screen_of(app, EditorScreen), loads, module


async def test_the_editor_reads_its_module_and_files_in_a_worker_and_says_it_is_loading(
    app: CogtuiApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[bool] = []
    real_read = FileBuffer.load

    def load(self: FileBuffer) -> str:
        reads.append(on_ui_thread())
        return real_read(self)

    monkeypatch.setattr(FileBuffer, "load", load)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, loads, module = await held_editor(app, pilot, monkeypatch)
        await pilot.pause()
        assert screen.state.loading and status(screen) == "code-reviewer · loading the module…"
        assert str(screen.query_one("#editor-loading", Static).render()) == "Loading the module…"
        assert screen.query_one(TabbedContent).tab_count == 0 and reads == []
        # "Open X" for a file while it is read: that file is shown first once it is (keys and navigation still work).
        navigation.open_module(app, module, module / "prompt.md")
        await pilot.pause()
        loads.release()
        await until(lambda: editor_ready(app), pilot)
        assert loads.on_ui_thread == [False]  # the module, read once, in the worker
        assert len(reads) == len(screen.state.files) > 5 and not any(reads)  # every file, in the worker too
        assert screen.state.current() is screen.state.file_for(module / "prompt.md")
        assert app.focused is screen.area(screen.state.files[screen.state.active])
        assert app.focused.text == (module / "prompt.md").read_text(encoding="utf-8")
        assert not screen.query("#editor-loading") and "loading" not in status(screen)
        assert screen.query_one(TabbedContent).tab_count == len(screen.state.panes())


async def test_a_module_folder_gone_while_it_is_read_is_said_and_escape_still_closes(
    app: CogtuiApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(100, 30)) as pilot:
        screen, loads, module = await held_editor(app, pilot, monkeypatch)
        module.rename(module.with_name("elsewhere"))
        loads.release()
        await until(lambda: bool(screen.query("#editor-empty")), pilot)
        shown = str(screen.query_one("#editor-empty", Static).render())
        assert shown.startswith("Cannot open this module: ") and str(module) in shown
        assert not screen.state.loading and screen.state.files == {}
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)


async def test_closing_the_editor_while_it_reads_its_module_draws_nothing_and_raises_nothing(
    app: CogtuiApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(100, 30)) as pilot:
        screen, loads, _module = await held_editor(app, pilot, monkeypatch)
        await pilot.press("escape")  # answered while the module is read
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        loads.release()
        await loads.answered(pilot)
        assert isinstance(app.screen, BrowserScreen) and not screen.is_attached
        assert screen.state.loading and screen.state.files == {}  # its read arrived at no screen: nothing opened


class HeldListing:
    """The editor's listings of the module folder (f2), recorded by thread, each held until `release`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.on_ui_thread: list[bool] = []
        self.gate = threading.Event()
        from cogtui.tui.screens.editor.opening import read_listing as real_listing

        def read_listing(root: Path) -> Any:
            self.on_ui_thread.append(on_ui_thread())
            self.gate.wait(2 * HANG_S)  # until the test lets go (past any wait's bound: a test that failed ends)
            return real_listing(root)

        monkeypatch.setattr(editor_opening, "read_listing", read_listing)  # what the editor reads its listing with

    def release(self) -> None:
        self.gate.set()


def listed(app: CogtuiApp) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_f2_lists_the_open_tabs_at_once_and_the_folder_once_it_is_read_in_a_worker(
    app: CogtuiApp, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module = tmp_path / "modules" / "code-reviewer"
    listing = HeldListing(monkeypatch)  # before the editor exists: it keeps the function it was made with
    async with app.run_test(size=(100, 30)) as pilot:
        navigation.open_module(app, module)
        await until(lambda: editor_ready(app), pilot)
        editor = screen_of(app, EditorScreen)
        (module / "NOTES.md").write_text("made after the editor opened\n", encoding="utf-8")
        await pilot.press("f2")
        await until(lambda: isinstance(app.screen, TabPickerModal) and listing.on_ui_thread == [False], pilot)
        picker = screen_of(app, TabPickerModal)
        assert listed(app)[-1] == "reading the module folder…" and listed(app)[-2].startswith("contract")
        first = app.screen.query_one(OptionList).highlighted
        await pilot.press("down")  # the list answers keys while the folder is read
        assert app.screen.query_one(OptionList).highlighted == (first or 0) + 1
        listing.release()
        await until(lambda: picker.pending is None, pilot)
        assert listed(app)[-1] == "NOTES.md  not open" and "reading the module folder…" not in listed(app)
        assert str(picker.query_one(".dialog-title").render()).endswith(", 1 not open")
        assert listing.on_ui_thread == [False] and editor.state.file_for(module / "NOTES.md") is None


async def test_f2_on_a_module_folder_gone_says_so_in_the_list(app: CogtuiApp, tmp_path: Path) -> None:
    module = tmp_path / "modules" / "code-reviewer"
    async with app.run_test(size=(100, 30)) as pilot:
        navigation.open_module(app, module)
        await until(lambda: editor_ready(app), pilot)
        module.rename(module.with_name("elsewhere"))
        await pilot.press("f2")
        await until(lambda: isinstance(app.screen, TabPickerModal) and "gone" in listed(app)[-1], pilot)
        assert listed(app)[-1] == f"Cannot list the files of {module}: the module folder is gone"
        assert listed(app)[-2].startswith("contract")  # the open tabs are still there to choose


class AnsweredAsItComposes(TabPickerModal):
    """A tab list whose folder listing answers after its widgets are made, before they are mounted."""

    def compose(self) -> ComposeResult:
        yield from super().compose()
        self.pending_done([("not-open-0", markup("NOTES.md"))], "Files: 1 open, 1 not open")


@pytest.mark.parametrize("when", ["before it is pushed", "as it composes"])
async def test_a_listing_that_answers_before_the_list_is_mounted_is_shown_once_it_is(when: str, app: CogtuiApp) -> None:
    """The folder may be listed before the list has mounted: what it found is shown, the pending line gone."""
    async with app.run_test(size=(100, 30)) as pilot:
        entries = [("file-0", markup("module.yaml"))]
        kind = TabPickerModal if when == "before it is pushed" else AnsweredAsItComposes
        picker = kind(entries, "file-0", pending="reading the module folder…")
        if when == "before it is pushed":
            picker.pending_done([("not-open-0", markup("NOTES.md"))], "Files: 1 open, 1 not open")
        app.push_screen(picker)
        await until(lambda: picker.is_mounted, pilot)
        assert listed(app) == ["module.yaml", "NOTES.md"] and picker.pending is None
        assert str(picker.query_one(".dialog-title").render()) == "Files: 1 open, 1 not open"
