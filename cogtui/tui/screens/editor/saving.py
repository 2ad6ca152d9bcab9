"""Saving, reloading and the disk changing under the editor: the flows that must never lose a version.

What happens is the core's decision (`core/files/disk_state`), carried out here on the widgets:
- a save checks the disk first. When another program changed the file since it was loaded, the user chooses
  merge (a three-way view, merge.py: yours, theirs and the base, keep-mine or keep-theirs per hunk), show diff
  (then asks again) or reload (drops the buffer). When the file was deleted, the user recreates it from the
  buffer or closes the tab; reload never empties a buffer. Nothing is discarded without an explicit choice;
- closing the editor with unsaved edits asks to save them (each save may ask as above) or discard them;
- a watcher on the module folder reports what any program changed (our own saves too): an unedited tab reloads,
  an edited one is marked stale and keeps its edits until a save merges them, a deleted file's tab keeps its text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.widgets import TextArea
from textual.worker import Worker

from cogtui.core.authoring.editor_files import FileBuffer, language_for, with_newlines
from cogtui.core.files.disk_state import (
    DiskStep,
    ReloadStep,
    SaveStep,
    after_disk_change,
    can_recreate,
    observe,
    on_reload,
    on_save,
)
from cogtui.core.files.editor_snapshot import FileSnapshot, changed_on_disk, save_text
from cogtui.core.files.merge3 import merge3
from cogtui.core.files.sourcemap import ParseFailure
from cogtui.core.files.text_codec import to_lf, unified_diff
from cogtui.core.module.file_changes import is_scratch_file

from ...watching import DEBOUNCE_MS, STEP_MS
from ...widgets.file_diff import FileDiffModal
from ..modals import ChoiceModal, ConfirmModal
from .merge import MergeModal

if TYPE_CHECKING:
    from .view import EditorView

# The first button has the focus, so enter alone never discards a version: "Merge" leads.
CONFLICT_CHOICES = [("merge", "Merge…"), ("diff", "Show diff"), ("reload", "Reload")]
DELETED_CHOICES = [("recreate", "Recreate from buffer"), ("close", "Close tab")]
CLOSE_CHOICES = [("save", "Save and close"), ("discard", "Discard")]  # leaving the editor with unsaved edits


class DiskChanged(Message):
    """Files under the module folder changed on disk (any program, including our own saves)."""

    def __init__(self, paths: frozenset[Path]) -> None:
        super().__init__()
        self.paths = paths


class DiskFlow:
    """The module folder watched, and each change it reports carried out on the open tabs."""

    def __init__(self, editor: EditorView) -> None:
        self.editor = editor

    def watch(self) -> None:
        """Watch the module folder (all of it: a new file too), for as long as the editor is open; each batch of
        changes is posted to the screen as `DiskChanged`, whose handler calls `changed`."""
        screen, root = self.editor.screen, self.editor.module_path

        async def watch_folder() -> None:
            from watchfiles import awatch

            async for changes in awatch(
                root,
                recursive=True,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                watch_filter=lambda _change, path: not is_scratch_file(path),
            ):
                screen.post_message(DiskChanged(frozenset(Path(p) for _change, p in changes)))

        # A failed worker's name is the title of the app's notice of it ("watch the files on disk failed").
        _watch: Worker[None] = screen.run_worker(
            watch_folder, name="watch the files on disk", group="editor-watch", exclusive=True, exit_on_error=False
        )

    def changed(self, paths: frozenset[Path]) -> None:
        """For each tab whose file changed, `disk_state.after_disk_change` decides: reload it, mark it stale or
        deleted; the user is told once, and the module is checked again."""
        editor = self.editor
        if not editor.is_open:  # the watcher's message arrived as the editor closed: no tabs, nobody to tell
            return
        touched = {buf.pane_id: buf for p in paths if (buf := editor.buffer_for(p)) is not None}
        reloaded: list[str] = []
        conflicted: list[str] = []
        deleted: list[str] = []
        for buf in touched.values():
            # From the text itself: a keystroke whose Changed message is still queued must count as an edit.
            buf.modified = not buf.read_only and editor.area(buf).text != buf.saved_lf
            transition = after_disk_change(buf.state, observe(buf.path, buf.snapshot))
            if transition.step is DiskStep.RELOAD:
                self.reload_buffer(buf)
                reloaded.append(buf.rel)
                continue
            buf.state = transition.state
            if transition.step is DiskStep.MARK_STALE:
                conflicted.append(buf.rel)
            elif transition.step is DiskStep.MARK_DELETED:
                deleted.append(buf.rel)
            if transition.step is not DiskStep.NOTHING:
                editor.refresh_buffer(buf)
        if reloaded:
            editor.say(f"Reloaded {', '.join(reloaded)} (changed on disk)", timeout=3)
        if conflicted:
            editor.say(
                f"{', '.join(conflicted)} changed on disk; your edits are kept. "
                "Save (ctrl+s) to merge the two versions.",
                severity="warning",
                timeout=8,
            )
        if deleted:
            editor.say(
                f"{', '.join(deleted)} deleted on disk; the editor keeps the text. "
                "Save (ctrl+s) to recreate it or to close its tab.",
                severity="warning",
                timeout=8,
            )
        others = len(touched) < len(paths)  # files the editor has no tab for (a new test, a folder)
        if reloaded or conflicted or deleted or others:
            editor.validate_now()
            editor.tell_app()

    def reload_buffer(self, buf: FileBuffer) -> None:
        """Load the disk version into the tab, keeping the cursor and scroll position where they still fit."""
        area = self.editor.area(buf)
        row, column = area.cursor_location
        scroll_y = area.scroll_y
        with area.prevent(TextArea.Changed):  # reloading is not an edit, and validation follows anyway
            area.load_text(buf.load())
        language = language_for(buf.path) if buf.highlighted else None
        if area.language != language:  # it grew past (or shrank below) the highlighting limit
            area.language = language
        document = area.document
        row = min(row, document.line_count - 1)
        area.move_cursor((row, min(column, len(document.get_line(row)))))
        area.scroll_to(y=scroll_y, animate=False)
        self.editor.refresh_buffer(buf)

    def replace_text(self, buf: FileBuffer, text: str) -> None:
        """Put `text` (a merge result) in the tab, keeping the cursor where it still fits."""
        area = self.editor.area(buf)
        row, column = area.cursor_location
        with area.prevent(TextArea.Changed):
            area.load_text(text)
        row = min(row, area.document.line_count - 1)
        area.move_cursor((row, min(column, len(area.document.get_line(row)))))


class SaveFlow:
    """The editor's save and reload flows; state changes go through the editor."""

    def __init__(self, editor: EditorView, disk: DiskFlow) -> None:
        self.editor = editor
        self.disk = disk

    # ------------------------------------------------------------ save

    def save(self, buf: FileBuffer, then: Callable[[], None] | None = None) -> None:
        """Save `buf`; `then` runs once the buffer and the disk agree (saved, merged, or reloaded by choice)."""
        if buf.read_only or buf.snapshot is None:
            self.editor.say(f"{buf.rel} is read-only: {buf.problem}", severity="warning")
            return
        step = on_save(observe(buf.path, buf.snapshot))
        if step is SaveStep.MERGE:
            self.resolve_conflict(buf, then)
        elif step is SaveStep.RECREATE_OR_CLOSE:
            self.deleted(buf, then)
        else:
            self.write(buf, then)

    def close(self) -> None:
        """Leave the editor: at once with nothing unsaved, else once the user chose to save (every edited file) or
        to discard."""
        editor = self.editor
        modified = [buf for buf in editor.state.files.values() if buf.modified]
        if not modified:
            editor.app.pop_screen()
            return

        def decided(choice: str | None) -> None:
            if choice == "discard":
                editor.app.pop_screen()
            elif choice == "save":
                self.save_each([b for b in editor.state.files.values() if b.modified], editor.app.pop_screen)

        names = ", ".join(buf.rel for buf in modified)
        body = f"Unsaved edits in {names}. Save them before closing the editor, or discard them?"
        editor.app.push_screen(ChoiceModal("Unsaved edits", body, CLOSE_CHOICES), decided)

    def save_each(self, buffers: list[FileBuffer], then: Callable[[], object]) -> None:
        """Save the buffers one after another (each may ask: a merge, a deleted file), then `then`; a save
        that does not happen (read-only, failed, cancelled) stops there, and `then` never runs."""
        if not buffers:
            then()
            return
        first, *rest = buffers
        self.save(first, lambda: self.save_each(rest, then))

    def resolve_conflict(self, buf: FileBuffer, then: Callable[[], None] | None = None) -> None:
        editor = self.editor

        def decided(choice: str | None) -> None:
            if choice == "diff":
                title = f"{buf.rel}: disk (-) against your buffer (+)"
                editor.app.push_screen(FileDiffModal(title, self.diff(buf)), lambda _: self.resolve_conflict(buf, then))
            elif choice == "reload":
                self.reload_now(buf, f"Reloaded {buf.rel} from disk; your edits were discarded")
                if then is not None:
                    then()
            elif choice == "merge":
                self.merge(buf, then)
            else:
                editor.say(f"{buf.rel} not saved: it changed on disk.", severity="warning", timeout=4)

        body = (
            "Another program changed this file since it was loaded. Merge shows each change (yours, theirs, "
            "and the base) to keep either side; Reload discards your edits."
        )
        editor.app.push_screen(ChoiceModal(f"{buf.rel} changed on disk", body, CONFLICT_CHOICES), decided)

    def merge(self, buf: FileBuffer, then: Callable[[], None] | None = None) -> None:
        """The three-way view: base (what the buffer was loaded from), yours (the buffer), theirs (the disk)."""
        editor = self.editor
        try:
            theirs = FileSnapshot.read(buf.path, buf.root)
        except ParseFailure as failure:
            editor.say(f"{buf.rel} on disk cannot be read: {failure.diagnostic.message}", severity="error")
            return
        if not theirs.exists:
            self.deleted(buf, then)
            return
        merge = merge3(buf.saved_lf, editor.area(buf).text, to_lf(theirs.text))

        def merged(text: str | None) -> None:
            if text is None:
                editor.say(f"{buf.rel} not saved: merge cancelled.", severity="warning", timeout=4)
            elif changed_on_disk(theirs):  # changed again while the merge was open: merge with the newest
                editor.say(f"{buf.rel} changed on disk again; merge once more.", severity="warning")
                self.merge(buf, then)
            else:
                buf.snapshot, buf.saved_lf = theirs, to_lf(theirs.text)
                self.disk.replace_text(buf, text)
                self.write(buf, then)

        editor.app.push_screen(MergeModal(buf.rel, merge), merged)

    def deleted(self, buf: FileBuffer, then: Callable[[], None] | None = None) -> None:
        """The file is gone: recreate it from the buffer, or close the tab; escape keeps both as they are."""
        editor = self.editor

        def decided(choice: str | None) -> None:
            if choice == "recreate":
                self.write(buf, then)
            elif choice == "close":
                editor.close_buffer(buf)
                editor.say(f"Closed {buf.rel} (deleted on disk).", timeout=3)

        if not can_recreate(buf.root) and buf.root is not None:  # the module folder itself went
            body = (
                f"The module folder {buf.root} is gone: renamed, moved or deleted by another program. Recreating "
                "this one file would make a folder holding only it, so that is not offered. The editor keeps the "
                "text until you close the tab (copy what you need first); escape keeps it open."
            )
            choices = [c for c in DELETED_CHOICES if c[0] != "recreate"]
            editor.app.push_screen(ChoiceModal(f"{buf.root.name} is gone", body, choices), decided)
            return
        body = (
            "Another program deleted this file. The editor still holds its text: recreate the file from it, "
            "or close the tab (the text is then gone)."
        )
        editor.app.push_screen(ChoiceModal(f"{buf.rel} was deleted on disk", body, DELETED_CHOICES), decided)

    def diff(self, buf: FileBuffer) -> str:
        try:
            disk = to_lf(FileSnapshot.read(buf.path, buf.root).text)
        except ParseFailure as failure:
            return f"# the version on disk cannot be read: {failure.diagnostic.message}\n"
        return unified_diff(disk, self.editor.area(buf).text, f"disk/{buf.rel}", f"buffer/{buf.rel}")

    def write(self, buf: FileBuffer, then: Callable[[], None] | None = None) -> None:
        editor = self.editor
        assert buf.snapshot is not None  # save() refuses read-only buffers
        text = editor.area(buf).text
        try:
            buf.snapshot = save_text(buf.snapshot, with_newlines(text, buf.snapshot.style.newline))
        except (OSError, UnicodeError) as exc:
            detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            editor.say(f"Could not save {buf.rel}: {detail}", severity="error", timeout=8)
            return
        buf.saved_lf = text
        buf.modified = buf.stale = buf.deleted = False
        editor.refresh_buffer(buf)
        editor.say(f"Saved {buf.rel}", timeout=2)
        editor.validate_now()
        editor.tell_app()
        if then is not None:
            then()

    # ------------------------------------------------------------ reload

    def reload(self, buf: FileBuffer) -> None:
        buf.modified = not buf.read_only and self.editor.area(buf).text != buf.saved_lf
        step = on_reload(buf.state, observe(buf.path, buf.snapshot))
        if step is ReloadStep.RECREATE_OR_CLOSE:
            self.deleted(buf)
            return
        if step is ReloadStep.RELOAD:
            self.reload_now(buf, f"Reloaded {buf.rel}")
            return
        confirm(
            self.editor,
            "Reload from disk?",
            f"Discard your edits to {buf.rel} and load the version on disk?",
            "Reload",
            lambda: self.reload_now(buf, f"Reloaded {buf.rel}; your edits were discarded"),
            danger=True,
        )

    def reload_now(self, buf: FileBuffer, note: str) -> None:
        self.disk.reload_buffer(buf)
        self.editor.say(note, timeout=3)
        self.editor.validate_now()


def confirm(
    editor: EditorView, title: str, body: str, button: str, then: Callable[[], None], danger: bool = False
) -> None:
    """Ask; run `then` only on an explicit yes."""

    def decided(ok: bool | None) -> None:
        if ok:
            then()

    editor.app.push_screen(ConfirmModal(title, body, confirm=button, danger=danger), decided)
