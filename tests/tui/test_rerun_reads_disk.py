"""ctrl+r on the run, goldens and eval screens runs the module as its files are now, not as the screen opened it.

A schema made stricter by another program while the screen is open (a required field the replay answers do
not have) fails the next run with E3001, as `cogn eval` does; put back, the run after passes again. A module
that can no longer be loaded says so instead of running the old copy.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tuikit import copy_modules, ended, isolate, make_app, open_eval, open_goldens, open_run, press_run_again, until

from cogtui.core.run.golden_state import GoldensPhase
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.widgets.run_pane import RunPane


def stricter(module: Path) -> str:
    """Require a data field no golden answer has; returns the schema's text as it was."""
    path = module / "schema.json"
    before = path.read_text(encoding="utf-8")
    schema = json.loads(before)
    schema["data"]["required"].append("risk_summary")
    schema["data"]["properties"]["risk_summary"] = {"type": "string"}
    path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    return before


async def test_goldens_rerun_uses_the_schema_on_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen: GoldensScreen = await open_goldens(app, pilot, module)
        assert screen.state.failures == 0
        original = stricter(module)
        await pilot.press("ctrl+r")
        await until(lambda: screen.state.generation == 2 and screen.state.final, pilot)
        failed = {r.name: r.reasons for r in screen.state.results if not r.passed}
        assert sorted(failed) == ["case1", "case2"]  # case3's golden is an error envelope: it has no data
        assert all(any("E3001" in reason for reason in reasons) for reasons in failed.values())
        (module / "schema.json").write_text(original, encoding="utf-8")
        await pilot.press("ctrl+r")
        await until(lambda: screen.state.generation == 3 and screen.state.final, pilot)
        assert screen.state.failures == 0 and screen.state.phase is GoldensPhase.DONE
        (module / "module.yaml").unlink()  # no longer a module: said, not run from the old copy
        await pilot.press("ctrl+r")
        await until(lambda: screen.state.phase is GoldensPhase.FAILED, pilot)
        assert "Cannot load" in screen.state.problem


async def test_eval_rerun_uses_the_schema_on_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_eval(app, pilot, module)
        assert isinstance(screen, EvalScreen) and screen.report is not None
        assert screen.report.failed == 0
        stricter(module)
        first = screen.report
        await pilot.press("ctrl+r")
        await until(lambda: screen.report is not None and screen.report is not first, pilot)
        assert {c.case: c.code for c in screen.report.cells} == {"case1": "E3001", "case2": "E3001", "case3": None}
        table = screen.query_one(DataTable)
        assert str(table.get_cell("case1", "replay")).startswith("✗")


async def test_run_uses_the_schema_on_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        panes = lambda: list(screen.query(RunPane))  # noqa: E731
        await pilot.press("ctrl+r")
        await until(lambda: len(panes()) == 1 and panes()[0].result is not None, pilot)
        assert ended(panes()[0]).envelope["ok"] is True
        stricter(module)
        await press_run_again(pilot)
        await until(lambda: len(panes()) == 2 and panes()[1].result is not None, pilot)
        envelope = ended(panes()[1]).envelope
        assert envelope["ok"] is False and envelope["error"]["code"] == "E3001"
