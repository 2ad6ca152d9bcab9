"""The eval screen renders one state (core.eval.eval_state; issue 12, item 2): after every action (start, each cell
starting and finishing, enter on a cell, cancel, run again, done) the title, progress bar, matrix, summary, the
selected cell's pane and the footer's keys agree with it; cancelled and failed are final and shown as such."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, ProgressBar, Static
from tuikit import copy_modules, isolate, make_app, screen_of, until

from cogtui.core.eval.eval_state import CellStatus, EvalPhase
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.widgets.text_views import CodeView


def check_agrees(screen: EvalScreen) -> None:
    state = screen.state
    assert str(screen.query_one("#eval-title", Static).render()) == state.title()
    assert str(screen.query_one("#eval-summary", Static).render()) == state.summary()
    bar = screen.query_one(ProgressBar)
    assert (bar.progress, bar.total) == state.progress()
    table = screen.query_one(DataTable)
    assert [str(c.label) for c in table.columns.values()][1:] == state.targets
    assert table.row_count == (len(state.cases) if state.targets else 0)
    for case in state.cases if state.targets else []:
        for target in state.targets:
            assert str(table.get_cell(case, target)) == state.label(case, target), (case, target)
    offered = {active.binding.action for active in screen.active_bindings.values()}
    for action in ("rerun", "cancel", "close", "options"):
        assert (action in offered) == state.can(action), action
    diff = screen.query_one("#eval-diff", CodeView).text
    if state.selected is None:
        assert state.verdict() in diff
    else:
        case, target = state.selected
        shown = state.label(case, target) if state.selected_cell() is not None else str(state.status(case, target))
        assert f"{case} on {target}: {shown}" in diff


async def test_every_action_shows_the_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "1")  # the first run crawls (minutes a case): cancel lands mid-run
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.push_screen(EvalScreen(module, app.config, jobs=1))
        await until(lambda: isinstance(app.screen, EvalScreen) and bool(app.screen.state.running), pilot)
        screen = screen_of(app, EvalScreen)
        state = screen.state
        check_agrees(screen)
        assert state.phase is EvalPhase.RUNNING and state.status("case1", "replay") is CellStatus.RUNNING
        assert state.status("case3", "replay") is CellStatus.PENDING
        table = screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=2, column=1)
        await pilot.press("enter")  # a cell not finished yet
        assert state.selected == ("case3", "replay")
        check_agrees(screen)
        await pilot.press("escape")  # cancels the running eval: the screen stays, showing it cancelled
        assert state.phase is EvalPhase.CANCELLED and isinstance(app.screen, EvalScreen)
        check_agrees(screen)
        assert state.status("case3", "replay") is CellStatus.CANCELLED and state.summary().startswith("cancelled")
        await app.workers.wait_for_complete()  # the cancelled worker has ended: whatever it posted changes nothing
        await pilot.pause()
        assert state.phase is EvalPhase.CANCELLED
        check_agrees(screen)
        monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.002")  # read as the run's provider is made
        await pilot.press("ctrl+r")  # run again
        assert state.generation == 2 and state.phase is not EvalPhase.CANCELLED
        check_agrees(screen)
        seen: list[tuple[int, int]] = []
        while state.phase is EvalPhase.RUNNING:
            await until(lambda: (len(state.cells), len(state.running)) not in seen or state.final, pilot, timeout=60)
            seen.append((len(state.cells), len(state.running)))
            check_agrees(screen)
        assert state.phase is EvalPhase.DONE and state.report is not None
        check_agrees(screen)
        assert "all 3 passed" in screen.query_one("#eval-diff", CodeView).text
        table.move_cursor(row=1, column=1)
        await pilot.press("enter")
        assert state.selected == ("case2", "replay")
        check_agrees(screen)
        assert "satisfies the golden" in screen.query_one("#eval-diff", CodeView).text
        await pilot.press("escape")  # over: escape goes back
        await until(lambda: not isinstance(app.screen, EvalScreen), pilot)
        # A folder that is not a module: failed, shown as such, nothing to run again.
        app.push_screen(EvalScreen(tmp_path / "no-such-module", app.config))
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.state.final, pilot)
        failed = screen_of(app, EvalScreen)
        assert failed.state.phase is EvalPhase.FAILED
        check_agrees(failed)
        await pilot.press("ctrl+r")
        assert failed.state.phase is EvalPhase.FAILED and not failed.state.can("rerun")
        check_agrees(failed)
