"""`cogtui review PLAN.json`: a saved plan, paged through read-only; apply and undo refused; nothing written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static
from tuikit import copy_modules, isolate, make_app, screen_of, shown_slot, until

from cogtui.core.authoring.migration import plan_migration
from cogtui.core.module.loader import load_module
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.help import HelpScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.widgets.diff_view import DiffView
from cogtui.tui.widgets.key_footer import KeyFooter


def tree_bytes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def record_notices(app: CogtuiApp) -> list[str]:
    seen: list[str] = []
    notify = app.notify

    def record(message: str, *args: Any, **kwargs: Any) -> None:
        seen.append(message)
        notify(message, *args, **kwargs)

    setattr(app, "notify", record)  # noqa: B010  # on this app only (mypy refuses an assignment to a method)
    return seen


def save_plans(tmp_path: Path, root: Path, names: tuple[str, ...]) -> Path:
    """What `cogn migrate --all --dry-run --json` writes (tests/test_migration_review.py checks the real CLI)."""
    plans = [plan_migration(load_module(root / name)).to_json() | {"result": "would migrate"} for name in names]
    path = tmp_path / "PLAN.json"
    summary = {"dry_run": True, "to": "v2.2", "migrated": len(plans), "already_current": 0, "failed": 0}
    document = {"format": 1, "command": "migrate", "modules": plans, "summary": summary}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


async def test_review_pages_through_every_module_and_refuses_to_apply(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    names = ("api-naming-reviewer", "code-reviewer", "commit-message-writer")
    copy_modules(root, *names)
    plan_file = save_plans(tmp_path, root, names)
    before = tree_bytes(root)
    app = make_app(root, tmp_path, review=plan_file)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = record_notices(app)
        await until(lambda: isinstance(app.screen, MigrationScreen) and bool(app.screen.slots), pilot)
        screen = screen_of(app, MigrationScreen)
        await pilot.pause()
        assert len(app.screen_stack) == 2  # the default screen and the review: nothing else
        assert "Review PLAN.json (read-only)" in str(screen.query_one("#migrate-head", Static).render())
        modules = screen.query_one("#migrate-modules", OptionList)
        assert modules.option_count == 3  # the overview, then the two modules to migrate
        assert "code-reviewer" in str(screen.query_one("#migrate-summary-text", Static).render())

        await pilot.press("J")
        assert shown_slot(screen).name == "api-naming-reviewer"
        diff = screen.query_one(DiffView)
        pages = []
        for _ in range(3 + 1 + 8):  # every file of both modules, and the second module's summary
            await pilot.press("j")
            pages.append((shown_slot(screen).name, screen.file_index))
            if screen.file_index:
                assert diff.line_count > 0
        assert pages[2] == ("api-naming-reviewer", 3) and pages[3] == ("commit-message-writer", 0)
        assert pages[-1] == ("commit-message-writer", 8)

        # Apply and undo are not offered on a saved plan: neither shown in the footer or help, nor bound.
        offered = {active.binding.action for active in screen.active_bindings.values()}
        assert "next_file" in offered and not offered & {"apply", "undo"}
        footer = " ".join(item.description for item in screen.query_one(KeyFooter).items)
        assert "Side by side" in footer and "Apply" not in footer and "Undo" not in footer, footer
        assert "Quit" in footer and "Back" not in footer, footer  # escape ends `cogtui review`: it says so
        for key in ("a", "u"):
            await pilot.press(key)
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmModal)
        assert not any("applied" in n.lower() or "undone" in n.lower() for n in seen)
        await pilot.press("question_mark")
        await until(lambda: isinstance(app.screen, HelpScreen), pilot)
        help_text = str(app.screen.query_one("#help-body", Static).render())
        assert "migrate.next_file" in help_text and "migrate.apply" not in help_text and "migrate.undo" not in help_text
        await pilot.press("escape")
        await until(lambda: app.screen is screen, pilot)
        assert "read-only" in str(screen.query_one("#status", Static).render())
        assert tree_bytes(root) == before and not (tmp_path / "data" / "backups").exists()

        await pilot.press("escape")  # review is the only screen: escape quits
        await pilot.pause()
    assert app.return_code == 0


async def test_a_single_plan_opens_on_its_summary(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "legacy-summarizer")
    plan_file = save_plans(tmp_path, root, ("legacy-summarizer",))  # as `cogn migrate NAME --dry-run --json`
    app = make_app(root, tmp_path, review=plan_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, MigrationScreen) and bool(app.screen.slots), pilot)
        screen = screen_of(app, MigrationScreen)
        await pilot.pause()
        assert screen.query_one("#migrate-modules").has_class("-hidden")
        assert "legacy-summarizer  v0 → v2.2" in str(screen.query_one("#migrate-summary-text", Static).render())
        await pilot.press("j")
        assert screen.file_index == 1 and screen.query_one(DiffView).line_count > 0


async def test_a_bad_plan_file_is_explained_not_raised(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    plan_file = tmp_path / "PLAN.json"
    plan_file.write_text('{"plans": [{"module": "x"}]}', encoding="utf-8")
    app = make_app(root, tmp_path, review=plan_file)
    seen = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, MigrationScreen) and app.screen.state.problem is not None, pilot)
        text = str(app.screen.query_one("#migrate-summary-text", Static).render())
        assert "Cannot review this plan" in text and "plans[0].files: missing" in text
        assert any("plans[0].files" in n for n in seen)
        await pilot.press("j", "J", "a")  # nothing to page through, nothing to apply: no crash
        await pilot.pause()
