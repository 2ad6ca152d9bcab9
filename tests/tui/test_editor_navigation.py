"""Issue 12's editor: per-file f8, gutter marks, ctrl+f find, every file of the module openable,
the tab list when tabs overflow, the read-only contract tab, and ✓ once a fix is saved elsewhere."""

from __future__ import annotations

import json
from pathlib import Path

from test_editor_kit import (
    SIZE,
    active_rel,
    area,
    buffer,
    codes,
    listing_done,
    make_app,
    module_dir,
    notes,
    open_editor,
    replace_line,
    status,
    until,
)
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Label, OptionList, TabbedContent

from cogtui.core.diagnostics import Severity
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.widgets.contract_tree import ContractTree
from cogtui.tui.widgets.find_bar import FindBar

__all__ = ["module_dir"]


async def break_manifest_and_schema(pilot: Pilot[None], screen: EditorScreen) -> None:
    """Two problems in module.yaml (M003, M004), one in schema.json (bad JSON)."""
    yaml_area = area(screen, "module.yaml")
    await replace_line(pilot, yaml_area, "tier: ", "tier: bogus")
    await replace_line(pilot, yaml_area, "schema_strictness: ", "schema_strictness: wild")
    await until(pilot, lambda: {"M003", "M004"} <= set(codes(screen)), "M003 and M004")


async def test_f8_stays_in_the_open_file(module_dir: Path) -> None:
    schema = module_dir / "schema.json"
    schema.write_text(schema.read_text().replace('"type": "object"', '"type": "objekt"', 1))
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await break_manifest_and_schema(pilot, screen)
        in_yaml = [d for d in screen.state.diagnostics if d.file is not None and d.file.name == "module.yaml"]
        assert len(in_yaml) >= 2 and len(in_yaml) < len(screen.state.diagnostics)  # some are in other files
        yaml_area = area(screen, "module.yaml")
        yaml_area.move_cursor((0, 0))
        expected = sorted(((d.line or 1) - 1, (d.column or 1) - 1) for d in in_yaml)
        visited = []
        for _ in range(len(expected) + 1):
            await pilot.press("f8")
            assert active_rel(screen) == "module.yaml"  # never leaves the file
            visited.append(yaml_area.cursor_location)
        assert visited == expected + expected[:1]
        await pilot.press("shift+f8")
        assert yaml_area.cursor_location == expected[-1]
        # a file without problems says so, and where the others are
        await pilot.press("ctrl+pagedown")
        assert active_rel(screen) == "prompt.md"
        prompt_area = area(screen, "prompt.md")
        before = prompt_area.cursor_location
        await pilot.press("f8")
        assert prompt_area.cursor_location == before and active_rel(screen) == "prompt.md"
        assert any(n.startswith("No problems in prompt.md;") for n in notes(seen))


async def test_gutter_marks_the_lines_with_problems(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        yaml_area = area(screen, "module.yaml")
        assert yaml_area.marks == {}
        await replace_line(pilot, yaml_area, "tier: ", "tier: bogus")
        await until(pilot, lambda: bool(yaml_area.marks), "a gutter mark")
        tier_row = next(i for i, line in enumerate(yaml_area.text.split("\n")) if line.startswith("tier:"))
        assert yaml_area.marks == {tier_row: Severity.ERROR}
        yaml_area.scroll_to(y=0, animate=False)
        await pilot.pause()
        gutter = yaml_area.gutter_width
        drawn = yaml_area.render_line(tier_row).text
        assert drawn[gutter - 2] == "✗" and drawn[: gutter - 2].strip() == str(tier_row + 1)
        assert "✗" not in yaml_area.render_line(0).text[:gutter]
        await replace_line(pilot, yaml_area, "tier: ", "tier: decision")
        await until(pilot, lambda: yaml_area.marks == {}, "the mark to clear")


async def test_ctrl_f_finds_and_f3_finds_next(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        yaml_area = area(screen, "module.yaml")
        yaml_area.move_cursor((0, 0))
        await pilot.press("ctrl+f")
        bar = screen.query_one(FindBar)
        assert bar.display and app.focused is bar.query_one("#find-input")
        await pilot.press(*"deny", "enter")
        lines = yaml_area.text.split("\n")
        rows = [i for i, line in enumerate(lines) if "deny" in line]
        first = yaml_area.selection
        assert first.start[0] == rows[0] and yaml_area.selected_text == "deny"
        await pilot.press("enter")
        assert yaml_area.selection.start[0] == rows[1]
        await pilot.press("escape")
        assert not bar.display and app.focused is yaml_area
        await pilot.press("f3")
        assert yaml_area.selection.start[0] == rows[2] and yaml_area.selected_text == "deny"

        def status() -> str:
            return str(bar.query_one("#find-status", Label).render())

        await pilot.press("ctrl+f", "ctrl+a", *"zzz", "enter")
        assert status() == "not found"
        await pilot.press("escape", "ctrl+f")  # opens on the selected "deny": zzz's outcome is not deny's
        assert bar.query_text == "deny" and status() == ""
        await pilot.press("enter")
        assert status().endswith("matches") or status().endswith("wrapped")


async def test_module_md_and_every_file_of_the_folder_open(module_dir: Path) -> None:
    (module_dir / "MODULE.md").write_text("# Notes on this module\n")
    (module_dir / "examples").mkdir()
    (module_dir / "examples" / "note.txt").write_text("an example\n")
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        rels = [b.rel for b in screen.state.files.values()]
        assert rels[0] == "module.yaml" and {"MODULE.md", "examples/note.txt"} <= set(rels)
        assert area(screen, "MODULE.md").text == "# Notes on this module\n"
        assert not buffer(screen, "MODULE.md").read_only


async def test_tab_list_reaches_every_tab(module_dir: Path) -> None:
    for i in range(12):  # far more tabs than 80 columns show
        (module_dir / f"notes-{i:02}.md").write_text(f"note {i}\n")
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await pilot.press("f2")
        await until(pilot, lambda: listing_done(app), "the tab list")
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert "notes-11.md" in labels and labels[-1].startswith("contract")
        options.highlighted = labels.index("notes-11.md")
        await pilot.press("enter")
        await pilot.pause()
        assert active_rel(screen) == "notes-11.md" and app.focused is area(screen, "notes-11.md")


async def test_contract_tab_shows_the_schema_tree_with_goldens(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        tree = screen.query_one(ContractTree)
        rows = [str(tree.get_option_at_index(i).prompt) for i in range(tree.option_count)]
        assert rows[0].startswith("overflow") and "max_items: 5" in rows[0]
        assert any(r.startswith("enums") and "extensible" in r for r in rows)
        verdict = next(r for r in rows if "verdict*" in r)
        assert "approve|comment|request_changes" in verdict and "◆ case1, case2" in verdict
        assert any("trace_id" in r and "no golden" in r for r in rows)
        screen.query_one(TabbedContent).active = "contract"
        await pilot.pause()
        assert tree.display and screen.query_one("#contract").display
        # live: a golden edited in the buffer changes the map without saving
        case2 = module_dir / "tests" / "case2.expected.json"
        data = json.loads(case2.read_text())
        data["meta"]["trace_id"] = "t-1"
        text_area = area(screen, "tests/case2.expected.json")
        text_area.load_text(json.dumps(data, indent=2))
        text_area.post_message(text_area.Changed(text_area))
        await until(
            pilot,
            lambda: any(
                "trace_id" in str(tree.get_option_at_index(i).prompt)
                and "case2" in str(tree.get_option_at_index(i).prompt)
                for i in range(tree.option_count)
            ),
            "trace_id exercised by case2",
        )


async def test_a_fix_saved_elsewhere_shows_valid(module_dir: Path) -> None:
    manifest = module_dir / "module.yaml"
    good = manifest.read_text()
    manifest.write_text(good.replace("tier: decision", "tier: bogus"))
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        assert "M003" in codes(screen) and "✓" not in status(screen)
        manifest.write_text(good)  # another program fixes it
        await until(
            pilot, lambda: "✓ valid" in status(screen), "✓ in the status line", retry=lambda: manifest.write_text(good)
        )
        assert codes(screen) == []
