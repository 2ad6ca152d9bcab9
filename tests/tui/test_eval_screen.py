"""The eval screen (`e` from the browser): a matrix that fills in as cells stream, a progress bar, enter on a
cell for its diff and envelope, the pass-rate sparkline from history; the screen never imports the app."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, ProgressBar, Sparkline, Static
from tuikit import copy_modules, isolate, make_app, open_eval, screen_of, until

import cogtui.tui.screens.eval.screen as eval_screen_module
from cogtui.core.eval.eval_state import PENDING
from cogtui.core.history.store import History
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.widgets.module_tree import ModuleTree
from cogtui.tui.widgets.text_views import CodeView


async def test_e_opens_the_eval_and_cells_stream_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    seen: list[Any] = []
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await until(
            lambda: app.store.entries and app.screen.query_one("#tree", ModuleTree).cursor_node is not None, pilot
        )
        await pilot.press("e")
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.report is not None, pilot)
        screen = screen_of(app, EvalScreen)
        assert isinstance(screen, EvalScreen) and screen.report is not None
        table = screen.query_one(DataTable)
        assert (table.row_count, len(table.columns)) == (3, 2)  # three cases, one target (replay) + the case column
        assert all(str(table.get_cell(case, "replay")) == "✓ pass" for case in ("case1", "case2", "case3"))
        bar = screen.query_one(ProgressBar)
        assert bar.progress == bar.total == 3
        # Each cell arrived as its own message from the worker, before the eval's end.
        ours = list({id(m): m for m in seen if isinstance(m, (EvalScreen.CellDone, EvalScreen.EvalDone))}.values())
        assert [type(m).__name__ for m in ours] == ["CellDone"] * 3 + ["EvalDone"]
        assert "replay  3/3 passed (100%)" in str(screen.query_one("#eval-summary").render())
        # Recorded in history; one eval is said in words, its lone bar hidden (it would be full at any rate).
        await until(lambda: len(screen.query_one(Sparkline).data or []) == 1, pilot)
        assert not screen.query_one(Sparkline).display
        assert str(screen.query_one("#eval-trend-label", Static).render()) == "pass rate, 1 eval: 100%"
        with History(tmp_path / "data" / "history.sqlite3") as history:
            assert [p.pass_rate for p in history.eval_trend("code-reviewer")] == [1.0]
            assert history.count("code-reviewer") == 3


async def test_pending_cells_before_results(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.005")  # each answer streams for a while (about half a second)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.push_screen(EvalScreen(module, app.config, jobs=1))
        await until(
            lambda: isinstance(app.screen, EvalScreen) and app.screen.query_one(DataTable).row_count == 3, pilot
        )
        table = app.screen.query_one(DataTable)
        assert str(table.get_cell("case3", "replay")) == PENDING  # one at a time: the last case has not run yet
        await until(lambda: screen_of(app, EvalScreen).report is not None, pilot)
        assert str(table.get_cell("case3", "replay")) == "✓ pass"


async def test_enter_on_a_failing_cell_shows_diff_and_envelope(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "json-patch-generator")
    # A golden that breaks its own tier's gate: replay answers with it, the exec gate turns it into E2001.
    expected_path = module / "tests" / "case1.expected.json"
    expected = json.loads(expected_path.read_text())
    expected["meta"]["confidence"] = 0.8
    expected_path.write_text(json.dumps(expected, indent=2), encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.push_screen(EvalScreen(module, app.config))
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.report is not None, pilot)
        screen = screen_of(app, EvalScreen)
        table = screen.query_one(DataTable)
        assert str(table.get_cell("case1", "replay")) == "✗ E2001"
        # On screen in full, though wider than its column's header ("replay").
        lines = [table.render_line(y).text for y in range(table.size.height)]
        assert any("case1" in line and "✗ E2001" in line for line in lines), lines
        table.focus()
        table.move_cursor(row=table.get_row_index("case1"), column=1)
        await pilot.press("enter")
        diff = screen.query_one("#eval-diff", CodeView)
        envelope = screen.query_one("#eval-envelope", CodeView)
        await until(lambda: "+++ actual" in diff.text, pilot)
        assert "E2001" in diff.text and "case1 on replay" in diff.text
        assert '"ok": false' in envelope.text and '"E2001"' in envelope.text
        table.move_cursor(row=table.get_row_index("case2"), column=1)
        await pilot.press("enter")
        await until(lambda: "satisfies the golden" in diff.text, pilot)
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EvalScreen), pilot)


async def test_a_module_without_goldens_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "legacy-summarizer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(EvalScreen(module, app.config))
        await until(lambda: "no golden tests" in str(app.screen.query_one("#eval-summary").render()), pilot)
        assert app.screen.query_one(DataTable).row_count == 0


def test_the_screen_does_not_import_the_app() -> None:
    tree = ast.parse(Path(eval_screen_module.__file__).read_text(encoding="utf-8"))
    relative = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    absolute = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and not node.level}
    assert "app" not in relative and "cogtui.tui.app" not in absolute, (relative, absolute)
    assert "CogtuiApp" not in Path(eval_screen_module.__file__).read_text(encoding="utf-8")
    assert len(Path(eval_screen_module.__file__).read_text(encoding="utf-8").splitlines()) < 400


async def test_the_cursor_starts_on_a_result_and_enter_on_a_case_name_opens_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_eval(app, pilot, module)
        table = screen.query_one(DataTable)
        assert table.cursor_coordinate == (0, 1)  # case1 on replay, not the case's name
        table.focus()
        table.move_cursor(row=table.get_row_index("case2"), column=0)  # on the name: its first target's cell
        await pilot.press("enter")
        diff = screen.query_one("#eval-diff", CodeView)
        await until(lambda: "case2 on replay" in diff.text, pilot)


async def test_a_golden_that_does_not_parse_is_its_own_cell_and_the_others_pass(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """GOLD-4: one unreadable-golden cell whose reason is the located diagnostic; the module's other cells run."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    broken = module / "tests" / "case2.input.json"
    broken.write_text("{not json", encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_eval(app, pilot, module)
        table = screen.query_one(DataTable)
        cells = {case: str(table.get_cell(case, "replay")) for case in ("case1", "case2", "case3")}
        assert cells == {"case1": "✓ pass", "case2": "✗ unreadable-golden", "case3": "✓ pass"}
        table.focus()
        table.move_cursor(row=table.get_row_index("case2"), column=1)
        await pilot.press("enter")
        diff = screen.query_one("#eval-diff", CodeView)
        await until(lambda: f"# P002 {broken}:1:2: JSON syntax error" in diff.text, pilot)


async def test_an_eval_whose_history_cannot_open_keeps_its_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The history's folder cannot be made, as the eval starts and as it ends: the runs are kept in its outbox,
    as `cogn run` keeps one, and the eval's notes say where (HIST-8)."""
    from cogtui.core.history.location import parse_location
    from cogtui.core.history.outbox import Outbox

    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the history's folder should be", encoding="utf-8")
    url = f"sqlite://{blocked / 'history.sqlite3'}"
    monkeypatch.setenv("COGTUI_HISTORY_URL", url)
    seen: list[Any] = []
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await pilot.pause()
        app.push_screen(EvalScreen(module, app.config, jobs=2))
        await until(lambda: any(isinstance(m, EvalScreen.EvalDone) for m in seen), pilot)  # the eval's end is said
        (done,) = {id(m): m for m in seen if isinstance(m, EvalScreen.EvalDone)}.values()
    outbox = Outbox(parse_location(url), tmp_path / "data" / "outbox")
    assert outbox.waiting() == 3
    assert any(f"its 3 runs are kept in {outbox.path}" in note for note in done.outcome.notes), done.outcome.notes
