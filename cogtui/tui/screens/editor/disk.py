"""Files changed by any program while the editor has them open: the core's disk-state machine, applied.

For each tab whose file changed, `core/files/disk_state.after_disk_change`
decides (reload, mark stale, mark deleted); this module carries it out on the
widgets and tells the user once. Deleted files keep their text; stale ones
keep their edits until a save merges them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.widgets import TextArea

from cogtui.core.files.disk_state import DiskStep, after_disk_change, observe

from .buffers import FileBuffer, language_for

if TYPE_CHECKING:
    from .view import EditorView


class DiskFlow:
    def __init__(self, editor: EditorView) -> None:
        self.editor = editor

    def changed(self, paths: frozenset[Path]) -> None:
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
