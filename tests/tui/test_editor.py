"""The editor screen: tabs, problems as you type, jumping to problems, saving byte-faithfully, leaving safely."""

from __future__ import annotations

import codecs
from pathlib import Path

from test_editor_kit import (
    SIZE,
    active_rel,
    area,
    buffer,
    click,
    codes,
    edit_prompt_and_schema,
    make_app,
    module_dir,
    notes,
    open_editor,
    replace_line,
    status,
    tab_label,
    until,
)
from textual.message import Message
from textual.widgets import TabbedContent

from cogtui.core.module.loader import load_module
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.modals import ChoiceModal
from cogtui.tui.widgets.diagnostics_panel import DiagnosticsPanel
from cogtui.tui.widgets.module_tree import ModuleTree

__all__ = ["module_dir"]  # the fixture, imported so pytest finds it


async def test_a_tab_per_module_file_with_its_language(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        expected = [p.relative_to(module_dir).as_posix() for p in load_module(module_dir).all_files]
        assert [b.rel for b in screen.state.files.values()] == expected
        assert expected[0] == "module.yaml" and len(expected) == 9
        assert active_rel(screen) == "module.yaml"
        assert app.focused is area(screen, "module.yaml")
        assert area(screen, "module.yaml").language == "yaml"
        assert area(screen, "prompt.md").language == "markdown"
        assert area(screen, "schema.json").language == "json"
        assert area(screen, "tests/case1.input.json").language == "json"
        assert area(screen, "prompt.md").text == (module_dir / "prompt.md").read_text()
        assert not any(b.read_only or b.modified for b in screen.state.files.values())
        assert codes(screen) == []
        line = status(screen)
        assert "code-reviewer" in line and "module.yaml" in line and "UTF-8, LF" in line


async def test_everything_fits_at_80x24(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await pilot.pause()
        width, height = SIZE
        assert screen.query_one("#editor-status").region.y == 0
        editor = area(screen, "module.yaml").region
        panel = screen.query_one(DiagnosticsPanel).region
        assert editor.height >= 10 and editor.width == width
        assert editor.bottom <= panel.y and panel.bottom <= height - 1  # the footer keeps the last row
        assert screen.scroll_offset == (0, 0)


async def test_focus_file_opens_its_tab(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, module_dir / "schema.json")
        assert active_rel(screen) == "schema.json"
        assert app.focused is area(screen, "schema.json")


async def test_enter_in_the_browser_opens_the_editor(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.store.report(module_dir) is not None, "the browser's validation")
        tree = app.screen.query_one(ModuleTree)
        tree.select_first_module()
        await until(pilot, lambda: tree.cursor_entry is not None, "the module under the tree cursor")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, EditorScreen), "the editor")


async def test_typing_an_error_shows_it_after_the_debounce_without_saving(module_dir: Path) -> None:
    app = make_app(module_dir)
    on_disk = (module_dir / "module.yaml").read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await replace_line(pilot, area(screen, "module.yaml"), "tier: ", "tier: bogus")
        await until(pilot, lambda: "M003" in codes(screen), "M003 in the problems panel")
        assert (module_dir / "module.yaml").read_bytes() == on_disk
        assert buffer(screen, "module.yaml").modified
        assert "●" in tab_label(screen, "module.yaml") and "●" in status(screen)
        assert screen.has_unsaved_changes()
        assert "✗ 1" in str(screen.query_one(DiagnosticsPanel).border_title)

        await replace_line(pilot, area(screen, "module.yaml"), "tier: ", "tier: decision")
        await until(pilot, lambda: "M003" not in codes(screen), "M003 to clear")
        assert not buffer(screen, "module.yaml").modified  # back to the text on disk
        assert "●" not in tab_label(screen, "module.yaml")


async def test_selecting_a_problem_jumps_to_its_file_line_and_column(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        yaml_area = area(screen, "module.yaml")
        await replace_line(pilot, yaml_area, "tier: ", "tier: bogus")
        await until(pilot, lambda: "M003" in codes(screen), "M003")
        problem = next(d for d in screen.query_one(DiagnosticsPanel).diagnostics if d.code == "M003")
        yaml_area.move_cursor((0, 0))
        await pilot.press("ctrl+pagedown")  # another tab first, so the jump has to switch back
        assert active_rel(screen) == "prompt.md"
        await pilot.press("ctrl+g")
        assert app.focused is screen.query_one(DiagnosticsPanel)
        await pilot.press("enter")
        await until(pilot, lambda: active_rel(screen) == "module.yaml" and app.focused is yaml_area, "the jump")
        assert problem.line is not None and problem.column is not None
        assert yaml_area.cursor_location == (problem.line - 1, problem.column - 1)
        assert yaml_area.cursor_location == (5, 6)  # `tier: bogus` is line 6; the value starts at column 7


async def test_f8_cycles_through_the_problems(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        yaml_area = area(screen, "module.yaml")
        await replace_line(pilot, yaml_area, "tier: ", "tier: bogus")
        await replace_line(pilot, yaml_area, "schema_strictness: ", "schema_strictness: wild")
        await until(pilot, lambda: {"M003", "M004"} <= set(codes(screen)), "M003 and M004")
        problems = screen.query_one(DiagnosticsPanel).diagnostics
        visited = []
        for _ in range(len(problems) + 1):
            await pilot.press("f8")
            visited.append(yaml_area.cursor_location)
        expected = [(d.line - 1, d.column - 1) for d in problems if d.line and d.column]
        assert visited == expected + expected[:1]


async def test_save_writes_exactly_the_buffer_keeping_bom_and_crlf(module_dir: Path) -> None:
    manifest = module_dir / "module.yaml"
    original = manifest.read_text().replace("\n", "\r\n")
    manifest.write_bytes(codecs.BOM_UTF8 + original.encode())
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        assert "UTF-8 with BOM, CRLF" in status(screen)
        await replace_line(pilot, area(screen, "module.yaml"), "version: 2.2.", "version: 2.2.9")
        await pilot.press("ctrl+s")
        await pilot.pause()
        expected = original.replace("version: 2.2.1\r\n", "version: 2.2.9\r\n")
        assert expected != original
        assert manifest.read_bytes() == codecs.BOM_UTF8 + expected.encode()
        assert not screen.has_unsaved_changes()
        assert "●" not in tab_label(screen, "module.yaml")
        assert "Saved module.yaml" in notes(seen)
        # the browser's store hears about it (the app revalidates the module from disk)
        await until(
            pilot,
            lambda: (r := app.store.report(module_dir)) is not None and r.version == "2.2.9",
            "the app's report of the saved module",
        )


async def test_escape_with_unsaved_edits_asks_first(module_dir: Path) -> None:
    app = make_app(module_dir)
    on_disk = (module_dir / "prompt.md").read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, module_dir / "prompt.md")
        await pilot.press("x")
        await pilot.press("escape")
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("escape")  # cancel
        assert app.screen is screen and screen.has_unsaved_changes()
        await pilot.press("escape")
        assert isinstance(app.screen, ChoiceModal)
        await click(pilot, "#choice-discard")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen), "the browser")
        assert (module_dir / "prompt.md").read_bytes() == on_disk


async def test_leaving_with_unsaved_edits_can_save_them_all_first(module_dir: Path) -> None:
    app = make_app(module_dir)
    prompt, schema = module_dir / "prompt.md", module_dir / "schema.json"
    async with app.run_test(size=SIZE) as pilot:
        await edit_prompt_and_schema(app, pilot, module_dir)
        await pilot.press("escape")
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("enter")  # the first choice has the focus: save, never discard
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen), "the browser")
        assert prompt.read_text(encoding="utf-8").startswith("A first line.\n")
        assert schema.read_text(encoding="utf-8").startswith(" {")


async def test_a_save_that_asks_first_keeps_the_editor_open_until_it_is_answered(module_dir: Path) -> None:
    app = make_app(module_dir)
    prompt = module_dir / "prompt.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, prompt)
        await pilot.press("x")
        prompt.write_text("changed by another program\n", encoding="utf-8")
        await pilot.press("escape")
        await click(pilot, "#choice-save")
        await until(pilot, lambda: isinstance(app.screen, ChoiceModal) and app.screen is not screen, "the conflict")
        await pilot.press("escape")  # the conflict is not resolved: nothing saved, the editor stays
        await until(pilot, lambda: app.screen is screen, "the editor")
        assert screen.has_unsaved_changes()
        assert prompt.read_text(encoding="utf-8") == "changed by another program\n"


async def test_escape_without_edits_closes_at_once(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        await open_editor(app, pilot, module_dir)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen), "the browser")


async def test_quitting_with_unsaved_edits_asks_and_cancel_keeps_running(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await pilot.press("x")
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ChoiceModal)
        await click(pilot, "#cancel")
        await pilot.pause()
        assert app.is_running and app.screen is screen
        assert screen.has_unsaved_changes()
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ChoiceModal)
        await click(pilot, "#choice-discard")
        await until(pilot, lambda: not app.is_running, "the app to exit")


async def test_an_undecodable_file_opens_read_only_with_the_reason(module_dir: Path) -> None:
    bad = module_dir / "tests" / "case1.input.json"
    bad.write_bytes(b'{"diff": "caf\xe9"}\n')
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_editor(app, pilot, module_dir, bad)
        buf = buffer(screen, "tests/case1.input.json")
        bad_area = area(screen, "tests/case1.input.json")
        assert buf.read_only and "P005" in buf.problem
        assert bad_area.read_only and "caf" in bad_area.text
        reason = screen.query_one(f"#{buf.pane_id}-problem")
        assert reason.display and "P005" in str(reason.render())
        assert "(ro)" in tab_label(screen, "tests/case1.input.json") and "read-only" in status(screen)
        await pilot.press("a", "ctrl+s")
        assert not buf.modified and bad.read_bytes() == b'{"diff": "caf\xe9"}\n'
        assert any("read-only" in n for n in notes(seen))
        assert "P005" in codes(screen)
        await pilot.press("f8")  # jumps to the P005 location, still no crash
        assert active_rel(screen) == "tests/case1.input.json"


async def test_a_file_with_form_feeds_opens_read_only(module_dir: Path) -> None:
    prompt = module_dir / "prompt.md"
    prompt.write_text(prompt.read_text() + "\f\n")
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, prompt)
        assert "form feed" in buffer(screen, "prompt.md").problem and area(screen, "prompt.md").read_only
        await pilot.press("ctrl+l")  # a reload: TextArea's text differs from the file's, yet nothing is "unsaved"
        await pilot.pause()
        assert not screen.has_unsaved_changes()


async def test_a_very_large_file_opens_as_plain_text(module_dir: Path) -> None:
    prompt = module_dir / "prompt.md"
    prompt.write_text(prompt.read_text() + ("lorem ipsum dolor sit amet " * 4 + "\n") * 10_000)
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, prompt)
        assert area(screen, "prompt.md").language is None and not buffer(screen, "prompt.md").read_only
        assert area(screen, "prompt.md").text == prompt.read_text()
        assert "no highlighting" in status(screen)


async def test_a_folder_that_is_not_a_module_shows_why(tmp_path: Path, module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        from cogtui.tui import navigation

        navigation.open_module(app, tmp_path / "nowhere")
        await until(pilot, lambda: bool(app.screen.query("#editor-empty")), "the editor")
        assert "Cannot open this module" in str(app.screen.query_one("#editor-empty").render())
        assert not app.screen.query(TabbedContent).first().tab_count
        await pilot.press("ctrl+s", "f8", "ctrl+o", "escape")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen), "the browser")
