"""The migration preview: plan, page through files, switch layouts, apply, undo, refuse bad input; all modules."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static
from tuikit import copy_modules, isolate, make_app, notices, planned, until

from cogtui.core.authoring.migration.plan import severity_of
from cogtui.core.authoring.migration.preview_state import ModuleSlot
from cogtui.core.module.loader import load_module
from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ConfirmModal
from cogtui.tui.widgets.diff_view import DiffView
from cogtui.tui.widgets.key_footer import KeyFooter
from cogtui.tui.widgets.module_tree import ModuleTree


def tree_bytes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def text_of(screen: MigrationScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def summary_text(screen: MigrationScreen) -> str:
    notes = [str(s.render()) for s in screen.query(".migrate-note-text").results(Static)]
    return "\n".join([text_of(screen, "#migrate-summary-text"), *notes, text_of(screen, "#migrate-summary-tail")])


async def preview_shown(app: CogtuiApp, pilot: Pilot[None]) -> MigrationScreen:
    """Wait until the migration preview is the screen shown, and return it."""
    await until(lambda: isinstance(app.screen, MigrationScreen), pilot)
    screen = app.screen
    assert isinstance(screen, MigrationScreen)
    return screen


async def open_preview(app: CogtuiApp, pilot: Pilot[None], paths: list[Path]) -> MigrationScreen:
    await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
    navigation.migrate(app, paths)
    screen = await preview_shown(app, pilot)
    await until(lambda: all(s.plan is not None for s in screen.slots), pilot)
    await pilot.pause()
    return screen


def chosen(screen: MigrationScreen) -> ModuleSlot:
    """The module the preview shows (J/K chose it; not the overview)."""
    assert screen.state.slot is not None
    return screen.state.slot


async def test_m_previews_a_module_pages_files_and_switches_layout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "legacy-summarizer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        await pilot.press("slash", *"legacy", "enter")
        entry = app.screen.query_one(ModuleTree).cursor_entry
        assert entry is not None and entry.path == module
        await pilot.press("m")
        screen = await preview_shown(app, pilot)
        await until(lambda: screen.slots[0].plan is not None, pilot)
        await pilot.pause()
        plan = planned(screen.slots[0])
        summary = summary_text(screen)
        assert "legacy-summarizer  v0 → v2.2" in summary and "! to confirm · i for information" in summary
        first_note = screen.query(".migrate-note-text").results(Static).__next__()
        assert str(first_note.render()).startswith("tier: inferred")
        # Each note carries the core's severity as its marker: to confirm first (!), then information (i).
        markers = [str(m.render()) for m in screen.query(".migrate-note-marker").results(Static)]
        severities = [severity_of(n) for n in plan.notes_to_confirm_first()]
        assert markers == ["!" if s == "confirm" else "i" for s in severities]
        assert markers[0] == "!" and "i" in markers
        files = screen.query_one("#migrate-files", OptionList)
        assert files.option_count == 1 + len(plan.files)
        prompts = [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]
        assert "+ module.yaml" in prompts and "- prompt.txt" in prompts  # UTF-8 with LF goes unsaid (80 columns)

        diff = screen.query_one(DiffView)
        await pilot.press("j")
        assert screen.file_index == 1 and "file 1/" in text_of(screen, "#migrate-head")
        assert plan.files[0].path in text_of(screen, "#migrate-file-head") and diff.line_count > 3
        await pilot.press("j", "n")
        assert screen.file_index == 3 and files.highlighted == 3
        await pilot.press("k", "p")
        assert screen.file_index == 1
        assert not diff.split  # 80 columns: unified by default
        footer = screen.query_one(KeyFooter)
        assert "Side by side" in [item.description for item in footer.items]  # the key names what it switches to
        await pilot.press("s")
        assert diff.split and any(r.old is not None and r.new is not None for r in diff.rows)
        assert "side by side" in text_of(screen, "#status")
        await until(lambda: "Unified" in [item.description for item in footer.items], pilot)
        await pilot.press("s")
        assert not diff.split
        await until(lambda: "Side by side" in [item.description for item in footer.items], pilot)
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)


async def test_wide_terminals_start_side_by_side(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "api-naming-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await open_preview(app, pilot, [module])
        await pilot.press("j")
        assert screen.query_one(DiffView).split


async def test_apply_then_undo_restores_every_byte(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "commit-message-writer")
    before = tree_bytes(module)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = notices(app)
        screen = await open_preview(app, pilot, [module])
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.press("enter")
        slot = screen.slots[0]
        await until(lambda: slot.applied is not None, pilot)
        backups = list((tmp_path / "data" / "backups" / "commit-message-writer").iterdir())
        assert len(backups) == 1 and (backups[0] / "backup.json").is_file()
        assert load_module(module).format.value == "v2.2"
        assert not (module / "MODULE.md").exists() and (module / "module.yaml").is_file()
        assert f"applied; backup at {backups[0]}" in summary_text(screen)
        assert any(n.startswith("Migrated commit-message-writer") and str(backups[0]) in n for n in seen)

        def revalidated() -> bool:  # the browser's report is refreshed from the migrated files
            report = app.store.report(module)
            return report is not None and report.module is not None and report.module.format.value == "v2.2"

        await until(revalidated, pilot)

        await pilot.press("a")  # a second apply is refused
        assert not isinstance(app.screen, ConfirmModal) and "already applied" in seen[-1]

        await pilot.press("u")
        await until(lambda: slot.undone is not None and slot.plan is not None and slot.busy is None, pilot)
        assert tree_bytes(module) == before
        assert any(n.startswith("Undid the migration of commit-message-writer") for n in seen)
        assert planned(slot).can_apply and "↶ undone: restored from" in summary_text(screen)


async def test_bad_input_shows_the_problem_and_refuses_to_apply(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "commit-message-writer")
    manifest = module / "MODULE.md"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("\nname:", "\nname: [unclosed\nbroken:", 1), encoding="utf-8")
    before = tree_bytes(module)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = notices(app)
        screen = await open_preview(app, pilot, [module])
        plan = planned(screen.slots[0])
        assert plan.errors and not plan.can_apply
        summary = summary_text(screen)
        assert "cannot migrate" in summary and "Problems" in summary and "MODULE.md:" in summary
        assert "Problems (1)" in str(screen.query_one("#migrate-files", OptionList).get_option_at_index(0).prompt)
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is screen and "cannot be migrated" in seen[-1]
        assert tree_bytes(module) == before and not (tmp_path / "data" / "backups").exists()


async def test_all_modules_lists_those_to_migrate_and_skips_current_ones(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "legacy-summarizer", "commit-message-writer", "api-naming-reviewer", "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        navigation.migrate_all(app)
        screen = await preview_shown(app, pilot)
        await until(lambda: all(s.plan is not None for s in screen.slots), pilot)
        await pilot.pause()
        modules = screen.query_one("#migrate-modules", OptionList)
        listed = [str(modules.get_option_at_index(i).prompt) for i in range(modules.option_count)]
        assert listed[0].startswith("≡ Overview 4/4")
        assert [p[2:] for p in listed[1:]] == ["api-naming-reviewer", "commit-message-writer", "legacy-summarizer"]
        overview = summary_text(screen)
        assert "3 to migrate · 1 already current" in overview and "code-reviewer" in overview
        assert screen.query_one("#migrate-progress").has_class("-hidden")

        await pilot.press("J")
        first = chosen(screen).name
        assert first == "api-naming-reviewer" and modules.highlighted == 1
        await pilot.press("ctrl+n")
        assert chosen(screen).name == "commit-message-writer"
        await pilot.press("K")
        assert chosen(screen).name == first
        # j past the last file goes on to the next module's summary; k from there comes back to the last file.
        for _ in range(len(planned(chosen(screen)).files) + 1):
            await pilot.press("j")
        assert chosen(screen).name == "commit-message-writer" and screen.file_index == 0
        await pilot.press("k")
        assert chosen(screen).name == first and screen.file_index == 3


async def test_a_on_the_overview_applies_every_ready_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    paths = copy_modules(root, "api-naming-reviewer", "commit-message-writer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = notices(app)
        screen = await open_preview(app, pilot, paths)
        assert screen.current is None  # the overview
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.press("enter")
        await until(lambda: all(s.applied is not None for s in screen.slots), pilot)
        assert [load_module(p).format.value for p in paths] == ["v2.2", "v2.2"]
        assert "Migrated 2 modules" in seen[-1]
        await pilot.press("a")
        assert not isinstance(app.screen, ConfirmModal) and "No module is ready" in seen[-1]
