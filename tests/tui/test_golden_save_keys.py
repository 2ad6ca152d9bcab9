"""ctrl+g on the run screen: saves at once, a run that did not finish (QA, 2026-11-26), and saving on purpose (issue 30,
GOLD-8): the name asked, a replay answer said to be one, an input whose golden expects this answer refused."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_run_kept import open_run
from textual.widgets import Button, Input, Static, TextArea
from tuikit import MODULES, copy_modules, isolate, make_app, notices, screen_of, until

from cogtui.core.module.loader import load_module
from cogtui.tui.screens.run.golden import GoldenNameModal, save
from cogtui.tui.widgets.run_pane import RunPane


def test_saves_at_once_each_get_their_own_name_and_manifest_entry(tmp_path: Path) -> None:
    """Saves run one at a time (GOLD-7): three at once, from three threads, as three dialogs answered in a burst
    would start them, each take a free name and add their own entry to module.yaml."""
    (module,) = copy_modules(tmp_path, "product-ideas")
    envelope = {"ok": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "x"}, "data": {"rationale": "r"}}
    with ThreadPoolExecutor(3) as pool:
        saves = list(pool.map(lambda n: save(module, {"n": n}, envelope), range(3)))
    assert sorted(s.saved.name for s in saves if s.saved is not None) == ["saved-1", "saved-2", "saved-3"]
    declared = [t.name for t in load_module(module).tests if t.declared]
    assert {"saved-1", "saved-2", "saved-3"} <= set(declared)


async def test_a_cancelled_run_is_not_saved_as_a_golden(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0.5")  # slow enough to cancel mid-stream
    (module,) = copy_modules(root, "code-reviewer")
    manifest = (module / "module.yaml").read_bytes()
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notices(app)
        screen = await open_run(app, pilot, module)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).running, pilot)
        await pilot.press("escape")  # cancels the run, stays on the screen
        await until(lambda: screen.query_one(RunPane).result is not None, pilot)
        await pilot.press("ctrl+g")
        await until(lambda: any("this run was stopped before it finished" in n for n in seen), pilot)
    assert not (module / "tests" / "saved-1.expected.json").exists()
    assert (module / "module.yaml").read_bytes() == manifest


async def test_ctrl_g_asks_the_name_and_says_the_answer_came_from_replay(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """It saved a replay answer as `tests/saved-1.*` with no name asked and no word that it was a copy."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = notices(app)
        screen = await open_run(app, pilot, module)
        screen.query_one("#run-input", TextArea).text = json.dumps({"diff": "+ a new case"})
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        await pilot.press("ctrl+g")
        await until(lambda: isinstance(app.screen, GoldenNameModal), pilot)
        dialog = screen_of(app, GoldenNameModal)
        name = dialog.query_one("#golden-name-input", Input)
        assert name.value == "saved-1"  # proposed
        notes = str(dialog.query_one("#golden-name-notes", Static).render())
        assert "came from the replay provider, not a model: a minimal instance of the data schema" in notes
        name.value = "case1"
        await until(lambda: dialog.query_one("#save", Button).disabled, pilot)
        assert "case1 is a test case already" in str(dialog.query_one("#golden-name-problem", Static).render())
        name.value = "a-new-case"
        await until(lambda: not dialog.query_one("#save", Button).disabled, pilot)
        await pilot.press("enter")
        await until(lambda: any(n.startswith("Saved golden test a-new-case") for n in seen), pilot)
    assert (module / "tests" / "a-new-case.expected.json").is_file()
    assert not (module / "tests" / "saved-1.input.json").exists()


async def test_ctrl_g_refuses_an_input_whose_golden_expects_this_very_answer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A replay run of a golden's own input answers with that golden's expected envelope: nothing new to save."""
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    manifest = (module / "module.yaml").read_bytes()
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notices(app)
        screen = await open_run(app, pilot, module)  # its input: golden case1's
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        await pilot.press("ctrl+g")
        await until(
            lambda: any("golden case1 already has this input and expects this answer" in n for n in seen), pilot
        )
        assert not isinstance(app.screen, GoldenNameModal)
    assert sorted(p.name for p in (module / "tests").iterdir()) == sorted(
        p.name for p in (MODULES / "code-reviewer" / "tests").iterdir()
    )
    assert (module / "module.yaml").read_bytes() == manifest
