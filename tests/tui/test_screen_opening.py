"""Opening a screen kind for the first time: its stylesheet is added without restyling the whole app, and it
imports what it shows, not the new-module form's scaffold and the migration package behind it.

Each screen's .tcss is its DEFAULT_CSS (tui/stylesheets.py): Textual parses only the new class's CSS. A screen
with a CSS_PATH made Textual parse every stylesheet again and restyle every widget of the app (Stylesheet.reparse)
the first time the screen was shown. How each screen looks is what the snapshots check (test_snapshots.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from textual.css.stylesheet import Stylesheet
from tuikit import copy_modules, editor_ready, isolate, make_app, until

from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.picker import TabPickerModal
from cogtui.tui.screens.modals import ChoiceModal

SCREENS: tuple[tuple[str, str], ...] = (
    ("enter", "EditorScreen"),
    ("r", "RunScreen"),
    ("m", "MigrationScreen"),
    ("h", "HistoryScreen"),
    ("g", "GoldensScreen"),
)
SCREENS += (("e", "EvalScreen"), ("i", "InsightsScreen"))


async def test_opening_each_screen_kind_restyles_nothing_else(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    reparses: list[str] = []
    reparse = Stylesheet.reparse
    opening = ["start-up"]

    def counted(self: Stylesheet) -> None:
        reparses.append(opening[-1])
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.store.reports), pilot)
        opened = []
        for key, kind in SCREENS:
            opening.append(kind)
            await pilot.press(key)
            await until(lambda kind=kind: type(app.screen).__name__ == kind and app.screen.is_mounted, pilot)
            await pilot.pause()
            opened.append(type(app.screen).__name__)
            await pilot.press("escape")
            await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        assert opened == [kind for _key, kind in SCREENS]
        assert reparses == [], f"these screens made Textual parse every stylesheet again: {reparses}"


@pytest.mark.parametrize("screen", ["run", "editor", "history", "goldens", "eval"])
def test_a_screen_that_only_asks_a_question_does_not_import_the_scaffold(screen: str) -> None:
    """The confirm and choice dialogs (modals.py) are apart from the new-module form (new_module.py): a screen
    that asks "discard?" does not import the scaffold, the migration package and PyYAML, a noticeable part of
    its first opening."""
    code = (
        f"import sys, cogtui.tui.screens.{screen}\n"
        "print([n for n in ('cogtui.core.authoring.scaffold', 'cogtui.core.authoring.migration', 'yaml')"
        " if n in sys.modules])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"


async def test_the_dialogs_a_screen_pushes_keep_their_own_layout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A dialog is a screen of its own: the rules that size or lay it out live in app.tcss, beside `.dialog`, where
    they outrank it (a screen's DEFAULT_CSS is scoped to that screen and ranks below the app's CSS)."""
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.store.reports), pilot)
        await pilot.press("enter")
        await until(lambda: editor_ready(app), pilot)
        await pilot.press("f2")  # the editor's tab list: 80 % of the screen's height, not a plain dialog's
        await until(lambda: isinstance(app.screen, TabPickerModal), pilot)
        await pilot.pause()
        assert app.screen.query_one("#tab-picker").outer_size.height == 32  # 80 % of 40 rows
        await pilot.press("escape")
        await until(lambda: editor_ready(app), pilot)
        choices = [(f"m{i}", f"module {i}") for i in range(9)]  # as insights asks "into which module?"
        modal = ChoiceModal("Into which module?", "Several modules suggested it.", choices)
        modal.add_class("insights-choice")
        app.push_screen(modal)
        await until(lambda: app.screen is modal and bool(modal.query(".dialog-buttons")), pilot)
        await pilot.pause()
        layout = modal.query_one(".dialog-buttons").styles.layout
        assert layout is not None and layout.name == "grid"
