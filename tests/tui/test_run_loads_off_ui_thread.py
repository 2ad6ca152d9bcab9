"""ctrl+r on the run screen reads the module again off the UI thread (D153c): the screen keeps answering keys
while the module loads (about 150 ms with 500 goldens), and a burst of ctrl+r while it loads starts one run,
not one per press. The load is held here by a loader that waits until the test lets it go."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import TextArea
from tuikit import copy_modules, isolate, make_app, open_run, until

import cogtui.core.module.loader as loader
from cogtui.tui.widgets.run_pane import RunPane


async def test_ctrl_r_loads_in_a_worker_and_a_burst_starts_one_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    real_load = loader.load_module
    held = threading.Event()
    on_ui_thread: list[bool] = []  # one entry per load of the module once the screen is open
    watching = False

    def load_module(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if watching and Path(path).absolute() == module.absolute():
            ui = threading.current_thread() is threading.main_thread()
            on_ui_thread.append(ui)
            if not ui:
                held.wait(10)  # never on the UI thread: that would freeze the test as it froze the screen
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(loader, "load_module", load_module)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(lambda: bool(app.store.entries), pilot)
        screen = await open_run(app, pilot, module)
        panes = lambda: list(screen.query(RunPane))  # noqa: E731
        area = screen.query_one("#run-input", TextArea)
        watching = True
        await pilot.press("ctrl+r", "ctrl+r", "ctrl+r")
        await until(lambda: bool(on_ui_thread), pilot)
        area.focus()
        before = area.text
        await pilot.press("space")  # the screen answers keys while the module loads
        assert area.text == " " + before and not panes()
        assert on_ui_thread == [False]  # one load, in a worker, for the three presses

        held.set()
        await until(lambda: len(panes()) == 1 and panes()[0].result is not None, pilot)
        await pilot.pause()
        assert len(panes()) == 1 and on_ui_thread == [False]
        await pilot.press("ctrl+r")  # once back, the next press runs again, reading the files again
        await until(lambda: len(panes()) == 2 and panes()[1].result is not None, pilot)
        assert on_ui_thread == [False, False]
