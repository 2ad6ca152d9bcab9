"""The editor and the disk: edits from any program, save conflicts (reload / overwrite / diff) and $EDITOR."""

from __future__ import annotations

import contextlib
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_editor_kit import (
    SIZE,
    area,
    buffer,
    click,
    codes,
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
from textual.pilot import Pilot
from textual.widgets import Static
from tuikit import screen_of, timers_due

from cogtui.core.files.merge3 import HunkKind, Side
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.editor.checking import VALIDATE_DELAY_S
from cogtui.tui.screens.editor.merge import HunkView, MergeModal
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.modals import ChoiceModal, ConfirmModal
from cogtui.tui.widgets.file_diff import FileDiffModal

__all__ = ["module_dir"]  # the fixture, imported so pytest finds it

BOGUS = "tier: bogus"


def external_edit(path: Path) -> str:
    """What another program writes: the manifest with an invalid tier."""
    text = path.read_text().replace("tier: decision", BOGUS)
    path.write_text(text)
    return text


async def edited_and_changed_on_disk(app: CogtuiApp, pilot: Pilot[None], module: Path) -> tuple[EditorScreen, str, str]:
    """Open the editor, edit module.yaml's version in the buffer, then change the tier on disk behind its back."""
    screen = await open_editor(app, pilot, module)
    await replace_line(pilot, area(screen, "module.yaml"), "version: 2.2.", "version: 2.2.7")
    buffer_text = area(screen, "module.yaml").text
    disk_text = external_edit(module / "module.yaml")
    return screen, buffer_text, disk_text


async def test_a_file_changed_by_another_program_reloads_and_revalidates(module_dir: Path) -> None:
    manifest = module_dir / "module.yaml"
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        yaml_area = area(screen, "module.yaml")
        yaml_area.move_cursor((12, 4))
        external_edit(manifest)
        # The watcher may still be starting: write again (same text) until it reports the change.
        await until(
            pilot, lambda: "M003" in codes(screen), "the reload and M003", retry=lambda: external_edit(manifest)
        )
        assert BOGUS in yaml_area.text and yaml_area.text == manifest.read_text()
        assert yaml_area.cursor_location == (12, 4)
        assert not buffer(screen, "module.yaml").modified
        assert any(n.startswith("Reloaded module.yaml") for n in notes(seen))
        # the browser's report follows (the app itself does not watch in these tests)
        await until(
            pilot,
            lambda: (
                (report := app.store.report(module_dir)) is not None
                and any(d.code == "M003" for d in report.diagnostics)
            ),
            "the app's report",
        )


async def test_a_deleted_file_keeps_its_text_and_save_writes_it_back(module_dir: Path) -> None:
    schema = module_dir / "schema.json"
    original = schema.read_text()
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, schema)
        schema.unlink()

        def delete_again() -> None:  # the watcher may have started after the first delete
            schema.write_text(original)
            schema.unlink()

        await until(pilot, lambda: buffer(screen, "schema.json").deleted, "the deleted mark", retry=delete_again)
        assert area(screen, "schema.json").text == original and "✗" in tab_label(screen, "schema.json")
        assert "deleted on disk" in status(screen)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ChoiceModal)  # the file is gone: nothing happens silently
        await click(pilot, "#choice-recreate")
        await pilot.pause()
        assert schema.read_text() == original and not buffer(screen, "schema.json").deleted


async def test_a_change_seen_as_the_editor_closes_says_nothing_to_the_browser(module_dir: Path) -> None:
    """The watcher's message can reach the editor as escape closes it: its tabs are gone, so is the notice."""
    schema = module_dir / "schema.json"
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_editor(app, pilot, module_dir, schema)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen), "the browser")
        schema.unlink()
        screen.disk.changed(frozenset({schema}))  # what a DiskChanged handled after the close does
        await pilot.pause()
        assert not any("deleted on disk" in n for n in notes(seen)), notes(seen)


async def test_a_change_under_edits_keeps_them_and_marks_the_tab(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen, buffer_text, _disk = await edited_and_changed_on_disk(app, pilot, module_dir)
        await until(
            pilot,
            lambda: buffer(screen, "module.yaml").stale,
            "the changed-on-disk mark",
            retry=lambda: external_edit(module_dir / "module.yaml"),
        )
        assert "⚠" in tab_label(screen, "module.yaml") and "changed on disk" in status(screen)
        assert area(screen, "module.yaml").text == buffer_text


async def test_save_over_a_changed_file_asks_and_cancel_keeps_both(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen, buffer_text, disk_text = await edited_and_changed_on_disk(app, pilot, module_dir)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ChoiceModal)
        assert app.focused is not None and app.focused.id == "choice-merge"  # enter alone discards nothing
        await pilot.press("escape")
        assert app.screen is screen
        assert (module_dir / "module.yaml").read_text() == disk_text
        assert area(screen, "module.yaml").text == buffer_text and screen.has_unsaved_changes()


async def test_conflict_reload_takes_the_disk_version(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen, _buffer, disk_text = await edited_and_changed_on_disk(app, pilot, module_dir)
        await pilot.press("ctrl+s")
        await click(pilot, "#choice-reload")
        await pilot.pause()
        assert area(screen, "module.yaml").text == disk_text == (module_dir / "module.yaml").read_text()
        assert not screen.has_unsaved_changes() and not buffer(screen, "module.yaml").stale
        await until(pilot, lambda: "M003" in codes(screen), "the reloaded file's M003")


async def test_conflict_merge_keeps_both_changes_by_default(module_dir: Path) -> None:
    """Issue 12: overwrite silently reverted the other program's change. The merge keeps it unless told not to."""
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen, _buffer_text, _disk = await edited_and_changed_on_disk(app, pilot, module_dir)
        await pilot.press("ctrl+s")
        assert app.focused is not None and app.focused.id == "choice-merge"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, MergeModal), "the merge view")
        hunks = list(app.screen.query(HunkView))
        assert [h.hunk.kind for h in hunks] == [HunkKind.MINE, HunkKind.THEIRS]
        assert [h.side for h in hunks] == [Side.MINE, Side.THEIRS]
        await pilot.press("ctrl+s")
        await pilot.pause()
        saved = (module_dir / "module.yaml").read_text()
        assert "version: 2.2.7" in saved and BOGUS in saved  # yours and theirs
        assert area(screen, "module.yaml").text == saved
        assert not screen.has_unsaved_changes() and "⚠" not in tab_label(screen, "module.yaml")
        await pilot.press("ctrl+s")  # the disk now matches: saving again asks nothing
        assert app.screen is screen


async def test_conflict_merge_keep_mine_per_hunk_is_explicit(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        _screen, buffer_text, _disk = await edited_and_changed_on_disk(app, pilot, module_dir)
        await pilot.press("ctrl+s", "enter")
        await until(pilot, lambda: isinstance(app.screen, MergeModal), "the merge view")
        await pilot.press("down", "m")  # the second hunk (theirs: the tier) back to mine
        assert [h.side for h in app.screen.query(HunkView)] == [Side.MINE, Side.MINE]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert (module_dir / "module.yaml").read_text() == buffer_text


async def test_conflict_merge_keep_theirs_and_cancel(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen, buffer_text, disk_text = await edited_and_changed_on_disk(app, pilot, module_dir)
        await pilot.press("ctrl+s", "enter")
        await until(pilot, lambda: isinstance(app.screen, MergeModal), "the merge view")
        await pilot.press("escape")  # cancel: nothing written, nothing lost
        await pilot.pause()
        assert app.screen is screen and (module_dir / "module.yaml").read_text() == disk_text
        assert area(screen, "module.yaml").text == buffer_text
        await pilot.press("ctrl+s", "enter")
        await until(pilot, lambda: isinstance(app.screen, MergeModal), "the merge view again")
        await pilot.press("T", "ctrl+s")
        await pilot.pause()
        assert (module_dir / "module.yaml").read_text() == disk_text == area(screen, "module.yaml").text


async def test_a_deleted_file_can_be_closed_and_reload_never_empties_it(module_dir: Path) -> None:
    schema = module_dir / "schema.json"
    original = schema.read_text()
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir, schema)

        def delete_again() -> None:
            schema.write_text(original)
            schema.unlink()

        schema.unlink()
        await until(pilot, lambda: buffer(screen, "schema.json").deleted, "the deleted mark", retry=delete_again)
        await pilot.press("ctrl+l")  # reload: there is nothing to reload from
        await until(pilot, lambda: isinstance(app.screen, ChoiceModal), "the choice")
        assert {b.id for b in app.screen.query("Button")} == {"choice-recreate", "choice-close", "cancel"}
        await pilot.press("escape")
        assert area(screen, "schema.json").text == original  # never emptied
        await pilot.press("ctrl+l")
        await click(pilot, "#choice-close")
        await until(
            pilot,
            lambda: all(b.rel != "schema.json" for b in screen.state.files.values()) and not screen.query("#file-2"),
            "the tab to close, in the state and on screen",
        )
        assert not schema.exists()


async def test_conflict_show_diff_then_asks_again(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen, buffer_text, disk_text = await edited_and_changed_on_disk(app, pilot, module_dir)
        await pilot.press("ctrl+s")
        await click(pilot, "#choice-diff")
        await until(pilot, lambda: isinstance(app.screen, FileDiffModal), "the diff")
        diff = screen_of(app, FileDiffModal).diff_text
        # disk (-) has the other program's tier and the old version; the buffer (+) has the edit
        assert "-version: 2.2.1" in diff and "+version: 2.2.7" in diff
        assert f"-{BOGUS}" in diff and "+tier: decision" in diff
        assert app.screen.query_one("#file-diff-text", Static).display
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ChoiceModal), "the question again")
        await pilot.press("escape")
        assert (module_dir / "module.yaml").read_text() == disk_text
        assert area(screen, "module.yaml").text == buffer_text


async def test_reload_key_with_edits_asks_before_discarding(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await replace_line(pilot, area(screen, "module.yaml"), "version: 2.2.", "version: 2.2.7")
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, ConfirmModal)
        await click(pilot, "#confirm")
        await pilot.pause()
        assert area(screen, "module.yaml").text == (module_dir / "module.yaml").read_text()
        assert not screen.has_unsaved_changes()


# ---------------------------------------------------------------- $EDITOR


@pytest.fixture
def bogus_tier_editor(tmp_path: Path) -> Path:
    """An "editor" that changes the tier to an invalid value and exits."""
    script = tmp_path / "bogus-tier-editor"
    script.write_text("#!/bin/sh\nsed -i 's/^tier: decision$/tier: bogus/' \"$1\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@contextlib.contextmanager
def no_suspend() -> Iterator[None]:
    """Stands in for App.suspend, which the headless test driver cannot do (SuspendNotSupported)."""
    yield


async def test_external_editor_without_a_suspendable_terminal_notifies(
    module_dir: Path, bogus_tier_editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", str(bogus_tier_editor))
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.screen is screen
        assert any("cannot hand over" in n for n in notes(seen))
        assert "tier: decision" in (module_dir / "module.yaml").read_text()  # the editor never ran


async def test_external_editor_changes_are_reloaded_and_revalidated(
    module_dir: Path, bogus_tier_editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", str(bogus_tier_editor))
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        monkeypatch.setattr(app, "suspend", no_suspend)
        screen = await open_editor(app, pilot, module_dir)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert BOGUS in area(screen, "module.yaml").text
        assert area(screen, "module.yaml").text == (module_dir / "module.yaml").read_text()
        assert "Reloaded module.yaml after $EDITOR" in notes(seen)
        await until(pilot, lambda: "M003" in codes(screen), "M003 from the external edit")


async def test_external_editor_on_edits_saves_first(
    module_dir: Path, bogus_tier_editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", str(bogus_tier_editor))
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(app, "suspend", no_suspend)
        screen = await open_editor(app, pilot, module_dir)
        await replace_line(pilot, area(screen, "module.yaml"), "version: 2.2.", "version: 2.2.7")
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, ConfirmModal)
        await click(pilot, "#confirm")
        await pilot.pause()
        on_disk = (module_dir / "module.yaml").read_text()
        assert "version: 2.2.7" in on_disk and BOGUS in on_disk  # our save, then the editor's change
        assert area(screen, "module.yaml").text == on_disk and not screen.has_unsaved_changes()


async def test_a_missing_editor_is_a_notification(module_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISUAL", "/nonexistent/editor --wait")
    app = make_app(module_dir)
    seen: list[Message] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        monkeypatch.setattr(app, "suspend", no_suspend)
        screen = await open_editor(app, pilot, module_dir)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.screen is screen
        assert any("Editor not found: /nonexistent/editor" in n for n in notes(seen))


async def test_an_edit_whose_change_message_is_still_queued_is_not_reloaded_away(module_dir: Path) -> None:
    manifest = module_dir / "module.yaml"
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        yaml_area = area(screen, "module.yaml")
        yaml_area.insert("# typed just now\n", (0, 0))  # its TextArea.Changed is queued, not yet handled
        disk_text = external_edit(manifest)
        screen.disk.changed(frozenset({manifest}))  # what the watcher's DiskChanged handler does
        await pilot.pause()
        assert yaml_area.text.startswith("# typed just now\n")  # the keystroke survived
        buf = buffer(screen, "module.yaml")
        assert buf.modified and buf.stale and manifest.read_text() == disk_text


async def test_a_reload_from_disk_validates_once(module_dir: Path) -> None:
    manifest = module_dir / "module.yaml"
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await timers_due(pilot, VALIDATE_DELAY_S)  # what opening started is done
        started: list[str] = []
        original = screen.validate_now  # every validation starts here (typing, saving, disk changes)

        def counting() -> None:
            started.append("validate")
            original()

        screen.validate_now = counting  # type: ignore[method-assign]
        external_edit(manifest)
        screen.disk.changed(frozenset({manifest}))  # what the watcher's DiskChanged handler does
        await timers_due(pilot, VALIDATE_DELAY_S)  # a Changed message would have started its validation by now
        assert started == ["validate"]
