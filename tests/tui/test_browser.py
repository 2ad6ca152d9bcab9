"""The browser: the tree by level, shadowing, status, the filter, the detail pane, new modules, help, palette."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from rich.style import Style
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Static
from tuikit import copy_modules, isolate, make_app, palette_pick, until

from cogtui.core.rules.validate_module import validate_path
from cogtui.core.settings.config import Config
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.help import HelpScreen
from cogtui.tui.widgets.module_detail import ModuleDetail
from cogtui.tui.widgets.module_tree import LevelItem, ModuleItem, ModuleTree

if TYPE_CHECKING:  # the app is imported where a test starts it
    from cogtui.tui.app import CogtuiApp


def _labels(tree: ModuleTree) -> dict[str, str]:
    out = {}
    for node in tree.module_nodes.values():
        assert isinstance(node.data, ModuleItem)
        out[node.data.entry.name] = tree.render_label(node, Style(), Style()).plain  # as the tree draws it
    return out


def focused(app: CogtuiApp) -> Widget | None:
    """The focused widget now (a call, so a type check of an earlier one does not narrow a later one)."""
    return app.focused


async def _ready(app: CogtuiApp, pilot: Pilot[None]) -> ModuleTree:
    await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
    tree = app.screen.query_one(ModuleTree)
    await until(lambda: all(app.store.report(e.path) for e in app.store.entries), pilot)
    await pilot.pause()
    return tree


async def test_tree_levels_start_expanded_with_badges_and_status(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer", "legacy-summarizer", "json-patch-generator", "commit-message-writer")
    (root / "broken").mkdir()
    (root / "broken" / "module.yaml").write_text("name: broken\nversion: [1\n", encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = await _ready(app, pilot)
        levels = [n for n in tree.root.children if isinstance(n.data, LevelItem)]
        first = levels[0].data
        assert isinstance(first, LevelItem) and first.level == "path"
        assert all(n.is_expanded for n in levels)
        labels = _labels(tree)
        assert labels["code-reviewer"].startswith("✓ code-reviewer 2.2.1 v2.2 decision")
        assert "v0 deprecated" in labels["legacy-summarizer"] and labels["legacy-summarizer"].startswith("⚠1")
        assert " v1 deprecated" in labels["commit-message-writer"]  # as `cogn validate` notes (issue 30)
        assert "deprecated" not in labels["code-reviewer"]
        assert " exec" in labels["json-patch-generator"]
        assert labels["broken"].startswith("✗")
        status = str(app.screen.query_one("#status", Static).render())
        assert "5 modules" in status and "✗" in status
        from cogtui.tui.widgets.key_footer import KeyFooter

        footer = app.screen.query_one(KeyFooter)
        await until(lambda: bool(footer.items), pilot)
        assert [item.description for item in footer.items][:2] == ["Filter", "Run"]


async def test_shadowed_module_is_shown_under_its_winner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    second = tmp_path / "second"
    second.mkdir()
    copy_modules(root, "code-reviewer")
    copy_modules(second, "code-reviewer")
    from cogtui.tui.app import CogtuiApp

    app = CogtuiApp(paths=[str(root), str(second)], cwd=tmp_path, watch=False, config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        tree = await _ready(app, pilot)
        winner = tree.module_nodes[root / "code-reviewer"]
        children = list(winner.children)
        assert len(children) == 1 and isinstance(children[0].data, ModuleItem)
        shadow = children[0].data.entry
        assert shadow.path == second / "code-reviewer"
        label = tree.render_label(children[0], Style(), Style()).plain
        assert "shadowed by" in label and "modules/code-reviewer" in label


async def test_filter_then_enter_selects_first_match(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer", "product-ideas", "release-notes")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = await _ready(app, pilot)
        await pilot.press("slash")
        assert isinstance(focused(app), Input)
        await pilot.press("r", "e", "l")
        await pilot.pause()
        assert set(_labels(tree)) == {"release-notes"}
        await pilot.press("enter")
        await pilot.pause()
        assert focused(app) is tree
        assert tree.cursor_entry is not None and tree.cursor_entry.name == "release-notes"
        await pilot.press("slash", "escape")
        await pilot.pause()
        assert set(_labels(tree)) == {"code-reviewer", "product-ideas", "release-notes"}
        # down in the filter also returns to the tree
        await pilot.press("slash", "p", "down")
        await pilot.pause()
        assert focused(app) is tree and tree.cursor_entry is not None and tree.cursor_entry.name == "product-ideas"


async def test_detail_shows_contract_and_explicit_vs_inherited(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        tree = await _ready(app, pilot)
        tree.move_cursor(tree.module_nodes[root / "code-reviewer"])
        await pilot.pause()
        body = str(app.screen.query_one(ModuleDetail).query_one("#detail-body", Static).render())
        assert "Reviews a unified diff" in body or "Responsibility" in body
        assert "tier: decision" in body and "explicit" in body
        assert "response.mode: both" in body and "from tier" in body
        assert "Golden tests (3)" in body and "case1" in body


async def test_new_module_from_template_appears_and_validates(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = await _ready(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        for ch in "ticket-triage":
            await pilot.press(ch if ch != "-" else "minus")
        await pilot.press("enter")
        await until(lambda: (root / "ticket-triage" / "module.yaml").exists(), pilot)
        await until(lambda: root / "ticket-triage" in tree.module_nodes, pilot)
        _, diags = validate_path(root / "ticket-triage", v22=True)
        assert [d for d in diags if d.severity.value == "error"] == []


async def test_help_lists_screen_and_app_bindings_with_ids(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(app, pilot)
        await pilot.press("question_mark")
        await until(lambda: isinstance(app.screen, HelpScreen), pilot)
        text = str(app.screen.query_one("#help-body", Static).render())
        assert "Browser screen" in text and "browser.filter" in text and "app.quit" in text
        assert "Module tree" in text and "(focused: module tree)" in text  # the focused widget, as it is seen
        assert "ModuleTree" not in text  # not by its class (issue 30)
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)


async def test_palette_opens_a_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(app, pilot)
        await palette_pick(app, pilot, "Open code")
        from cogtui.tui.screens.editor.screen import EditorScreen

        await until(lambda: isinstance(app.screen, EditorScreen), pilot)


async def test_keymap_override_from_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, config=Config(keymap={"browser.filter": "f"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(app, pilot)
        await pilot.press("slash")
        await pilot.pause()
        assert not isinstance(app.focused, Input)
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.focused, Input)


async def test_malformed_and_unreadable_modules_never_crash(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    bad = root / "bad-json"
    shutil.copytree(root / "code-reviewer", bad)
    (bad / "schema.json").write_bytes(b"{ \xff\xfe not json")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        tree = await _ready(app, pilot)
        tree.move_cursor(tree.module_nodes[bad])
        await pilot.pause()
        body = str(app.screen.query_one("#detail-body", Static).render())
        assert "P005" in body or "P002" in body
        assert _labels(tree)["bad-json"].startswith("✗")


async def test_a_resized_tree_draws_what_a_tree_started_at_that_size_draws(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The tree keeps its drawn lines through a resize (ModuleTree.on_resize): narrower and shorter, then back,
    the screen is what an app started at each size shows."""
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer", "release-notes", "product-ideas")

    async def screens(*sizes: tuple[int, int]) -> list[str]:
        app = make_app(root, tmp_path)
        shots = []
        async with app.run_test(size=sizes[0]) as pilot:
            await _ready(app, pilot)
            for size in sizes:
                await pilot.resize_terminal(*size)
                await pilot.pause()
                shots.append(app.export_screenshot())
        return shots

    wide, narrow, wide_again = await screens((100, 30), (46, 12), (100, 30))
    assert wide_again == wide
    assert narrow == (await screens((46, 12)))[0]
