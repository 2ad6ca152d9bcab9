"""The run, golden tests and eval screens read the module off the UI thread (TUI-4), as they open and on every
ctrl+r: the screen keeps answering keys while the module loads (about 150 ms with 500 goldens), and a burst of
ctrl+r while it loads starts one run, not one per press. The load is held here by a loader that waits until the
test lets it go."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import TextArea
from textual.worker import get_current_worker
from tuikit import HANG_S, copy_modules, isolate, make_app, press_at, press_run_again, until

import cogtui.core.module.loader as loader
from cogtui.core.module.model import Module
from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.module_loads import ModuleLoaded
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane

S = TypeVar("S", bound=Screen[Any])


class HeldLoads:
    """Every load of `module` on the UI thread, or by a screen's loading worker, is recorded, and the worker's waits
    for `release` (the app's validation workers also load it: they are let through unrecorded)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: Path) -> None:
        self.on_ui_thread: list[bool] = []
        self.gate = threading.Event()
        real_load = loader.load_module

        def load_module(path: Path | str, *args: Any, **kwargs: Any) -> Module:
            if Path(path).absolute() == module.absolute():
                ui = threading.current_thread() is threading.main_thread()
                if ui:
                    self.on_ui_thread.append(ui)
                elif get_current_worker().name == "load the module":
                    self.on_ui_thread.append(ui)
                    # Never on the UI thread: that would freeze the test as it froze the screen. Held until the
                    # test lets go (or past any wait's bound, HANG_S: a test that failed ends).
                    self.gate.wait(2 * HANG_S)
            return real_load(path, *args, **kwargs)

        monkeypatch.setattr(loader, "load_module", load_module)
        # Every `ModuleLoaded` a screen's read posts, once posted (queued, or dropped by a closed screen): after
        # a release, a test waits for it, then for the app to handle what was queued.
        self.posted: list[bool] = []
        real_post = Screen.post_message

        def post_message(screen: Screen[Any], message: Message) -> bool:
            delivered = real_post(screen, message)
            if isinstance(message, ModuleLoaded):
                self.posted.append(delivered)
            return delivered

        monkeypatch.setattr(Screen, "post_message", post_message)

    async def answered(self, pilot: Pilot[None], n: int = 1) -> None:
        """Wait until `n` reads have posted what they read, and the app has handled whatever was delivered."""
        await until(lambda: len(self.posted) >= n, pilot)
        await pilot.pause()

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()


Go = Callable[[CogtuiApp, Path], object]  # a navigation function that opens a module's screen


async def opening(
    app: CogtuiApp, pilot: Pilot[None], monkeypatch: pytest.MonkeyPatch, go: Go, kind: type[S]
) -> tuple[S, HeldLoads]:
    """`go(app, module)` for code-reviewer under `app`'s root, its load held: the screen of `kind`, open and loading."""
    await until(lambda: bool(app.store.entries), pilot)
    module = app.store.entries[0].path
    loads = HeldLoads(monkeypatch, module)
    go(app, module)
    await until(lambda: isinstance(app.screen, kind) and bool(loads.on_ui_thread), pilot)
    screen = app.screen
    assert isinstance(screen, kind)
    return screen, loads


async def test_the_run_screen_opens_and_runs_with_the_module_loaded_in_a_worker_and_a_burst_starts_one_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, loads = await opening(app, pilot, monkeypatch, navigation.run_module, RunScreen)
        assert isinstance(screen, RunScreen) and screen.module is None  # open, the module still loading
        loads.release()
        await until(lambda: screen.module is not None, pilot)
        assert loads.on_ui_thread == [False]

        def panes() -> list[RunPane]:
            return list(screen.query(RunPane))

        area = screen.query_one("#run-input", TextArea)
        assert area.text.strip().startswith("{")  # the form filled in from the module once loaded

        loads.hold()
        press_at(app, "ctrl+r", 0.0, 0.07, 0.14)  # a burst: one run (TUI-5)
        await until(lambda: len(loads.on_ui_thread) == 2, pilot)
        area.focus()
        before = area.text
        await pilot.press("space")  # the screen answers keys while the module loads
        assert area.text == " " + before and not panes()
        assert loads.on_ui_thread == [False, False]  # one load, in a worker, for the three presses

        loads.release()
        await until(lambda: len(panes()) == 1 and panes()[0].result is not None, pilot)
        await pilot.pause()
        assert len(panes()) == 1 and loads.on_ui_thread == [False, False]
        await press_run_again(pilot)  # a press after the burst runs again, reading the files again
        await until(lambda: len(panes()) == 2 and panes()[1].result is not None, pilot)
        assert loads.on_ui_thread == [False, False, False]


async def test_keys_typed_while_the_run_screen_loads_the_module_are_kept_before_its_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The screen opens before the module is read: what is typed meanwhile lands in the input and stays there,
    the input the screen starts with (the first golden's) after it, as `rhigh` typed at once in the browser did
    when the screen opened filled in (tests/tui/test_e2e_bursts_tmux.py)."""
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, loads = await opening(app, pilot, monkeypatch, navigation.run_module, RunScreen)
        area = screen.query_one("#run-input", TextArea)
        await pilot.press("h", "i")
        assert area.text == "hi" and screen.module is None
        loads.release()
        await until(lambda: screen.module is not None and area.text != "hi", pilot)
        assert area.text.startswith("hi{\n") and area.cursor_location == (0, 2)
        assert json.loads(area.text[2:]) == screen.choices[0].value  # the first golden's input, whole, after it


@pytest.mark.parametrize(("go", "kind"), [(navigation.goldens, GoldensScreen), (navigation.evaluate, EvalScreen)])
async def test_goldens_and_eval_load_in_a_worker_as_they_open_and_a_burst_of_ctrl_r_runs_once(
    go: Go, kind: type[GoldensScreen | EvalScreen], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, loads = await opening(app, pilot, monkeypatch, go, kind)
        assert isinstance(screen, kind) and screen.state.generation == 0  # nothing runs until it is loaded
        loads.release()
        await until(lambda: screen.state.final, pilot)
        assert loads.on_ui_thread == [False] and screen.state.generation == 1

        loads.hold()
        await pilot.press("ctrl+r", "ctrl+r", "ctrl+r")
        await until(lambda: len(loads.on_ui_thread) == 2, pilot)
        await pilot.pause()
        assert screen.state.generation == 1 and screen.state.final  # the last run's results stay until loaded
        loads.release()
        await until(lambda: screen.state.generation == 2 and screen.state.final, pilot)
        await pilot.pause()
        assert loads.on_ui_thread == [False, False] and screen.state.generation == 2  # one load, one run
