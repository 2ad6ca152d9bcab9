"""`t` in the migration preview: the TUI offers the target version the CLI's `--to` offers (v2.2 or v2.5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_migrate import summary_text, text_of
from textual.widgets import OptionList
from tuikit import copy_modules, isolate, make_app, notices, screen_of, shown_slot, until

from cogtui.core.module.loader import load_module
from cogtui.tui import navigation
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.migrate.target import next_target
from cogtui.tui.screens.modals import ConfirmModal


def test_next_target_cycles_through_the_planners_versions() -> None:
    assert next_target("2.2") == "2.5" and next_target("v2.5") == "2.2" and next_target("V2.2") == "2.5"


async def test_t_switches_the_target_and_plans_every_module_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    legacy, current = copy_modules(root, "legacy-summarizer", "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = notices(app)
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        navigation.migrate(app, [legacy, current])
        await until(lambda: isinstance(app.screen, MigrationScreen), pilot)
        screen = screen_of(app, MigrationScreen)
        await until(lambda: all(s.plan is not None for s in screen.slots), pilot)
        assert "to v2.2 (t)" in text_of(screen, "#status")
        assert "1 to migrate · 1 already current" in summary_text(screen)  # code-reviewer is v2.2 already

        await pilot.press("t")
        await until(lambda: all(s.plan is not None and s.plan.target == "v2.5" for s in screen.slots), pilot)
        await pilot.pause()
        assert "to v2.5 (t)" in text_of(screen, "#status")
        assert text_of(screen, "#migrate-head").startswith("Migrate to v2.5")
        modules = screen.query_one("#migrate-modules", OptionList)
        listed = [str(modules.get_option_at_index(i).prompt)[2:] for i in range(1, modules.option_count)]
        assert listed == ["legacy-summarizer", "code-reviewer"]  # v2.2 → v2.5 is a migration now

        await pilot.press("J", "J")  # code-reviewer: apply its v2.5 plan
        assert shown_slot(screen).name == "code-reviewer"
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.press("enter")
        await until(lambda: shown_slot(screen).applied is not None, pilot)
        assert load_module(current).format.value == "v2.5"

        await pilot.press("t")  # an applied migration belongs to its target: undo it first
        await pilot.pause()
        assert any("Undo (u) before planning another target" in n for n in seen), seen
        assert "to v2.5 (t)" in text_of(screen, "#status") and shown_slot(screen).applied is not None
