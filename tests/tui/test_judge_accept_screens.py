"""The goldens and eval screens agree with their states on judged goldens (the score in each cell, the judge's words
in the pane) and on accepting (`a`: the diff, a dialog, the file written; `u`: put back), the judge and the module
on the OpenAI-compatible provider (httpx) against the scripted server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tuikit import isolate, make_app, notices, open_goldens, screen_of, until

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "runtime"))

from evalkit import eval_module, responder
from judgekit import judged_module, routed, scores
from llmserver import ScriptedLLMServer
from rtkit import OPENAI_KEY

from cogtui.core.run.golden_state import GoldensPhase, judge_lines, result_label
from cogtui.core.settings.config import load_config
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.widgets.text_views import CodeView


def on_openai(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, srv: ScriptedLLMServer) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", srv.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    (tmp_path / "config.yaml").write_text("provider: openai\njudge: {provider: openai, model: judge-m}\n")


def goldens_agree(screen: GoldensScreen) -> None:
    table = screen.query_one(DataTable)
    for i, result in enumerate(screen.state.results):
        accepted = screen.accepting.is_accepted(screen.state.module, result.name)
        assert str(table.get_row_at(i)[1]) == result_label(result, accepted)
    shown = screen.state.shown_case()
    if shown is not None:
        view = screen.query_one(CodeView).text
        assert all(line in view for line in judge_lines(shown, screen.state.judge))
    offered = {active.binding.action for active in screen.active_bindings.values()}
    assert ("undo" in offered) == screen.accepting.can_undo()


async def test_goldens_show_the_judges_scores(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    root = isolate(monkeypatch, tmp_path)
    on_openai(monkeypatch, tmp_path, llm_server)
    module = judged_module(root, n=2)
    llm_server.respond_with(routed(scores({0: 0.9, 1: 0.4})))
    app = make_app(root, tmp_path, config=load_config())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_goldens(app, pilot, module)
        assert screen.state.phase is GoldensPhase.DONE and screen.state.judge == "openai/judge-m"
        goldens_agree(screen)
        table = screen.query_one(DataTable)
        assert [str(table.get_row_at(i)[1]) for i in range(2)] == ["✓ pass · 0.90", "✗ fail · 0.40"]
        assert "judge (openai/judge-m): the judge scored the answer below" in screen.query_one(CodeView).text
        seen = notices(app)
        await pilot.press("a")  # a $judge golden is a rule, not an answer: refused, and said
        await until(lambda: any("Not accepted" in n for n in seen), pilot)
        assert any("has a $judge rubric" in n for n in seen) and not screen.accepting.can_undo()
        goldens_agree(screen)


async def test_goldens_accept_writes_the_answer_and_u_puts_it_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    root = isolate(monkeypatch, tmp_path)
    on_openai(monkeypatch, tmp_path, llm_server)
    module = eval_module(root, n=2)
    expected = module / "tests" / "case-001.expected.json"
    before = expected.read_bytes()
    llm_server.respond_with(responder(wrong=frozenset({1})))
    app = make_app(root, tmp_path, config=load_config())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_goldens(app, pilot, module)
        assert (case := screen.state.shown_case()) is not None and case.name == "case-001"
        assert screen.offers("accept") and not screen.offers("undo")
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        assert '+    "label": "feature"' in screen.query_one(CodeView).text  # the diff, shown first
        await pilot.press("enter")  # Accept
        await until(lambda: screen.accepting.can_undo(), pilot)
        assert json.loads(expected.read_text())["data"]["label"] == "feature"
        assert not screen.offers("accept")
        goldens_agree(screen)
        await pilot.press("u")
        await until(lambda: not screen.accepting.can_undo(), pilot)
        assert expected.read_bytes() == before
        goldens_agree(screen)


async def test_the_eval_matrix_shows_scores_and_accepts_a_failing_cell(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    root = isolate(monkeypatch, tmp_path)
    on_openai(monkeypatch, tmp_path, llm_server)
    module = judged_module(root, n=1)
    plain = eval_module(root / "other", n=1, name="plain")
    llm_server.respond_with(routed(scores({0: 0.8}), responder()))
    app = make_app(root, tmp_path, config=load_config())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.push_screen(EvalScreen(module, app.config))
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.state.final, pilot)
        screen = screen_of(app, EvalScreen)
        target = screen.state.targets[0]
        assert screen.state.label("case-000", target) == "✓ pass · 0.80"
        assert str(screen.query_one(DataTable).get_cell("case-000", target)) == "✓ pass · 0.80"
        screen.query_one(DataTable).focus()
        await pilot.press("enter")
        await until(lambda: screen.state.selected is not None, pilot)
        assert (
            "judge (openai/judge-m): score 0.80 ≥ 0.70 · verdict pass" in screen.query_one("#eval-diff", CodeView).text
        )
        assert not screen.offers("accept")  # a passing cell: nothing to accept
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EvalScreen), pilot)
        llm_server.respond_with(responder(wrong=frozenset({0})))
        app.push_screen(EvalScreen(plain, app.config))
        await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.state.final, pilot)
        screen = screen_of(app, EvalScreen)
        screen.query_one(DataTable).focus()
        await pilot.press("enter")
        await until(lambda: screen.offers("accept"), pilot)
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.press("enter")
        await until(lambda: screen.state.accepting.can_undo(), pilot)
        target = screen.state.targets[0]
        label = str(screen.query_one(DataTable).get_cell("case-000", target))
        assert label == screen.state.label("case-000", target) == "✗ mismatch · accepted"
        written = json.loads((plain / "tests" / "case-000.expected.json").read_text())
        assert written["data"]["label"] == "feature"
