"""The migration preview plans again by itself when a module's files change under its plan (MIG-9): `a` on a stale
plan writes nothing and brings a new plan (said as such, never "ready" next to "last attempt failed"), and a change
the watcher reports does the same before `a` is pressed. The promotion preview (insights `p`) is in
tests/tui/test_insights.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from tuikit import copy_modules, isolate, make_app, notices, screen_of, until, validated

from cogtui.core.authoring.migration.preview_state import REPLANNED
from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ConfirmModal

NAME = "legacy-summarizer"


def shown(screen: MigrationScreen) -> tuple[str, str]:
    """The status line and the module's summary page, as drawn."""
    status = str(screen.query_one("#status", Static).render())
    return status, str(screen.query_one("#migrate-summary-text", Static).render())


async def preview(app: CogtuiApp, pilot: Pilot[None], module: Path) -> MigrationScreen:
    await pilot.pause()
    navigation.migrate(app, [module])
    await until(lambda: isinstance(app.screen, MigrationScreen) and app.screen.slots[0].plan is not None, pilot)
    screen = screen_of(app, MigrationScreen)
    await pilot.pause()
    assert "ready: a applies it" in shown(screen)[1]
    return screen


async def apply(app: CogtuiApp, pilot: Pilot[None]) -> None:
    await pilot.press("a")
    await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
    await pilot.press("enter")


def edit_prompt(module: Path) -> bytes:
    prompt = module / "prompt.txt"
    prompt.write_bytes(prompt.read_bytes() + b"\nAlso name the audience.\n")
    return prompt.read_bytes()


async def test_a_change_under_the_plan_plans_again_whether_the_watcher_or_a_finds_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, NAME)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        said = notices(app)
        screen = await preview(app, pilot, module)
        slot = screen.slots[0]
        first = slot.plan
        app.validate_all()  # nothing changed: the plan stays
        await validated(app, pilot)
        assert slot.plan is first and slot.replanned is None

        edit_prompt(module)
        app.validate_all()  # what the watcher does after a change on disk: the module is validated again
        await until(lambda: slot.plan is not first and slot.busy is None, pilot)
        await pilot.pause()
        assert slot.replanned == REPLANNED and slot.can_apply and REPLANNED in shown(screen)[1]
        assert any(f"{NAME}: the files changed on disk: planned again" in n for n in said), said

        # Changed again, unseen (not validated): `a` finds it, writes nothing, and the plan is made again.
        second = slot.plan
        edited = edit_prompt(module)
        await apply(app, pilot)
        await until(lambda: slot.plan is not second and slot.busy is None, pilot)
        await pilot.pause()
        assert (module / "prompt.txt").read_bytes() == edited  # nothing was written
        assert slot.replanned == REPLANNED and slot.failure is None and slot.applied is None
        status, summary = shown(screen)
        assert status.startswith(f"{NAME}: a applies") and "failed" not in status
        assert REPLANNED in summary and "last attempt failed" not in summary and "ready: a applies it" in summary
        assert any("the files changed on disk: planned again" in n and "Nothing was written" in n for n in said), said
        assert slot.live is not None
        assert "Also name the audience." in "".join(f.new_text or "" for f in slot.live.files if f.path == "prompt.md")
        await apply(app, pilot)  # the new plan applies
        await until(lambda: slot.applied is not None and slot.busy is None, pilot)
        assert "Also name the audience." in (module / "prompt.md").read_text()
        await pilot.pause()
        assert REPLANNED not in shown(screen)[1]


async def test_the_staleness_check_reads_the_files_off_the_ui_thread(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """After the watcher validated a changed module, whether its plan still matches its files is checked by reading
    them (every file of the plan): in a worker, not on the UI thread (TUI-4). A plan found stale is planned again."""
    import threading

    import cogtui.core.authoring.migration.preview_state as preview_state
    import cogtui.tui.screens.migrate.work as migrate_work
    from cogtui.core.authoring.migration import staleness as real

    on_ui_thread: list[bool] = []

    def staleness(plan: Any) -> str | None:
        on_ui_thread.append(threading.current_thread() is threading.main_thread())
        return real(plan)

    for where in (migrate_work, preview_state):  # wherever the screen's path reaches it
        monkeypatch.setattr(where, "staleness", staleness)
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, NAME)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await preview(app, pilot, module)
        slot = screen.slots[0]
        first = slot.plan
        edit_prompt(module)
        app.validate_all()
        await until(lambda: slot.plan is not first and slot.busy is None, pilot)
        assert on_ui_thread and not any(on_ui_thread), on_ui_thread
        assert slot.replanned == REPLANNED and slot.can_apply
