"""ctrl+g on the run screen, pressed fast or on a run that did not finish (QA, 2026-11-26)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_run_kept import open_run
from tuikit import copy_modules, isolate, make_app, notices, until

from cogtui.core.module.loader import load_module
from cogtui.tui.widgets.run_pane import RunPane


async def test_saves_pressed_fast_each_get_their_own_name_and_manifest_entry(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "product-ideas")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notices(app)
        screen = await open_run(app, pilot, module)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        for _ in range(3):  # as three key presses in one burst: no pause between them
            screen.action_save_golden()
        await until(lambda: sum(n.startswith("Saved golden test") for n in seen) == 3, pilot)
        names = sorted(n.split(":")[0] for n in seen if n.startswith("Saved golden test"))
        assert names == ["Saved golden test saved-1", "Saved golden test saved-2", "Saved golden test saved-3"]
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
