"""The TUI's provider pickers derive from the registry (issue 32): the stand-in provider (`providerkit.STAND_IN`,
registered through the registry's test API) is offered by the run screen's provider choice, chosen there when
configured with its key set, and runs; the eval screen's targets offer it with its missing key named, and an eval
runs on it. The headless surfaces: tests/test_provider_registry.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from providerkit import STAND_IN, STAND_IN_KEY
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList, Select, SelectionList, Static
from tuikit import copy_modules, isolate, open_eval, open_run, until

from cogtui.core.run.providers.registry import registered
from cogtui.core.settings.config import Config
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.eval.options import EvalOptions
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane


@pytest.fixture(autouse=True)
def stand_in() -> Iterator[None]:
    with registered(STAND_IN):
        yield


def workbench(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, config: Config) -> tuple[CogtuiApp, Path]:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    return CogtuiApp(paths=[str(root)], config=config, cwd=tmp_path, watch=False), module


def offered(select: Select[str]) -> list[str]:
    options = select.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_run_screen_offers_it_chooses_it_when_configured_and_runs_on_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = Config(provider="stand-in", providers={"stand-in": {"model": "si-2"}})
    app, module = workbench(monkeypatch, tmp_path, config)
    monkeypatch.setenv(STAND_IN_KEY, "sk-stand-in-0123456789abcdef")
    async with app.run_test(size=(120, 36)) as pilot:
        screen: RunScreen = await open_run(app, pilot, module)
        picker: Select[str] = screen.query_one("#run-provider", Select)
        assert offered(picker) == ["anthropic", "openai", "replay", "stand-in"] and picker.value == "stand-in"
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        result = screen.query_one(RunPane).result
        assert result is not None and result.envelope["ok"] is True and result.envelope["meta"]["model"] == "si-2"
        assert "code-reviewer · stand-in si-2" in str(screen.query_one("#run-title", Static).render())


async def test_without_its_key_the_run_screen_starts_on_replay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    app, module = workbench(monkeypatch, tmp_path, Config(provider="stand-in"))
    monkeypatch.delenv(STAND_IN_KEY, raising=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen: RunScreen = await open_run(app, pilot, module)
        assert screen.query_one("#run-provider", Select).value == "replay"


async def eval_targets(app: CogtuiApp, pilot: Pilot[None]) -> EvalOptions:
    await pilot.press("t")
    await until(lambda: isinstance(app.screen, EvalOptions), pilot)
    assert isinstance(app.screen, EvalOptions)
    return app.screen


async def test_the_eval_targets_offer_it_with_its_missing_key_and_an_eval_runs_on_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app, module = workbench(monkeypatch, tmp_path, Config())
    monkeypatch.delenv(STAND_IN_KEY, raising=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_eval(app, pilot, module)
        options = await eval_targets(app, pilot)
        targets: SelectionList[str] = options.query_one(SelectionList)
        prompts = [str(targets.get_option_at_index(i).prompt) for i in range(targets.option_count)]
        assert prompts[-1] == "stand-in/si-1  no API key (STAND_IN_API_KEY is not set)"
        targets.deselect("replay")
        targets.select("stand-in/si-1")
        await pilot.press("ctrl+r")
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.state.final, pilot)
        assert isinstance(app.screen, EvalScreen)
        columns = [str(c.label) for c in app.screen.query_one(DataTable).columns.values()][1:]
        assert columns == ["stand-in/si-1"] and app.screen.report is not None and app.screen.report.failed == 0
