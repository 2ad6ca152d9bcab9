"""Issue 12: keymap entries with unknown ids or clashing keys are reported when cogtui starts (a notification
each, located in config.yaml), not silently ignored; a clean keymap says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from tuikit import copy_modules, isolate, make_app, notices, until

from cogtui.core.settings.config import load_config


async def test_a_bad_keymap_is_reported_at_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    path = tmp_path / "config.yaml"
    path.write_text("keymap:\n  browser.run: i\n  run.rnu: ctrl+r\n  browser.filter: f\n", encoding="utf-8")
    app = make_app(root, tmp_path, config=load_config(path))
    seen = notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: sum("config.yaml keymap" in n for n in seen) == 2, pilot)
        keymap = [n for n in seen if n.startswith("config.yaml keymap")]
        assert f"config.yaml keymap: {path}:2:3: keymap.browser.run: 'i' is also the key of browser.insights" in (
            keymap[0] + keymap[1]
        )
        assert any(
            f"{path}:3:3: keymap.run.rnu: no key binding has this id; did you mean 'run.run'?" in n for n in keymap
        )
        await pilot.press("f")  # the valid entry still applies
        await until(lambda: app.screen.query("#filter") and app.screen.query_one("#filter").has_focus, pilot)


async def test_a_clean_keymap_says_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    path = tmp_path / "config.yaml"
    path.write_text("keymap:\n  browser.run: x\n", encoding="utf-8")
    app = make_app(root, tmp_path, config=load_config(path))
    seen = notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.report_keymap_problems()  # whether or not the start's own report ran yet
        await pilot.pause()
        assert not any("keymap" in n for n in seen)
