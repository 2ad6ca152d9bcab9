"""Issue 12: creating a module that shadows another one (or is shadowed by it) is not silent: the form says so
as the name is typed, and Create asks first; cancelling creates nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static
from tuikit import click, copy_modules, isolate, make_app, until

from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.screens.new_module.screen import NewModuleModal
from cogtui.tui.widgets.diagnostics_panel import DiagnosticsPanel


async def open_form(app: CogtuiApp, pilot: Pilot[None], key: str | None = None) -> NewModuleModal:
    """The new-module form over the browser, opened by `key` (as a user does) or through navigation."""
    await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
    if key is not None:
        await pilot.press(key)
    else:
        nav.new_module(app)
    await until(lambda: isinstance(app.screen, NewModuleModal) and bool(app.screen.query("#create")), pilot)
    assert isinstance(app.screen, NewModuleModal)
    return app.screen


async def test_a_new_module_that_would_be_shadowed_warns_and_asks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)  # the --path root: first on the search path
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    user_root = tmp_path / "home" / ".cognitive" / "modules"
    async with app.run_test(size=(100, 30)) as pilot:
        form = await open_form(app, pilot)
        form.query_one("#root", Select).value = str(user_root)
        form.query_one("#name", Input).focus()
        await pilot.press(*"code", "minus", *"reviewer")
        warning = form.query_one("#shadow", Static)
        await until(lambda: "comes first on the search path" in str(warning.render()), pilot)
        assert str(root / "code-reviewer") in str(warning.render())

        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await click(pilot, "#cancel")
        await until(lambda: app.screen is form, pilot)
        assert not (user_root / "code-reviewer").exists()

        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await click(pilot, "#confirm")
        await until(lambda: (user_root / "code-reviewer" / "module.yaml").is_file(), pilot)
        # Created, the new module opens in the editor (as any new module does): wait until it is validated.
        await until(
            lambda: (
                isinstance(app.screen, EditorScreen)
                and any(p.border_title != "Problems" for p in app.screen.query(DiagnosticsPanel))
            ),
            pilot,
        )


async def test_a_fresh_name_creates_without_asking(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        nav.new_module(app)
        await until(lambda: isinstance(app.screen, NewModuleModal) and bool(app.screen.query("#create")), pilot)
        app.screen.query_one("#name", Input).value = "ticket-triage"
        await pilot.pause()
        assert str(app.screen.query_one("#shadow", Static).render()) == ""
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, EditorScreen), pilot)  # no confirmation on the way
        assert (root / "ticket-triage" / "module.yaml").is_file()
        await until(lambda: any(p.border_title != "Problems" for p in app.screen.query(DiagnosticsPanel)), pilot)


async def test_a_name_discovery_skips_is_refused_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`triage.bak` or `backups` would be created and never found (discovery skips backups): the form says why
    as the name is typed, and enter creates nothing."""
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        form = await open_form(app, pilot, "n")
        problem = form.query_one("#problem", Static)
        for name, why in (("triage.bak", "'.bak' are backups or editor leftovers"), ("backups", "named 'backups'")):
            form.query_one("#name", Input).value = ""
            await pilot.press(*name)
            await until(
                lambda why=why: why in str(problem.render()) and "discovery skips it" in str(problem.render()), pilot
            )
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is form and not (root / name).exists()
        assert sorted(p.name for p in root.iterdir()) == ["code-reviewer"]


async def test_the_buttons_stay_on_screen_at_80x24_with_a_long_problem(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A three-line reason under the fields must not push Create and Cancel out of the dialog."""
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot, "n")
        await pilot.press(*"triage.bak")
        problem = form.query_one("#problem", Static)
        await until(lambda: "discovery skips it" in str(problem.render()), pilot)
        await pilot.pause()
        dialog = form.query_one("#new-module").content_region
        for button in ("#create", "#cancel"):
            region = form.query_one(button).region
            assert region.height == 3 and dialog.contains_region(region), (button, region, dialog)
        assert dialog.contains_region(problem.region) and problem.region.height >= 3
