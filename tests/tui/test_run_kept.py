"""Issue 12, nothing typed is lost: the run screen keeps each module's input, provider, model and $ARGUMENTS until
cogtui quits (escape and re-open brings them back), and ctrl+g saves the active tab's run as a golden test pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea
from tuikit import copy_modules, ended, isolate, make_app, notices, screen_of, until

from cogtui.core.module.loader import load_module
from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.run.golden import GoldenNameModal
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.run_pane import RunPane


async def open_run(app: CogtuiApp, pilot: Pilot[None], path: Path) -> RunScreen:
    await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
    nav.run_module(app, path)
    await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
    return screen_of(app, RunScreen)


async def test_escape_and_reopen_keeps_input_provider_model_and_args_per_module(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    reviewer, ideas = copy_modules(root, "code-reviewer", "product-ideas")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(app, pilot, reviewer)
        editor = screen.query_one("#run-input", TextArea)
        editor.text = ""
        await pilot.press(*'{"diff": "+ typed by hand"}')
        screen.query_one("#run-provider", Select).value = "openai"
        screen.query_one("#run-model", Input).value = "my-model"
        screen.query_one("#run-args", Input).focus()
        await pilot.press(*"--be-brief")
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)

        other = await open_run(app, pilot, ideas)  # another module starts from its own first golden
        assert "typed by hand" not in other.query_one("#run-input", TextArea).text
        assert other.query_one("#run-model", Input).value == ""
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)

        again = await open_run(app, pilot, reviewer)
        assert json.loads(again.query_one("#run-input", TextArea).text) == {"diff": "+ typed by hand"}
        assert again.query_one("#run-provider", Select).value == "openai"
        assert again.query_one("#run-model", Input).value == "my-model"
        assert again.query_one("#run-args", Input).value == "--be-brief"


async def test_ctrl_g_saves_the_run_as_a_golden_pair(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notices(app)
        screen = await open_run(app, pilot, module)
        await pilot.press("ctrl+g")  # nothing has run yet
        await until(lambda: any("No finished run in this tab" in n for n in seen), pilot)
        assert not (module / "tests" / "saved-1.input.json").exists()

        given = {"diff": "+ a line to review"}
        screen.query_one("#run-input", TextArea).text = json.dumps(given)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        envelope = ended(screen.query_one(RunPane)).envelope
        screen.query_one("#run-input", TextArea).text = '{"diff": "typed after the run"}'
        await pilot.press("ctrl+g")  # asks for the name: the one proposed is kept
        await until(lambda: isinstance(app.screen, GoldenNameModal), pilot)
        await pilot.press("enter")
        await until(lambda: any(n.startswith("Saved golden test saved-1") for n in seen), pilot)
        assert json.loads((module / "tests" / "saved-1.input.json").read_text(encoding="utf-8")) == given
        expected = json.loads((module / "tests" / "saved-1.expected.json").read_text(encoding="utf-8"))
        assert expected["data"] == envelope["data"] and "trace_id" not in expected["meta"]
        assert "listed in module.yaml's tests" in next(n for n in seen if n.startswith("Saved golden"))
        assert "saved-1" in [t.name for t in load_module(module).tests if t.declared]
        # The browser's report is refreshed: the module's goldens now include the new pair.
        await until(
            lambda: (
                (report := app.store.report(module)) is not None
                and report.module is not None
                and "saved-1" in [t.name for t in report.module.tests]
            ),
            pilot,
        )
        # And the run screen offers it as an input, leaving the text being edited alone.
        await until(lambda: "golden saved-1" in [c.label for c in screen.choices], pilot)
        editor = screen.query_one("#run-input", TextArea)
        assert json.loads(editor.text) == {"diff": "typed after the run"}
        screen.query_one("#run-golden", Select).value = [c.label for c in screen.choices].index("golden saved-1")
        await until(lambda: json.loads(editor.text) == given, pilot)  # chosen from the picker: its input
