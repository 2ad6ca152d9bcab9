"""The editor renders one state (core.authoring.editor_state; issue 12, item 2): after every action (typing,
validation, f8, switching tabs, find, a change on disk under the edits and over a clean file, a save that meets
a conflict, a save, a file deleted on disk and its tab closed, the contract tab) the status line, the tab labels
and their marks, the read-only reasons, the problems pane and its current problem, the find bar and the footer's
keys agree with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Label, Static, TabbedContent
from tuikit import click, copy_modules, editor_ready, isolate, make_app, screen_of, until

from cogtui.core.authoring.editor_state import CONTRACT_PANE
from cogtui.tui import navigation as nav
from cogtui.tui.screens.editor.saving import DiskChanged
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.modals import ChoiceModal
from cogtui.tui.widgets.diagnostics_panel import DiagnosticsPanel
from cogtui.tui.widgets.find_bar import FindBar

ACTIONS = (
    "save",
    "reload",
    "external_editor",
    "next_diagnostic",
    "find",
    "find_next",
    "pick_tab",
    "next_file",
    "focus_diagnostics",
    "problems_taller",
    "problems_shorter",
)


def check_agrees(screen: EditorScreen) -> None:
    state = screen.state
    assert str(screen.query_one("#editor-status", Static).render()) == state.status_text()
    tabs = screen.query_one(TabbedContent)
    assert tabs.active == state.active and tabs.tab_count == len(state.panes())
    for pane, buf in state.files.items():
        assert tabs.get_tab(pane).label.plain == state.tab_label(pane)
        assert screen.query_one(f"#{pane}-problem", Static).has_class("-hidden") == (not buf.read_only)
        assert screen.area(buf).read_only == buf.read_only
    panel = screen.query_one(DiagnosticsPanel)
    assert panel.diagnostics == state.diagnostics
    assert panel.border_title == state.problems_title()
    assert panel.has_class("-collapsed") == state.problems_collapsed and panel.styles.height is not None
    assert panel.styles.height.value == state.problems_rows()
    if state.current_problem() is not None:
        assert panel.current == state.current_problem()
    bar = screen.query_one(FindBar)
    assert bar.display == state.find_open
    if state.find_open:
        assert str(bar.query_one("#find-status", Label).render()) == state.find_note
    offered = {active.binding.action for active in screen.active_bindings.values()}
    for action in ACTIONS:
        assert (action in offered) == state.can(action), action


async def settled(screen: EditorScreen, pilot: Pilot[None]) -> None:
    """The newest validation has answered."""
    await until(lambda: not screen.state.checking, pilot)


async def test_every_action_shows_the_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    manifest, prompt, schema = module / "module.yaml", module / "prompt.md", module / "schema.json"
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        nav.open_module(app, module)
        await until(lambda: isinstance(app.screen, EditorScreen) and app.screen.is_mounted, pilot)
        screen = screen_of(app, EditorScreen)
        state = screen.state
        # Read off the UI thread (TUI-4; its loading state: tests/tui/test_editor_loads_off_ui_thread.py).
        await until(lambda: editor_ready(app), pilot)
        check_agrees(screen)  # before the first validation: "checking…"
        await settled(screen, pilot)
        check_agrees(screen)
        assert "✓ valid" in state.status_text() and state.current() is state.file_for(manifest)
        area = screen.area(state.files[state.active])
        row = next(i for i, line in enumerate(area.text.split("\n")) if line.startswith("tier: "))
        area.move_cursor((row, len("tier: ")))
        area.move_cursor((row, len(area.document.get_line(row))), select=True)
        await pilot.press(*"bogus")  # typed: marked modified, and checking until validated
        assert state.tab_label(state.active) == "module.yaml ●"
        check_agrees(screen)
        await settled(screen, pilot)
        check_agrees(screen)
        assert "M003" in [d.code for d in state.diagnostics]
        area.move_cursor((0, 0))
        await pilot.press("f8")  # to the file's problem
        assert (problem := state.current_problem()) is not None and problem.code == "M003"
        check_agrees(screen)
        await pilot.press("ctrl+pagedown")  # the next tab: its own problems, none current
        assert state.active != "file-0" and state.current_problem() is None
        check_agrees(screen)
        await pilot.press("ctrl+pageup")  # back: module.yaml's problem is still its current one
        assert (problem := state.current_problem()) is not None and problem.code == "M003"
        check_agrees(screen)
        await pilot.press("ctrl+f", *"tier", "enter")
        assert state.find_open and state.find_query == "tier" and "match" in state.find_note
        check_agrees(screen)
        await pilot.press("escape")  # closes the find bar only
        assert not state.find_open and isinstance(app.screen, EditorScreen)
        check_agrees(screen)
        # Another program changes a clean file (reloaded) and the edited one (marked stale, the edits kept).
        prompt.write_text(prompt.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
        manifest.write_text(manifest.read_text(encoding="utf-8") + "# a comment from elsewhere\n", encoding="utf-8")
        screen.post_message(DiskChanged(frozenset({prompt, manifest})))
        await until(lambda: state.current() is not None and state.current().stale, pilot)
        assert state.tab_label("file-0") == "module.yaml ● ⚠" and "changed on disk" in state.status_text()
        check_agrees(screen)
        await pilot.press("ctrl+s")  # a conflict: the question, and cancel keeps both
        await until(lambda: isinstance(app.screen, ChoiceModal), pilot)
        await pilot.press("escape")
        await until(lambda: app.screen is screen, pilot)
        check_agrees(screen)
        await pilot.press("ctrl+s")
        await click(pilot, "#choice-reload")  # take the disk's version
        await until(lambda: app.screen is screen and not state.files["file-0"].modified, pilot)
        check_agrees(screen)
        await settled(screen, pilot)
        check_agrees(screen)
        area.focus()
        await pilot.press("end", "x", "ctrl+s")  # an edit, saved: no mark left
        await until(lambda: not state.files["file-0"].modified, pilot)
        check_agrees(screen)
        # A file deleted on disk: marked, and closing its tab leaves the others in agreement.
        schema_pane = state.file_for(schema).pane_id
        schema.unlink()
        screen.post_message(DiskChanged(frozenset({schema})))
        await until(lambda: state.files[schema_pane].deleted, pilot)
        assert state.tab_label(schema_pane) == "schema.json ✗"
        check_agrees(screen)
        screen.query_one(TabbedContent).active = schema_pane
        await until(lambda: state.active == schema_pane, pilot)
        assert "deleted on disk" in state.status_text()
        check_agrees(screen)
        await pilot.press("ctrl+s")
        await click(pilot, "#choice-close")
        await until(lambda: schema_pane not in state.files and app.screen is screen, pilot)
        await pilot.pause()
        check_agrees(screen)
        await settled(screen, pilot)
        check_agrees(screen)
        screen.query_one(TabbedContent).active = CONTRACT_PANE  # no file here: no file keys in the footer
        await until(lambda: state.active == CONTRACT_PANE, pilot)
        assert not state.can("save") and not state.can("next_diagnostic")
        check_agrees(screen)
