"""The goldens screen renders one state (core.run.golden_state; issue 12, item 2): after every case the title,
progress bar, table and summary agree with it; "run again" while cases are coming in never mixes two runs;
a module that cannot be loaded is shown as failed."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, ProgressBar, Static
from tuikit import copy_modules, isolate, make_app, open_goldens, screen_of, until

from cogtui.core.run.golden_state import GoldensPhase
from cogtui.tui import navigation as nav
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.widgets.text_views import CodeView


def check_agrees(screen: GoldensScreen) -> None:
    state = screen.state
    assert str(screen.query_one("#goldens-title", Static).render()) == state.title()
    bar = screen.query_one(ProgressBar)
    assert (bar.progress, bar.total) == state.progress()
    table = screen.query_one(DataTable)
    assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == [r.name for r in state.results]
    # The pane and the table's cursor agree: no row highlighted while the pane says where the run is; once it is
    # done, the cursor's case is the pane's (it said "Highlight a case" under a highlighted first row).
    shown = state.shown_case()
    view = screen.query_one(CodeView).text
    assert table.show_cursor == (shown is not None)
    if shown is None:
        assert view == state.summary()
    else:
        assert str(table.get_row_at(table.cursor_row)[0]) == shown.name
        assert "Highlight a case" not in view and (shown.name in view or shown.passed)


def state_title(screen: GoldensScreen) -> str:
    return str(screen.query_one("#goldens-title", Static).render())


async def test_every_case_and_a_rerun_show_the_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.01")  # cases take a moment: "run again" lands mid-run
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.goldens(app, module)
        await until(lambda: isinstance(app.screen, GoldensScreen) and len(app.screen.state.results) >= 1, pilot)
        screen = screen_of(app, GoldensScreen)
        check_agrees(screen)
        assert screen.state.phase is GoldensPhase.RUNNING
        await pilot.press("ctrl+r")  # run again while the first run's cases are still coming
        assert screen.state.generation == 2 and screen.state.results == []
        check_agrees(screen)
        seen: list[int] = []
        while screen.state.phase is GoldensPhase.RUNNING:
            await until(lambda: len(screen.state.results) not in seen or screen.state.final, pilot, timeout=60)
            seen.append(len(screen.state.results))
            check_agrees(screen)
        assert screen.state.phase is GoldensPhase.DONE
        check_agrees(screen)
        table = screen.query_one(DataTable)
        assert table.row_count == 3 and len({str(table.get_row_at(i)[0]) for i in range(3)}) == 3
        assert state_title(screen) == "code-reviewer — all 3 passed via replay"
        await pilot.press("down")  # the cursor moves: the pane follows
        await until(lambda: screen.state.highlighted == "case2", pilot)
        check_agrees(screen)


async def test_a_module_that_cannot_be_loaded_is_shown_as_failed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for name in ("module.yaml", "MODULE.md"):
            (module / name).unlink(missing_ok=True)
        screen: GoldensScreen = await open_goldens(app, pilot, module)
        assert screen.state.phase is GoldensPhase.FAILED
        check_agrees(screen)
        await pilot.press("ctrl+r")  # nothing to run again: still failed, not "running"
        assert screen.state.phase is GoldensPhase.FAILED


async def test_a_module_that_cannot_run_is_said_once_and_no_case_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An unreadable schema.json blocks every run (FMT-17): the screen says so once, with the code and what to do,
    instead of the same E4000 on every case; fixed on disk, ctrl+r runs the cases."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    schema = module / "schema.json"
    good = schema.read_text(encoding="utf-8")
    schema.write_text("{ not json", encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen: GoldensScreen = await open_goldens(app, pilot, module)
        assert screen.state.phase is GoldensPhase.FAILED and screen.state.results == []
        title = str(screen.query_one("#goldens-title", Static).render())
        assert title.startswith("E4000 module code-reviewer cannot run") and "cogn validate code-reviewer" in title
        check_agrees(screen)
        schema.write_text(good, encoding="utf-8")
        await pilot.press("ctrl+r")
        await until(lambda: screen.state.phase is GoldensPhase.DONE, pilot)
        assert len(screen.state.results) == 3 and all(r.passed for r in screen.state.results)
        check_agrees(screen)


async def test_a_golden_that_does_not_parse_fails_its_own_row_and_the_others_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """GOLD-4: not "cannot run" for the module: the broken file's case is a failed row, its reason the located
    diagnostic, shown in full when highlighted; the other cases pass."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    broken = module / "tests" / "case2.expected.json"
    broken.write_text('{\n  "ok": true,\n  meta: {}\n}\n', encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen: GoldensScreen = await open_goldens(app, pilot, module)
        await until(lambda: screen.state.phase is GoldensPhase.DONE, pilot)
        check_agrees(screen)
        assert [(r.name, r.passed) for r in screen.state.results] == [
            ("case1", True),
            ("case2", False),
            ("case3", True),
        ]
        table = screen.query_one(DataTable)
        assert str(table.get_row_at(1)[2]).startswith(f"P002 {broken}:3:3: JSON syntax error")
        table.move_cursor(row=1)
        await until(lambda: f"# P002 {broken}:3:3: JSON syntax error" in screen.query_one(CodeView).text, pilot)
