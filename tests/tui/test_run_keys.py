"""The run key has one meaning (issue 30, TUI-5): a press while the module is read is kept and runs once it is read;
a burst of presses is one run, and the screen says so; a press after the burst starts a second run, the first one
going on; the title names the module, provider and model before anything runs; after `n`, the browser selects the
new module, so the next `r` runs it.

Presses are dated as the terminal delivers them (`tuikit.press_at`): the burst rule reads each key's arrival time,
so these tests never wait out a window, and a loaded machine cannot pull two presses apart."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_run_loads_off_ui_thread import HeldLoads
from textual.widgets import Input, Select, Static
from tuikit import (
    burst,
    copy_modules,
    editor_ready,
    ended,
    isolate,
    make_app,
    open_run,
    press_at,
    press_run_again,
    screen_of,
    until,
)

from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.new_module.screen import NewModuleModal
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.module_tree import ModuleTree
from cogtui.tui.widgets.run_pane import RunPane


def panes(screen: RunScreen) -> list[RunPane]:
    return list(screen.query(RunPane))


def title(screen: RunScreen) -> str:
    return str(screen.query_one("#run-title", Static).render())


def note(screen: RunScreen) -> str:
    return str(screen.query_one("#run-note", Static).render())


def settled(app: CogtuiApp) -> bool:
    """Every key posted so far has been handled (the key pipeline holds none)."""
    return app.keys_in_order.in_flight is None and not app.keys_in_order.waiting


def browsing(app: CogtuiApp) -> bool:
    """The browser is up with a module selected: `r` has a module to run."""
    return isinstance(app.screen, BrowserScreen) and app.screen.query_one(ModuleTree).cursor_entry is not None


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    return root


async def test_ctrl_r_right_after_r_runs_once_the_module_is_read(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`r` then `ctrl+r` at once: the press reaches the run screen while it still reads the module. It was
    dropped without a word; it is kept, said, and the run starts as soon as the module is read."""
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(lambda: browsing(app), pilot)
        loads = HeldLoads(monkeypatch, app.store.entries[0].path)
        burst(app, "r")
        press_at(app, "ctrl+r", 0.02)
        await until(lambda: isinstance(app.screen, RunScreen) and settled(app), pilot)
        screen = screen_of(app, RunScreen)
        assert screen.module is None and not panes(screen)  # still being read
        assert note(screen) == "ctrl+r: the run starts once the module is read"
        loads.release()
        await until(lambda: len(panes(screen)) == 1 and panes(screen)[0].result is not None, pilot)
        assert ended(panes(screen)[0]).ok and note(screen) == ""


async def test_a_burst_of_presses_starts_one_run_and_the_screen_says_so(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five presses 60-80 ms apart, each handled only once the one before has started its run (or would have):
    one run, not five; the title line says the presses were one run."""
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.05")  # the run streams while the burst goes on
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, root / "code-reviewer")
        base = time.monotonic()
        for offset in (0.0, 0.06, 0.14, 0.21, 0.28):
            press_at(app, "ctrl+r", offset, base=base)
            handled = lambda at=base + offset: screen.state.presses.last == at  # noqa: E731
            await until(lambda: handled() and not screen.loads.loading and bool(panes(screen)), pilot)  # noqa: B023
        assert len(panes(screen)) == 1  # the run (streaming, or done) was not started again
        assert screen.state.presses.burst == 5
        assert note(screen) == "ctrl+r ×5 within 0.5 s: one run"


async def test_a_press_after_the_burst_starts_a_second_run_and_the_first_keeps_running(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.05")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, root / "code-reviewer")
        press_at(app, "ctrl+r", 0.0)
        await until(lambda: bool(panes(screen)) and panes(screen)[0].assembler.chunks > 1, pilot)
        await press_run_again(pilot)
        await until(lambda: len(panes(screen)) == 2 and panes(screen)[1].running, pilot)
        assert panes(screen)[0].running  # a run on purpose does not cut the one before short (TUI-5)
        assert note(screen) == ""


async def test_the_title_names_module_provider_and_model_before_anything_runs(root: Path, tmp_path: Path) -> None:
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, root / "code-reviewer")
        assert not panes(screen)
        assert title(screen) == "code-reviewer · replay (recorded answers, no model called)"
        screen.query_one("#run-provider", Select).value = "openai"
        await until(lambda: title(screen) == "code-reviewer · openai gpt-4o-mini", pilot)
        screen.query_one("#run-model", Input).value = "gpt-4.1"
        await until(lambda: title(screen) == "code-reviewer · openai gpt-4.1", pilot)
        assert not panes(screen)


async def test_after_n_and_escape_the_browser_selects_the_new_module(root: Path, tmp_path: Path) -> None:
    """The module created with `n` opens in the editor; once it closes, the browser has the new module selected,
    so the next `r` runs it, not the module selected before."""
    copy_modules(root, "product-ideas")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(lambda: browsing(app), pilot)
        tree = app.screen.query_one(ModuleTree)
        assert tree.cursor_entry is not None and tree.cursor_entry.name == "code-reviewer"
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, NewModuleModal) and bool(app.screen.query("#name")), pilot)
        await pilot.press(*"ticket", "minus", *"triage", "enter")
        await until(lambda: editor_ready(app), pilot)
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        await until(lambda: tree.cursor_entry is not None and tree.cursor_entry.name == "ticket-triage", pilot)
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        module = screen_of(app, RunScreen).module
        assert module is not None and module.name == "ticket-triage"
