"""The run screen: prefilled input, live validation, ctrl+r from the editor, streaming panes, cancel, tabs, providers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llmserver import disconnect_after, silence_after_headers, text
from textual.widgets import Select, Static, TabbedContent, TextArea
from tuikit import copy_modules, ended, isolate, make_app, open_run, press_run_again, until

from cogtui.core.history.store import History
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.json_tree import JsonTree
from cogtui.tui.widgets.meta_card import MetaCard
from cogtui.tui.widgets.run_pane import RunPane
from cogtui.tui.widgets.stream_text import StreamText


def _panes(screen: RunScreen) -> list[RunPane]:
    return list(screen.query(RunPane))


def _static(pane: RunPane, cls: str) -> str:
    return str(pane.query_one(cls, Static).render())


async def test_prefilled_from_first_golden_and_picker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        editor = screen.query_one("#run-input", TextArea)
        case1 = json.loads((module / "tests" / "case1.input.json").read_text())
        case2 = json.loads((module / "tests" / "case2.input.json").read_text())
        assert json.loads(editor.text) == case1
        screen.query_one("#run-golden", Select).value = 1
        await pilot.pause()
        assert json.loads(editor.text) == case2
        # live validation: drop the required field
        editor.text = json.dumps({"description": "no diff"})
        await until(lambda: "E1002" in str(screen.query_one("#run-input-status", Static).render()), pilot)
        editor.text = "{ not json"
        await until(lambda: "not JSON" in str(screen.query_one("#run-input-status", Static).render()), pilot)


async def test_the_input_is_checked_against_the_schema_as_it_is_on_disk_now(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A schema changed while the run screen is open (the watcher validates the module again) judges the input
    from then on, without a run or reopening the screen."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        status = screen.query_one("#run-input-status", Static)
        screen.query_one("#run-input", TextArea).text = json.dumps({"diff": "--- a\n+++ b\n"})
        await until(lambda: "✓" in str(status.render()), pilot)
        schema_file = module / "schema.json"
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        schema["input"]["required"] = ["diff", "language"]
        schema_file.write_text(json.dumps(schema, indent=2), encoding="utf-8")
        app.validate_all()  # what the watcher does when a file of the module changes
        await until(lambda: "E1002" in str(status.render()) and "language" in str(status.render()), pilot)


async def test_ctrl_r_from_the_input_editor_streams_a_replay_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        assert isinstance(app.focused, TextArea)
        await pilot.press("ctrl+r")
        await until(lambda: _panes(screen) and _panes(screen)[0].result is not None, pilot)
        pane = _panes(screen)[0]
        expected = json.loads((module / "tests" / "case1.expected.json").read_text())
        assert pane.query_one(StreamText).text == expected["data"]["rationale"]
        assert pane.query_one(MetaCard).meta["risk"] == expected["meta"]["risk"]
        assert "envelope valid" in _static(pane, ".run-outcome")
        assert "first chunk" in _static(pane, ".run-usage")
        tree = pane.query_one(JsonTree)
        assert set(tree.fields) >= {"verdict", "issues", "rationale"}
        # a second run opens a second tab, to compare
        await press_run_again(pilot)
        await until(lambda: len(_panes(screen)) == 2 and _panes(screen)[1].result is not None, pilot)
        assert screen.query_one("#runs", TabbedContent).active == "run-tab-2"
        await until(lambda: _history_count(tmp_path) == 2, pilot)


def _history_count(tmp_path: Path) -> int:
    db = tmp_path / "data" / "history.sqlite3"
    if not db.exists():
        return 0
    with History(db) as history:
        return history.count("code-reviewer")


async def test_escape_cancels_and_records_interrupted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.05")
    (module,) = copy_modules(root, "incident-narrator")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        await pilot.press("ctrl+r")
        await until(lambda: _panes(screen) and _panes(screen)[0].assembler.chunks > 3, pilot)
        await pilot.press("escape")
        await until(lambda: _panes(screen)[0].result is not None, pilot)
        pane = _panes(screen)[0]
        assert ended(pane).interrupted and ended(pane).envelope["error"]["code"] == "E2010"
        assert isinstance(app.screen, RunScreen)  # escape cancelled; it did not close the screen
        db = tmp_path / "data" / "history.sqlite3"
        await until(lambda: db.exists() and History(db).runs("incident-narrator")[:1] != [], pilot)
        with History(db) as history:
            assert history.runs("incident-narrator")[0].outcome == "interrupted"
        await pilot.press("escape")  # nothing runs now: back to the browser
        await until(lambda: not isinstance(app.screen, RunScreen), pilot)


async def test_subagent_calls_show_as_nested_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    module, _ = copy_modules(root, "release-notes", "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        await pilot.press("ctrl+r")
        await until(lambda: _panes(screen) and _panes(screen)[0].result is not None, pilot)
        pane = _panes(screen)[0]
        calls = pane.query_one(".run-calls")
        assert not calls.has_class("-hidden")
        labels = [n.label.plain for n in pane.calls.values()]
        assert labels and labels[0].startswith("@call:code-reviewer")


async def test_anthropic_disconnect_shows_partial_data(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", llm_server.base_url)
    expected = json.loads((module / "tests" / "case1.expected.json").read_text())
    body = json.dumps({"data": {"rationale": expected["data"]["rationale"], "verdict": "comment"}})
    llm_server.enqueue(disconnect_after(body, 120, chunk_size=10))
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        screen.query_one("#run-provider", Select).value = "anthropic"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await until(lambda: _panes(screen) and _panes(screen)[0].result is not None, pilot)
        pane = _panes(screen)[0]
        env = ended(pane).envelope
        assert env["error"]["code"] == "E2010"
        assert env["partial_data"]["rationale"] and expected["data"]["rationale"].startswith(
            env["partial_data"]["rationale"]
        )
        assert "E2010" in _static(pane, ".run-outcome")
        assert pane.query_one(JsonTree).fields  # the partial data is shown


async def test_cancel_closes_the_provider_request(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, llm_server) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_base_url)
    llm_server.enqueue(silence_after_headers(30), text("{}"))
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, module)
        screen.query_one("#run-provider", Select).value = "openai"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await until(lambda: len(llm_server.requests) == 1, pilot)
        await pilot.press("escape")
        await until(lambda: _panes(screen)[0].result is not None, pilot)
        assert ended(_panes(screen)[0]).interrupted
        assert len(llm_server.requests) == 1  # cancelled, not retried


async def test_a_long_input_verdict_ends_in_an_ellipsis_at_80_columns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(app, pilot, module)
        status = screen.query_one("#run-input-status", Static)
        screen.query_one("#run-input", TextArea).text = "{ not json"
        await until(lambda: "not JSON" in str(status.render()), pilot)
        await pilot.pause()
        shown = "".join(segment.text for segment in status.render_line(0)).rstrip()
        assert shown.endswith("…") and "not JSON" in shown, shown
