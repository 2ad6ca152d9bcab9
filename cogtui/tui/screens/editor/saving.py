"""Saving, reloading and $EDITOR for the editor screen: the flows that must never lose a version.

What happens is the core's decision (`core/files/disk_state`): a save checks
the disk first. When another program changed the file since it was loaded,
the user chooses merge (a three-way view: yours, theirs, base, keep-mine or
keep-theirs per hunk), show diff (then asks again) or reload (drops the
buffer). When the file was deleted, the user recreates it from the buffer or
closes the tab; reload never empties a buffer. Nothing is discarded without
an explicit choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cogtui.core.files.disk_state import ReloadStep, SaveStep, can_recreate, observe, on_reload, on_save
from cogtui.core.files.editor_snapshot import FileSnapshot, changed_on_disk, save_text
from cogtui.core.files.merge3 import merge3
from cogtui.core.files.sourcemap import ParseFailure
from cogtui.core.files.text_codec import to_lf, unified_diff

from ...widgets.file_diff import FileDiffModal
from ..modals import ChoiceModal, ConfirmModal
from .buffers import FileBuffer, with_newlines
from .disk import DiskFlow
from .external import run_external_editor
from .merge import MergeModal

if TYPE_CHECKING:
    from .view import EditorView

# The first button has the focus, so enter alone never discards a version: "Merge" leads.
CONFLICT_CHOICES = [("merge", "Merge…"), ("diff", "Show diff"), ("reload", "Reload")]
DELETED_CHOICES = [("recreate", "Recreate from buffer"), ("close", "Close tab")]
CLOSE_CHOICES = [("save", "Save and close"), ("discard", "Discard")]  # leaving the editor with unsaved edits


class SaveFlow:
    """The editor's save / reload / external-editor flows; state changes go through the editor."""

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
        self.after_confirm(
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

    # ------------------------------------------------------------ $EDITOR

    def external_editor(self, buf: FileBuffer) -> None:
        if not buf.modified:
            self.open_external(buf)
            return
        self.after_confirm(
            "Save first?",
            f"{buf.rel} has unsaved edits. Save them, then open the file in $EDITOR?",
            "Save and open",
            lambda: self.save(buf, then=lambda: self.open_external(buf)),
        )

    def open_external(self, buf: FileBuffer) -> None:
        result = run_external_editor(self.editor.app, buf.path)
        if result.problem:
            self.editor.say(result.problem, severity="warning" if result.ran else "error", timeout=8)
        if result.ran:
            self.after_external_edit(buf)

    def after_external_edit(self, buf: FileBuffer) -> None:
        """The external editor returned: the disk is the truth now."""
        self.reload_now(buf, f"Reloaded {buf.rel} after $EDITOR")
        self.editor.tell_app()

    def after_confirm(
        self, title: str, body: str, confirm: str, then: Callable[[], None], danger: bool = False
    ) -> None:
        """Ask; run `then` only on an explicit yes."""

        def decided(ok: bool | None) -> None:
            if ok:
                then()

        self.editor.app.push_screen(ConfirmModal(title, body, confirm=confirm, danger=danger), decided)
