"""One screen per module and kind (TUI-2), as one editor per module: "Run X" with X's run screen already
open goes back to it (its runs and tabs as they are: a run in progress is not lost), and so do the golden tests,
eval, history, the insights dashboard (per filter) and a live migration preview. The history's re-run lands in the
run screen under it, as a new tab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import TextArea
from tuikit import copy_modules, editor_ready, isolate, make_app, notices, open_run, screen_of, until

from cogtui.core.history.run_list_state import ListPhase
from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane

MODULE = "code-reviewer"


def stacked(app: CogtuiApp, kind: type) -> list:
    return [s for s in app.screen_stack if isinstance(s, kind)]


async def test_run_x_twice_goes_back_to_its_run_screen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.1")  # a run that lasts long enough
    (module,) = copy_modules(root, MODULE)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        said = notices(app)
        await until(lambda: bool(app.store.entries), pilot)
        screen = await open_run(app, pilot, module)
        await pilot.press("ctrl+r")
        panes = lambda: list(screen.query(RunPane))  # noqa: E731
        await until(lambda: len(panes()) == 1 and panes()[0].running, pilot)

        nav.run_module(app, module)  # on top already: stays, the run keeps running
        await pilot.pause()
        assert stacked(app, RunScreen) == [screen] and app.screen is screen and panes()[0].running
        assert f"{MODULE} is already open: back to its run screen." in said[-1]

        nav.history(app, module)  # a screen above that holds nothing is closed on the way back
        await until(lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is ListPhase.EMPTY, pilot)
        nav.run_module(app, module)
        await until(lambda: app.screen is screen, pilot)
        assert stacked(app, RunScreen) == [screen] and not stacked(app, HistoryScreen) and panes()[0].running

        await pilot.press("escape")  # cancelled: recorded in the history as interrupted
        await until(lambda: not panes()[0].running, pilot)
        await pilot.press("f3")
        await until(lambda: isinstance(app.screen, HistoryScreen) and len(app.screen.runs) == 1, pilot)
        history = screen_of(app, HistoryScreen)
        (run,) = history.runs.values()
        await pilot.press("r")  # the history's re-run: back to the run screen, the run's input, a new tab
        await until(lambda: app.screen is screen and len(panes()) == 2, pilot)
        assert stacked(app, RunScreen) == [screen] and not stacked(app, HistoryScreen)
        assert json.loads(screen.query_one("#run-input", TextArea).text) == run.input
        assert panes()[1].request.input == run.input
        panes()[1].cancel()
        await until(lambda: not panes()[1].running, pilot)


async def test_goldens_eval_history_and_migrate_are_not_stacked_twice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, MODULE)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        said = notices(app)
        await until(lambda: bool(app.store.entries), pilot)
        nav.goldens(app, module)
        await until(lambda: isinstance(app.screen, GoldensScreen) and app.screen.state.final, pilot)
        goldens = screen_of(app, GoldensScreen)
        nav.evaluate(app, module)
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.report is not None, pilot)
        nav.goldens(app, module)  # the eval above has ended: closed on the way back to the golden tests
        await until(lambda: app.screen is goldens, pilot)
        assert stacked(app, GoldensScreen) == [goldens] and not stacked(app, EvalScreen)
        assert "back to its golden tests" in said[-1]
        nav.evaluate(app, module)
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.report is not None, pilot)
        evaluation = screen_of(app, EvalScreen)
        nav.evaluate(app, module)
        await pilot.pause()
        assert stacked(app, EvalScreen) == [evaluation] and app.screen is evaluation

        nav.history(app, module)
        await until(
            lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is not ListPhase.LOADING, pilot
        )
        history = screen_of(app, HistoryScreen)
        nav.history(app, module)
        await pilot.pause()
        assert stacked(app, HistoryScreen) == [history]

        nav.migrate(app, [module])
        await until(lambda: isinstance(app.screen, MigrationScreen) and app.screen.is_mounted, pilot)
        nav.history(app, module)  # back down to the history: the preview above holds nothing
        await until(lambda: app.screen is history, pilot)
        nav.migrate(app, [module])
        await until(lambda: isinstance(app.screen, MigrationScreen), pilot)
        migration = screen_of(app, MigrationScreen)
        nav.migrate(app, [module])
        await pilot.pause()
        assert stacked(app, MigrationScreen) == [migration] and stacked(app, GoldensScreen) == [goldens]
        kinds = [type(s) for s in app.screen_stack[1:]]
        assert kinds == [GoldensScreen, EvalScreen, HistoryScreen, MigrationScreen]


async def test_the_insights_dashboard_is_one_per_filter_and_opens_on_top_of_held_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """TUI-2: "Insights" with the dashboard of that filter open goes back to it (the screens above it closed when
    they hold nothing), another filter is another dashboard, and under screens holding work (unsaved edits) a new
    one opens on top rather than refuse."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, MODULE)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        said = notices(app)
        await until(lambda: bool(app.store.entries), pilot)
        nav.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
        dashboard = screen_of(app, InsightsScreen)
        nav.history(app, module)  # a screen that holds nothing, on top
        await until(
            lambda: isinstance(app.screen, HistoryScreen) and app.screen.state.phase is not ListPhase.LOADING, pilot
        )
        nav.insights(app, None)
        await until(lambda: app.screen is dashboard, pilot)
        assert stacked(app, InsightsScreen) == [dashboard] and not stacked(app, HistoryScreen)
        assert said[-1] == "Already open: Already open: back to the insights dashboard."

        nav.insights(app, MODULE)  # another filter: another dashboard
        await until(
            lambda: isinstance(app.screen, InsightsScreen) and app.screen is not dashboard and app.screen.filled, pilot
        )
        filtered = screen_of(app, InsightsScreen)
        assert filtered.module == MODULE and stacked(app, InsightsScreen) == [dashboard, filtered]
        nav.insights(app, None)  # back down to the first: the filtered one above holds nothing
        await until(lambda: app.screen is dashboard, pilot)
        assert stacked(app, InsightsScreen) == [dashboard]

        nav.open_module(app, module)
        await until(lambda: editor_ready(app), pilot)
        editor = screen_of(app, EditorScreen)
        editor.query_one(TextArea).insert("# an unsaved edit\n")
        await until(editor.has_unsaved_changes, pilot)
        nav.insights(app, None)  # closing the editor would lose the edit: a new dashboard opens on top
        await until(
            lambda: isinstance(app.screen, InsightsScreen) and app.screen is not dashboard and app.screen.filled, pilot
        )
        assert app.screen_stack[-2:] == [editor, app.screen] and len(stacked(app, InsightsScreen)) == 2
