"""Issue 30's small lies on screen, each as the user saw it: the footer offered `r`/`m` with no module, the editor's
tab list said `1 problem(s)`, the insight detail ran labels into values, and the terminal's colour notice was a
toast on every start. (The cancelled run: test_run_state_view.py; the golden tests pane: test_goldens_state.py; the
JSON spelling: test_runtime_golden.py; the target marks: test_eval_options.py; the help's names and v1 marked
deprecated: test_browser.py; Apply/Undo: test_migrate_state.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_editor_kit import area, module_dir, open_editor, replace_line
from test_editor_kit import make_app as editor_app
from test_editor_kit import until as editor_until
from textual.notifications import Notify
from textual.widgets import OptionList
from tuikit import copy_modules, isolate, make_app, until

from cogtui.core.settings.config import Config
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.picker import TabPickerModal
from cogtui.tui.widgets.insight_detail import insight_content
from cogtui.tui.widgets.key_footer import KeyFooter
from cogtui.tui.widgets.module_tree import ModuleTree

__all__ = ["module_dir"]  # the fixture, imported so pytest finds it


def footer_keys(app: CogtuiApp) -> set[str]:
    return {item.description for item in app.screen.query_one(KeyFooter).items}


async def test_the_browser_offers_a_modules_keys_only_with_a_module(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:  # an empty search path: no module to run or migrate
        await until(lambda: isinstance(app.screen, BrowserScreen) and bool(footer_keys(app)), pilot)
        await pilot.pause()
        keys = footer_keys(app)
        assert "Run" not in keys and "Migrate" not in keys and "Open" not in keys
        assert {"Filter", "New", "Insights"} <= keys
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and "Run" in footer_keys(app), pilot)
        assert app.screen.query_one(ModuleTree).cursor_entry is not None and "Migrate" in footer_keys(app)


async def test_the_tab_list_counts_problems_in_words(module_dir: Path) -> None:
    app = editor_app(module_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await replace_line(pilot, area(screen, "module.yaml"), "tier: ", "tier: bogus")
        await editor_until(pilot, lambda: bool(screen.state.diagnostics), "the problem")
        await pilot.press("f2")
        await editor_until(pilot, lambda: isinstance(app.screen, TabPickerModal), "the tab list")
        labels = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
        line = next(label for label in labels if label.startswith("module.yaml"))
        assert line.endswith("1 problem") and "(s)" not in line


def test_the_insight_detail_separates_labels_from_values() -> None:
    document = {
        "suggested_mapping": "data.assumptions",
        "modules": ["code-reviewer"],
        "count": 3,
        "first_seen": "2025-01-15T09:00:00.000Z",
        "last_seen": "2025-01-16T09:00:00.000Z",
        "examples": [],
    }
    lines = insight_content(document).plain.splitlines()
    assert "modules: code-reviewer" in lines
    assert "first seen: 2025-01-15T09:00:00.000Z" in lines and "last seen: 2025-01-16T09:00:00.000Z" in lines


async def start_notes(tmp_path: Path, root: Path) -> list[str]:
    """One start of the app on a 256-colour terminal: the notifications it showed, once its notes are settled."""
    seen: list[object] = []
    app = CogtuiApp(paths=[str(root)], cwd=tmp_path, watch=False, config=Config(), detect_terminal=True)
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await until(lambda: app.terminal_note_said is not None, pilot)
        await pilot.pause()
    return [str(m.notification.message) for m in seen if isinstance(m, Notify)]


async def test_the_colour_notice_is_said_at_the_first_start_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    first = await start_notes(tmp_path, root)
    assert any("256-colour terminal" in n for n in first)
    again = await start_notes(tmp_path, root)
    assert not any("256-colour terminal" in n for n in again)
    assert (tmp_path / "state" / "said.json").is_file()  # remembered in cogtui's state folder
