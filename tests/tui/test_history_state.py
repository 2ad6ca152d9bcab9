"""The history screen renders one state (core.history.run_list_state; issue 12, item 2): after every action the
title, the marked row, the view pane and the footer's keys agree with it; a history that cannot be read is shown
as failed, with no run keys offered."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from tuikit import copy_modules, isolate, make_app, screen_of, until

from cogtui.core.history.run_list_state import RUNS_LISTED, ListPhase
from cogtui.core.history.store import History, HistoryError, RunRecord
from cogtui.tui import navigation as nav
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.widgets.text_views import CodeView

ENVELOPE = {"ok": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "fine"}, "data": {"rationale": "r"}}


def record(n: int) -> RunRecord:
    envelope = {**ENVELOPE, "data": {"rationale": f"run {n}"}}
    return RunRecord(
        "code-reviewer", "1", "v2.2", "replay", "replay", {"n": n}, None, envelope, 1.7e9 + n, 1, 2, None, "ok"
    )


def check_agrees(screen: HistoryScreen) -> None:
    state = screen.state
    assert str(screen.query_one("#history-title", Static).render()) == state.title()
    offered = {active.binding.action for active in screen.active_bindings.values()}
    for action in ("rerun", "mark", "compare", "copy"):
        assert (action in offered) == state.can(action), action
    table = screen.query_one(DataTable)
    marks = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
    assert marks == ["●" if r.id == state.marked else "" for r in state.runs]
    if state.current is not None:
        assert table.cursor_row == state.cursor and f'"rationale": "run {state.current.input["n"]}"' in (
            screen.query_one(CodeView).text
        )


async def test_every_action_shows_the_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    with History.open_default() as history:
        history.record_many([record(n) for n in range(3)])
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        nav.history(app, module)
        await until(lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is ListPhase.READY, pilot)
        screen = screen_of(app, HistoryScreen)
        await pilot.pause()
        check_agrees(screen)
        assert not screen.state.can("compare")  # nothing marked yet: d is not offered
        for key in ("down", "space", "up", "down", "down", "space", "up", "d"):
            await pilot.press(key)
            check_agrees(screen)
        assert screen.state.marked == screen.state.runs[2].id and "--- run #" in screen.query_one(CodeView).text
        assert str(screen.query_one("#history-title", Static).render()).endswith("marked (d compares)")


async def test_a_history_that_cannot_be_read_is_shown_as_failed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")

    def broken() -> History:
        raise HistoryError(tmp_path, "cannot open the history: disk on fire")

    monkeypatch.setattr(History, "open_default", staticmethod(broken))
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        nav.history(app, module)
        await until(lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is ListPhase.FAILED, pilot)
        screen = screen_of(app, HistoryScreen)
        await pilot.pause()
        check_agrees(screen)
        assert screen.query_one(CodeView).text == "cannot open the history: disk on fire"
        assert not any(screen.state.can(a) for a in ("rerun", "mark", "compare", "copy"))


async def test_more_runs_than_are_listed_are_counted_in_the_title(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    with History.open_default() as history:
        history.record_many([record(n) for n in range(RUNS_LISTED + 7)])
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        nav.history(app, module)
        await until(lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is ListPhase.READY, pilot)
        title = str(app.screen.query_one("#history-title", Static).render())
        assert title == f"code-reviewer — the newest {RUNS_LISTED} of {RUNS_LISTED + 7} runs"
        assert app.screen.query_one(DataTable).row_count == RUNS_LISTED


async def test_a_run_made_from_the_history_is_listed_on_top_when_it_shows_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The history reads the runs again each time it is shown: `r` re-runs the highlighted run's input in the run
    screen; back in the history, the new run is the first row, the title counts it, and the run highlighted before
    is still the highlighted one (one row down)."""
    from cogtui.tui.screens.run.screen import RunScreen
    from cogtui.tui.widgets.run_pane import RunPane

    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    with History.open_default() as history:
        history.record_many([record(n) for n in range(3)])
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.history(app, module)
        await until(lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is ListPhase.READY, pilot)
        screen = screen_of(app, HistoryScreen)
        table = screen.query_one(DataTable)
        await pilot.press("down")
        chosen = screen.state.current
        assert chosen is not None and screen.state.cursor == 1
        before = [str(k.value) for k in table.rows]
        await pilot.press("r")  # the run screen opens on its input and runs it
        await until(lambda: isinstance(app.screen, RunScreen) and bool(app.screen.query(RunPane)), pilot)
        pane = app.screen.query_one(RunPane)
        await until(lambda: pane.result is not None, pilot)
        with History.open_default() as history:  # recorded by the run screen's worker
            await until(lambda: history.count("code-reviewer") == 4, pilot)
        await pilot.press("escape")  # nothing runs: back to the history, which reads the runs again
        await until(lambda: app.screen is screen and len(screen.state.runs) == 4, pilot)
        await pilot.pause()
        rows = [str(k.value) for k in table.rows]
        newest = max(r.id or 0 for r in screen.state.runs)  # runs read back from the store: each has its id
        assert rows == [str(newest), *before] and str(newest) not in before
        assert screen.state.current == chosen and screen.state.cursor == 2 and table.cursor_row == 2
        assert "4 runs" in screen.state.title()
        check_agrees(screen)
