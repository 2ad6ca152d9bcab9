"""Start-up: the cyclic collector paused until the first frame (cli._start_tui), a quit right after that frame, the start theme,
the start-up notes after the first frame."""

from __future__ import annotations

import gc
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from textual.pilot import Pilot
from tuikit import copy_modules, isolate, make_app, notices, until

from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.widgets.module_tree import ModuleTree

if TYPE_CHECKING:  # the app is imported where a test starts it
    from cogtui.tui.app import CogtuiApp


async def test_the_collector_paused_for_start_up_is_back_on_once_the_modules_are_shown(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    gc.disable()  # as cli._start_tui does before importing the TUI
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
            await until(gc.isenabled, pilot)
            assert app.screen.query_one(ModuleTree).module_nodes  # the first frame had the modules
            assert gc.get_freeze_count() > 0  # what start-up made was moved out of the collector's reach
    finally:
        gc.enable()
        gc.unfreeze()


async def test_quitting_right_after_the_first_frame_exits_cleanly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A quit queued right after the first frame, before the screen has settled, leaves no error behind: no
    MountError, and no watcher's coroutine left un-awaited (Python would print a RuntimeWarning at exit)."""
    from cogtui.core.settings.config import Config
    from cogtui.tui.app import CogtuiApp

    class QuitsAtOnce(CogtuiApp):
        def on_mount(self) -> None:  # Textual calls CogtuiApp.on_mount next (each class's handler in turn)
            self.call_after_refresh(self.exit)  # ahead of the browser's mount and its first refresh

    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    (tmp_path / "xdg-config" / "cogtui" / "themes").mkdir(parents=True)  # the theme watcher starts too

    async def quit_at_once() -> int | None:
        app = QuitsAtOnce(paths=[str(root)], cwd=tmp_path, watch=True, config=Config())
        async with app.run_test(size=(80, 24)) as pilot:
            await until(lambda: app.return_code is not None, pilot)
        return app.return_code

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code = await quit_at_once()
        gc.collect()  # what the app's workers held is gone, as at a process's exit
    assert code == 0
    assert not [str(w.message) for w in seen if "never awaited" in str(w.message)]


@pytest.mark.parametrize("theme", ["cogtui-dark", "cogtui-light"])
async def test_the_start_theme_styles_the_screen_as_switching_to_it_does(
    theme: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """cogtui-dark starts without Textual's restyle (themes.start_in_theme: no stylesheet re-parse before the
    first frame); cogtui-light, whose line filter differs from Textual's default theme, the usual way. Either
    way the screen is what switching to the theme after start makes of it, and it still switches."""
    from textual.css.stylesheet import Stylesheet

    from cogtui.core.settings.config import Config

    reparses: list[str] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparses.append("reparse")
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, config=Config(theme=theme))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        await until(lambda: bool(app.store.reports), pilot)
        await pilot.pause()
        assert (app.theme, app.has_class(f"-theme-{theme}")) == (theme, True)
        assert bool(reparses) == (theme != "cogtui-dark")
        started = await _steady_screenshot(app, pilot)  # a report or the detail pane may still be drawing
        app.theme = "textual-light" if theme == "cogtui-dark" else "textual-dark"
        await until(lambda: app.export_screenshot() != started, pilot)
        assert not app.has_class(f"-theme-{theme}")
        app.theme = theme
        # Restyling back may take more than one pause on a loaded machine: the screen must come back to `started`.
        await until(lambda: app.export_screenshot() == started, pilot)


async def _steady_screenshot(app: CogtuiApp, pilot: Pilot[None]) -> str:
    """The screen once two screenshots a pause apart agree."""
    before = app.export_screenshot()
    for _ in range(100):  # 5 s at the most
        await pilot.pause(0.05)
        now = app.export_screenshot()
        if now == before:
            return now
        before = now
    raise AssertionError("the screen kept changing")


async def test_start_up_notes_come_after_the_first_frame(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The first frame shows the modules without a toast (a toast in it cost ~15 ms); what start-up has to say (the
    terminal's theme choice, a config.yaml problem, a theme file or search path problem) is notified right after."""
    from cogtui.tui.app import CogtuiApp

    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    (tmp_path / "config.yaml").write_text("theme: 42\n", encoding="utf-8")  # a problem to say
    said_by_first_frame: list[list[str]] = []

    class Recorded(CogtuiApp):
        def on_mount(self) -> None:  # Textual calls CogtuiApp.on_mount next (each class's handler in turn)
            self.said = notices(self)
            self.call_after_refresh(lambda: said_by_first_frame.append(list(self.said)))  # before the app's own

    app = Recorded(paths=[str(root)], cwd=tmp_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: bool(said_by_first_frame) and bool(app.said), pilot)
        assert said_by_first_frame == [[]]
        assert app.screen.query_one(ModuleTree).module_nodes  # the first frame had the modules
        assert [note for note in app.said if note.startswith("config.yaml: ")] == [app.said[0]], app.said
