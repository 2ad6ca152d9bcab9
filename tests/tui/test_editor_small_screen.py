"""The editor at 80x24 (issue 30): the problems pane is one line when it has nothing to say, and can be hidden and
resized; prose wraps, data does not; escape in the problems list goes back to the text; quitting names the unsaved
files and can save them all first."""

from __future__ import annotations

from pathlib import Path

from test_editor_kit import (
    SIZE,
    active_rel,
    area,
    codes,
    edit_prompt_and_schema,
    make_app,
    module_dir,
    open_editor,
    replace_line,
    until,
)
from textual.pilot import Pilot

from cogtui.core.authoring.editor_state import PROBLEMS_ROWS, PROBLEMS_STEP
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.modals import ChoiceModal
from cogtui.tui.widgets.diagnostics_panel import DiagnosticsPanel

__all__ = ["module_dir"]  # the fixture, imported so pytest finds it


def panel(screen: EditorScreen) -> DiagnosticsPanel:
    return screen.query_one(DiagnosticsPanel)


async def test_no_problems_is_one_line_and_the_code_gets_the_rest(module_dir: Path) -> None:
    """It took 7 rows to say `✓ no problems`, leaving 12 lines of code at 80x24."""
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await until(pilot, lambda: panel(screen).region.height == 1, "the collapsed pane")
        assert panel(screen).border_title == "Problems  ✓ none"
        text = area(screen, "module.yaml").region
        assert text.height >= 17 and text.bottom == panel(screen).region.y  # status 1, tabs 2, problems 1, footer 1
        assert not screen.state.can("problems_taller") and not screen.state.can("focus_diagnostics")


async def with_a_problem(app: CogtuiApp, pilot: Pilot[None], module_dir: Path) -> EditorScreen:
    """The editor on module.yaml, its tier made unknown (M003) and shown in the problems pane."""
    screen = await open_editor(app, pilot, module_dir)
    await replace_line(pilot, area(screen, "module.yaml"), "tier: ", "tier: bogus")
    await until(pilot, lambda: "M003" in codes(screen), "M003 in the problems pane")
    return screen


async def test_problems_open_the_pane_and_keys_hide_and_resize_it(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await with_a_problem(app, pilot, module_dir)
        await until(pilot, lambda: panel(screen).region.height == PROBLEMS_ROWS, "the open pane")
        assert panel(screen).border_title == "Problems  ✗ 1  ⚠ 0"
        await pilot.press("alt+up")
        await until(pilot, lambda: panel(screen).region.height == PROBLEMS_ROWS + PROBLEMS_STEP, "a taller pane")
        await pilot.press("alt+down", "alt+down")
        await until(pilot, lambda: panel(screen).region.height == PROBLEMS_ROWS - PROBLEMS_STEP, "a shorter pane")
        await pilot.press("f4")  # hidden: its title line keeps the counts in view
        await until(pilot, lambda: panel(screen).region.height == 1, "the hidden pane")
        assert panel(screen).border_title == "Problems  ✗ 1  ⚠ 0  (hidden)"
        assert not screen.state.can("problems_taller")
        await pilot.press("ctrl+g")  # going to the list shows it again
        await until(pilot, lambda: panel(screen).region.height == PROBLEMS_ROWS - PROBLEMS_STEP, "the pane again")
        assert app.focused is panel(screen)


async def test_escape_in_the_problems_list_goes_back_to_the_text(module_dir: Path) -> None:
    """It opened the "unsaved edits" dialog, as escape in the text does."""
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await with_a_problem(app, pilot, module_dir)
        await pilot.press("ctrl+g")
        assert app.focused is panel(screen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and app.focused is area(screen, "module.yaml")
        await pilot.press("escape")  # from the text, escape still leaves (and asks: the edit is unsaved)
        await until(pilot, lambda: isinstance(app.screen, ChoiceModal), "the unsaved-edits dialog")


async def test_prose_wraps_and_data_scrolls_sideways(module_dir: Path) -> None:
    (module_dir / "notes.txt").write_text("word " * 60 + "\n", encoding="utf-8")
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, module_dir / "prompt.md")
        assert active_rel(screen) == "prompt.md"
        assert area(screen, "prompt.md").soft_wrap and area(screen, "notes.txt").soft_wrap
        assert not area(screen, "module.yaml").soft_wrap and not area(screen, "schema.json").soft_wrap
        prompt = area(screen, "prompt.md")
        longest = max(len(line) for line in prompt.text.splitlines())
        assert longest > prompt.region.width  # a paragraph line longer than the screen: it wraps, nothing scrolls
        assert prompt.virtual_size.width <= prompt.region.width


async def test_quitting_names_the_unsaved_files_and_can_save_them_all(module_dir: Path) -> None:
    app = make_app(module_dir)
    prompt, schema = module_dir / "prompt.md", module_dir / "schema.json"
    async with app.run_test(size=SIZE) as pilot:
        await edit_prompt_and_schema(app, pilot, module_dir)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ChoiceModal), "the quit dialog")
        dialog = app.screen
        assert "Unsaved edits in code-reviewer: prompt.md, schema.json." in str(dialog.body)
        assert [label for _, label in dialog.choices] == ["Save all and quit", "Quit without saving"]
        await pilot.press("enter")  # the first choice has the focus: save, never lose an edit
        await until(pilot, lambda: not app.is_running, "the app to exit")
        assert prompt.read_text(encoding="utf-8").startswith("A first line.\n")
        assert schema.read_text(encoding="utf-8").startswith(" {")
