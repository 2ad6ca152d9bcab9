"""The eval screen's options (`t`): targets chosen from the configured providers or typed as provider/model, and
the response cache (off by default, deterministic, any), both remembered per module until cogtui quits. The
scripted server counts the model calls: a cached re-run makes none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from evalkit import eval_module, responder
from llmserver import ScriptedLLMServer
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Input, RadioButton, RadioSet, SelectionList
from tuikit import isolate, make_app, screen_of, until

from cogtui.core.eval.eval_state import EvalPhase
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.eval.options import EvalOptions
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.widgets.module_tree import ModuleTree


def scripted_openai(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, srv: ScriptedLLMServer) -> Path:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", srv.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    eval_module(root, n=3)
    srv.respond_with(responder())
    return root


def columns(screen: Screen[Any]) -> list[str]:
    return [str(column.label) for column in screen.query_one(DataTable).columns.values()][1:]


def finished(app: CogtuiApp) -> bool:
    screen = app.screen
    return isinstance(screen, EvalScreen) and screen.state.phase is EvalPhase.DONE


async def open_eval(app: CogtuiApp, pilot: Pilot[None]) -> EvalScreen:
    await until(lambda: app.store.entries and app.screen.query_one("#tree", ModuleTree).cursor_node is not None, pilot)
    await pilot.press("e")
    await until(lambda: finished(app), pilot)
    assert isinstance(app.screen, EvalScreen)
    return app.screen


async def open_options(app: CogtuiApp, pilot: Pilot[None]) -> EvalOptions:
    await pilot.press("t")
    await until(lambda: isinstance(app.screen, EvalOptions), pilot)
    assert isinstance(app.screen, EvalOptions)
    return app.screen


async def test_t_chooses_targets_typed_or_configured_and_the_module_keeps_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    root = scripted_openai(monkeypatch, tmp_path, llm_server)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_eval(app, pilot)
        assert columns(screen) == ["replay"] and llm_server.request_count == 0  # the default provider: replay
        options = await open_options(app, pilot)
        targets = options.query_one(SelectionList)
        offered = [str(targets.get_option_at_index(i).prompt) for i in range(targets.option_count)]
        assert offered[0] == "anthropic/claude-sonnet-5-5  no API key (ANTHROPIC_API_KEY is not set)"
        assert offered[1:] == ["openai/gpt-4o-mini", "replay"] and targets.selected == ["replay"]
        for part in options.query_one("#eval-options").children:  # the whole dialog fits at 80x24, nothing cut
            assert part.region.height > 0 and part.region.bottom <= 24 and part.region.right <= 80, part
        add = options.query_one("#eval-options-add", Input)
        await add.action_submit()  # empty: nothing added, nothing to complain about
        await pilot.pause()
        assert targets.option_count == 3 and not str(options.query_one("#eval-options-problem").render())
        add.value = "nonsense/model"
        await add.action_submit()
        await until(
            lambda: "unknown provider 'nonsense'" in str(options.query_one("#eval-options-problem").render()), pilot
        )
        add.value = "replay/other"  # replay has no models: said, not silently dropped (it was)
        await add.action_submit()
        await until(
            lambda: (
                "replay does not use a model name: replay/other runs as replay (already listed)"
                in str(options.query_one("#eval-options-problem").render())
            ),
            pilot,
        )
        assert targets.option_count == 3 and targets.selected == ["replay"]
        add.value = "openai/gpt-test"
        await add.action_submit()
        await until(lambda: "openai/gpt-test" in targets.selected, pilot)
        assert not str(options.query_one("#eval-options-problem").render())
        targets.deselect("replay")
        targets.select("openai/gpt-4o-mini")
        await pilot.press("ctrl+r")
        await until(lambda: finished(app) and llm_server.request_count == 6, pilot)
        assert columns(app.screen) == ["openai/gpt-4o-mini", "openai/gpt-test"]
        assert sorted(r.body["model"] for r in llm_server.requests) == ["gpt-4o-mini"] * 3 + ["gpt-test"] * 3
        report = screen_of(app, EvalScreen).report
        assert report is not None and report.failed == 0
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EvalScreen), pilot)
        again = await open_eval(app, pilot)  # the same module: the same targets, run again
        assert columns(again) == ["openai/gpt-4o-mini", "openai/gpt-test"] and llm_server.request_count == 12
        options = await open_options(app, pilot)  # the typed target is offered again, chosen
        assert sorted(options.query_one(SelectionList).selected) == ["openai/gpt-4o-mini", "openai/gpt-test"]
        options.query_one(SelectionList).deselect_all()
        await pilot.press("ctrl+r")  # nothing chosen: refused, the dialog stays
        await until(lambda: "at least one target" in str(options.query_one("#eval-options-problem").render()), pilot)
        await pilot.press("escape")  # cancelled: nothing changes, nothing runs
        await until(lambda: isinstance(app.screen, EvalScreen), pilot)
        assert columns(app.screen) == ["openai/gpt-4o-mini", "openai/gpt-test"] and llm_server.request_count == 12


async def test_the_response_cache_option_reuses_answers_and_is_remembered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    root = scripted_openai(monkeypatch, tmp_path, llm_server)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_eval(app, pilot)
        options = await open_options(app, pilot)
        cache = options.query_one(RadioSet)
        assert cache.pressed_button is not None and cache.pressed_button.name == "off"  # off by default
        targets = options.query_one(SelectionList)
        targets.deselect("replay")
        targets.select("openai/gpt-4o-mini")
        button = next(b for b in options.query(RadioButton) if b.name == "any")
        button.value = True
        await pilot.press("ctrl+r")
        await until(lambda: finished(app) and llm_server.request_count == 3, pilot)
        table = app.screen.query_one(DataTable)
        assert str(table.get_cell("case-000", "openai/gpt-4o-mini")) == "✓ pass"
        first = screen_of(app, EvalScreen).report
        await pilot.press("ctrl+r")  # the same requests again: answered from the history, no model call
        await until(lambda: finished(app) and screen_of(app, EvalScreen).report is not first, pilot)
        assert llm_server.request_count == 3
        table = app.screen.query_one(DataTable)
        assert str(table.get_cell("case-000", "openai/gpt-4o-mini")) == "✓ pass (cached)"
        assert "cache: any" in str(app.screen.query_one("#eval-title").render())
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EvalScreen), pilot)
        again = await open_eval(app, pilot)  # remembered for this module: cached again
        assert llm_server.request_count == 3 and all(cell.cached for cell in again.state.cells.values())


async def test_under_the_ansi_theme_chosen_and_unchosen_targets_differ_in_more_than_colour(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    root = scripted_openai(monkeypatch, tmp_path, llm_server)
    app = make_app(root, tmp_path, theme="cogtui-ansi")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_eval(app, pilot)
        options = await open_options(app, pilot)
        targets = options.query_one(SelectionList)
        unchosen = targets.get_component_rich_style("selection-list--button")
        chosen = targets.get_component_rich_style("selection-list--button-selected")
        assert unchosen.dim and not unchosen.bold and chosen.bold and not chosen.dim
        # And in shape, not only in style: the mark of a target that is not chosen is blank (issue 30: `▐X▌` beside
        # every target, chosen or not, read alike in tmux).
        marks = {}
        for y in range(targets.option_count):
            text = targets.render_line(y).text
            label = text[4:].split()[0]
            marks[label] = text[:3]
        chosen_labels = set(targets.selected)
        assert chosen_labels and set(marks) - chosen_labels, marks
        assert {marks[label] for label in chosen_labels} == {"▐X▌"}
        assert {marks[label] for label in set(marks) - chosen_labels} == {"▐ ▌"}
