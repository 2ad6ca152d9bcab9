"""The editor when its module's folder is renamed away (QA): it says the folder is gone, and never offers to
recreate the one file, which would make a new folder holding only it under the old name."""

from __future__ import annotations

from pathlib import Path

from test_editor_kit import SIZE, buffer, make_app, module_dir, open_editor, until

from cogtui.core.files.disk_state import can_recreate
from cogtui.tui.screens.modals import ChoiceModal

__all__ = ["module_dir"]  # the fixture, imported so pytest finds it


def test_recreating_needs_the_module_folder(tmp_path: Path) -> None:
    assert can_recreate(tmp_path) and can_recreate(None)
    assert not can_recreate(tmp_path / "renamed-away")


async def test_a_renamed_module_folder_is_said_and_no_file_is_recreated(module_dir: Path) -> None:
    schema = module_dir / "schema.json"
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, schema)
        await pilot.press("x")  # an edit to save
        module_dir.rename(module_dir.with_name(module_dir.name + "-renamed"))
        await pilot.press("ctrl+s")  # the save finds the file gone
        await until(pilot, lambda: isinstance(app.screen, ChoiceModal), "the question")
        assert {b.id for b in app.screen.query("Button")} == {"choice-close", "cancel"}
        await pilot.press("escape")  # keeps the tab and its text
        assert not module_dir.exists()  # nothing was recreated under the old name
        assert buffer(screen, "schema.json").modified  # the edit is still there to copy
