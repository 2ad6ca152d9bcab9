"""The run screen's side-by-side run (`ctrl+r` with a target in "compare with": both at once, through the real
OpenAI-compatible client and the Anthropic SDK against the scripted server) and its prompt view (`f4`/`p`), each
agreeing with its state; both compared runs are recorded in history, and the prompt view calls no model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Static
from tuikit import isolate, make_app, until

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "runtime"))

from evalkit import answer, eval_module
from llmserver import RecordedRequest, ScriptedLLMServer, Text
from rtkit import ANTHROPIC_KEY, OPENAI_KEY

from cogtui.core.history.store import History
from cogtui.core.settings.config import load_config
from cogtui.tui import navigation as nav
from cogtui.tui.screens.run.prompt import PromptScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.compare_pane import DIFFERS, ComparePane
from cogtui.tui.widgets.text_views import CodeView


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server: ScriptedLLMServer) -> Path:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    (tmp_path / "config.yaml").write_text("provider: openai\n")
    return eval_module(root, n=1)


def compare_agrees(pane: ComparePane) -> None:
    state = pane.state
    heads = [str(pane.query_one(where, Static).render()) for where in ("#compare-left", "#compare-right")]
    assert heads == [side.line() for side in state.sides]
    assert str(pane.query_one(".compare-summary", Static).render()) == state.summary()
    table = pane.query_one(DataTable)
    rows = state.rows() if not state.running else []
    assert table.row_count == len(rows)
    for i, row in enumerate(rows):
        mark, path, left, right = (str(x) for x in table.get_row_at(i))
        assert (mark == DIFFERS, path, left, right) == (row.differs, row.path, row.left, row.right)


async def test_two_targets_run_side_by_side_with_the_differences_marked(
    env: Path, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    def respond(req: RecordedRequest) -> Text:  # the two providers answer differently
        return Text(answer("feature" if req.protocol == "anthropic" else "bug"), chunk_size=64)

    llm_server.respond_with(respond)
    app = make_app(env.parent, tmp_path, config=load_config())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        nav.run_module(app, env)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.query_one("#run-compare", Input).value = "anthropic/claude-test"
        await until(lambda: screen.state.title() == "ticket · openai gpt-4o-mini vs anthropic/claude-test", pilot)
        await pilot.press("ctrl+r")
        # The pane drawn: its children composed and its own mount handler run (the table's columns), which a loaded
        # machine reaches some time after the pane is in the DOM.
        await until(lambda: screen.query_one(ComparePane).query_one(DataTable).columns, pilot)
        pane = screen.query_one(ComparePane)
        compare_agrees(pane)
        await until(lambda: not pane.running and len(recorded()) == 2, pilot)
        compare_agrees(pane)
        assert pane.state.differing() == ["data.label"]
        assert [s.label for s in pane.state.sides] == ["openai/gpt-4o-mini", "anthropic/claude-test"]
        assert sorted(r.protocol or "" for r in llm_server.calls()) == ["anthropic", "openai"]
    assert sorted(r.provider for r in recorded()) == ["anthropic", "openai"]


def recorded() -> list[Any]:
    with History.open_default() as history:
        return history.runs("ticket", limit=10)


async def test_the_prompt_view_shows_the_request_and_calls_no_model(
    env: Path, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    app = make_app(env.parent, tmp_path, config=load_config())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        nav.run_module(app, env)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        await pilot.press("f4")  # the input editor has the focus: p would type a p there
        await until(lambda: isinstance(app.screen, PromptScreen) and app.screen.state.phase != "building", pilot)
        view = app.screen
        assert isinstance(view, PromptScreen)
        assert view.state.phase == "ready"
        assert str(view.query_one("#prompt-title", Static).render()) == view.state.title()
        assert view.query_one(CodeView).text == view.state.text()
        assert "── system ──" in view.state.text() and "ticket case-000" in view.state.text()
        assert "input tokens (an estimate" in view.state.text()
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, RunScreen), pilot)
    assert llm_server.requests == []
