"""The migration preview renders one state (core.authoring.migration.preview_state; issue 12, item 2): after every
action the head line, status line, progress bar, the module and file lists and the footer's keys agree with it;
an applied module is shown as done, a failed apply as failed until the next attempt."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, ProgressBar, Static
from tuikit import copy_modules, isolate, make_app, screen_of, until

from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.widgets.diff_view import DiffView
from cogtui.tui.widgets.key_footer import KeyFooter


def check_agrees(screen: MigrationScreen) -> None:
    state = screen.state
    assert str(screen.query_one("#migrate-head", Static).render()) == state.heading()
    split = screen.query_one(DiffView).split
    assert str(screen.query_one("#status", Static).render()) == state.status_line(split)
    progress = screen.query_one(ProgressBar)
    assert progress.has_class("-hidden") == (state.progress() is None)
    if state.progress() is not None:
        assert (progress.progress, progress.total) == state.progress()
    offered = {active.binding.action for active in screen.active_bindings.values()}
    for action in ("apply", "undo", "switch_target"):
        assert (action in offered) == state.can(action), action
    # The footer shows apply and undo only when they can act (issue 30: Apply/Undo with nothing to apply).
    shown = {item.description for item in screen.query_one(KeyFooter).items}
    assert ("Apply" in shown) == state.offers("apply") and ("Undo" in shown) == state.offers("undo")
    modules = screen.query_one("#migrate-modules", OptionList)
    if state.multi:
        chosen = modules.get_option_at_index(modules.highlighted or 0).id
        assert chosen == ("overview" if state.current is None else f"slot-{state.current}")
    files = screen.query_one("#migrate-files", OptionList)
    if state.slot is not None and state.slot.plan is not None:
        assert files.highlighted == state.file_index


async def open_preview(app: CogtuiApp, pilot: Pilot[None], paths: list[Path]) -> MigrationScreen:
    await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
    navigation.migrate(app, paths)
    await until(lambda: isinstance(app.screen, MigrationScreen) and bool(app.screen.query("#migrate-head")), pilot)
    screen = screen_of(app, MigrationScreen)
    await pilot.pause()
    check_agrees(screen)  # while planning (or just planned): the lines count what is planned
    await until(lambda: all(s.plan is not None for s in screen.slots), pilot)
    await pilot.pause()
    return screen


async def test_every_action_draws_the_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    paths = copy_modules(root, "api-naming-reviewer", "commit-message-writer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_preview(app, pilot, paths)
        check_agrees(screen)
        for key in ("J", "j", "j", "k", "J", "j", "K", "s", "k", "ctrl+n", "J"):
            await pilot.press(key)
            check_agrees(screen)
        assert screen.state.slot is not None and screen.state.slot.name == "commit-message-writer"
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.press("enter")
        slot = screen.state.slot
        await until(lambda: slot.applied is not None and slot.busy is None, pilot)
        await pilot.pause()
        check_agrees(screen)
        assert "commit-message-writer: applied (u undoes it)" in str(screen.query_one("#status", Static).render())
        await pilot.press("u")
        await until(lambda: slot.undone is not None and slot.busy is None and slot.plan is not None, pilot)
        await pilot.pause()
        check_agrees(screen)
        assert "commit-message-writer: a applies" in str(screen.query_one("#status", Static).render())
        await pilot.press("t")  # another target: planned again, the state starts over
        await until(lambda: all(s.plan is not None and s.plan.target == "v2.5" for s in screen.slots), pilot)
        await pilot.pause()
        check_agrees(screen)
        assert screen.state.heading().startswith("Migrate to v2.5")


async def test_a_failed_apply_is_shown_as_failed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "commit-message-writer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_preview(app, pilot, [module])
        check_agrees(screen)
        # A file in the way of the tests/ folder the plan creates: the write fails and is rolled back. (A file the
        # plan changes, edited after the plan was made, is planned again instead: tests/tui/test_migrate_replan.py.)
        (module / "tests").write_text("in the way")
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.press("enter")
        slot = screen.state.slots[0]
        await until(lambda: slot.failure is not None and slot.busy is None, pilot)
        await pilot.pause()
        check_agrees(screen)
        status = str(screen.query_one("#status", Static).render())
        assert status.startswith("commit-message-writer: failed") and slot.applied is None
        summary = str(screen.query_one("#migrate-summary-text", Static).render())
        assert "✗ last attempt failed" in summary and "every change was rolled back" in summary
