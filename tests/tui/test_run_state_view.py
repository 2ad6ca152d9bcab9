"""The run pane shows one state: while chunks stream the progress is not "waiting", the first-chunk
time never changes once shown, and after cancel nothing says the run is still running."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import ProgressBar, Static
from tuikit import copy_modules, isolate, make_app, notices, until

from cogtui.core.run.run_state import Phase
from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.meta_card import MetaCard
from cogtui.tui.widgets.run_pane import RunPane

MODULE = "incident-narrator"


def shown(pane: RunPane) -> dict[str, str]:
    return {
        "meta": str(pane.query_one(MetaCard).render()),
        "progress": str(pane.query_one(".run-progress", Static).render()),
        "timings": str(pane.query_one(".run-usage", Static).render()),
    }


def first_chunk(text: str) -> str | None:
    m = re.search(r"first chunk (\d+) ms", text)
    return m.group(1) if m else None


@pytest.fixture
def module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.005")  # streams for about a second: long enough to watch
    (path,) = copy_modules(root, MODULE)
    return path


async def start(app: CogtuiApp, pilot: Pilot[None], module: Path) -> RunPane:
    await pilot.pause()
    nav.run_module(app, module)
    await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
    await pilot.press("ctrl+r")
    await until(lambda: bool(app.screen.query(RunPane)) and app.screen.query_one(RunPane).assembler.chunks > 3, pilot)
    return app.screen.query_one(RunPane)


async def test_streaming_then_done_agree_with_the_state(module: Path, tmp_path: Path) -> None:
    app = make_app(module.parent, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await start(app, pilot, module)
        await until(
            lambda: pane.state.phase is Phase.STREAMING and first_chunk(shown(pane)["timings"]) is not None, pilot
        )
        view = shown(pane)
        assert "waiting" not in view["progress"] and view["progress"] == pane.state.progress_line()
        first = first_chunk(view["timings"])
        await until(lambda: not pane.running, pilot, timeout=120)
        view = shown(pane)
        assert pane.state.phase is Phase.DONE and view["progress"] == "done"
        assert first_chunk(view["timings"]) == first  # the first-chunk time did not change after the fact
        assert pane.result is not None and f"{pane.result.ttfc_ms:.0f}" == first


async def test_cancel_is_shown_as_final(module: Path, tmp_path: Path) -> None:
    app = make_app(module.parent, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await start(app, pilot, module)
        seen = notices(app)
        await pilot.press("escape")  # cancels the running run
        await until(lambda: not pane.running and pane.state.phase is Phase.CANCELLED, pilot)
        await until(lambda: "the run was cancelled" in shown(pane)["meta"], pilot)
        await until(lambda: any(n.startswith("Run cancelled: ") for n in seen), pilot)
        view = shown(pane)
        assert "the run was cancelled" in view["meta"]  # the card shows the final envelope's explain
        assert view["meta"].startswith("cancelled") and "confidence" not in view["meta"] and "HIGH" not in view["meta"]
        assert not pane.query_one(ProgressBar).display  # no invented 100 %
        assert view["progress"] == "cancelled (recorded as interrupted)" and "running" not in view["timings"]
        assert any(n.startswith("Run cancelled: The run was cancelled") for n in seen)  # what "Cancelling…" came to
