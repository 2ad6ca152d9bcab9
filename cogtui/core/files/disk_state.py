"""The editor's disk-state machine: what an open buffer does when its file changes, is saved or reloaded.

A buffer is in one of four states against its file: clean (the text is what
was loaded), modified (edited, the disk unchanged), stale (edited, and another
program changed the disk meanwhile) or deleted (the file is gone; the text is
kept whatever it holds). Each event (the disk was seen to change, the user
saves, the user reloads) maps a state and what is on disk now to the next
state and one step for the screen to take. No step ever discards text that
exists only in the buffer or only on disk without the user's explicit choice:

- a change under edits keeps the edits and marks the buffer stale;
- saving over a changed file leads to a merge (yours, theirs, base), never a silent overwrite;
- a deleted file is never "reloaded" to empty: the user recreates it from the buffer or closes it,
  recreating only while its module folder exists (`can_recreate`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from cogtui.core.files.editor_snapshot import FileSnapshot, changed_on_disk
from cogtui.core.files.module_folder import is_dir


class Disk(StrEnum):
    """What is on disk now, compared with the snapshot the buffer was loaded (or last saved) from."""

    SAME = "same"
    CHANGED = "changed"  # exists, with other bytes
    MISSING = "missing"  # gone (and it existed when loaded)


def observe(path: Path, snapshot: FileSnapshot | None) -> Disk:
    """Compare the disk with `snapshot` (None: the file could not be read when loaded, so any event is a change)."""
    if snapshot is not None and not changed_on_disk(snapshot):
        return Disk.SAME
    if not path.exists():
        return Disk.MISSING if snapshot is None or snapshot.exists else Disk.SAME
    return Disk.CHANGED


@dataclass(frozen=True)
class BufferState:
    modified: bool = False  # the text differs from what was loaded or last saved
    stale: bool = False  # the disk changed under the edits; saving goes through a merge
    deleted: bool = False  # the file is gone from disk; the buffer keeps its text

    @property
    def name(self) -> str:
        if self.deleted:
            return "deleted"
        if self.stale:
            return "stale"
        return "modified" if self.modified else "clean"


class DiskStep(StrEnum):
    """What the screen does after the disk was seen to change."""

    NOTHING = "nothing"
    RELOAD = "reload"  # no edits: take the disk version
    MARK_STALE = "mark-stale"  # edits kept; say so once
    MARK_DELETED = "mark-deleted"  # text kept; say so once
    REMARK = "remark"  # the state changed but was already announced (e.g. stale again): refresh only


@dataclass(frozen=True)
class Transition:
    state: BufferState
    step: DiskStep


def after_disk_change(state: BufferState, disk: Disk) -> Transition:
    """The disk was seen to change (the watcher fired); `state.modified` must come from the text itself."""
    if disk is Disk.MISSING:
        step = DiskStep.REMARK if state.deleted else DiskStep.MARK_DELETED
        return Transition(replace(state, deleted=True, stale=False), step)
    if disk is Disk.SAME:
        # Back to what was loaded (e.g. another program undid its change): nothing to resolve any more.
        changed = state.stale or state.deleted
        return Transition(replace(state, stale=False, deleted=False), DiskStep.REMARK if changed else DiskStep.NOTHING)
    # Disk.CHANGED
    if not state.modified:
        return Transition(BufferState(), DiskStep.RELOAD)
    step = DiskStep.REMARK if state.stale else DiskStep.MARK_STALE
    return Transition(replace(state, stale=True, deleted=False), step)


class SaveStep(StrEnum):
    WRITE = "write"  # the disk is as loaded: write the buffer
    MERGE = "merge"  # another program changed it: merge yours, theirs and base first
    RECREATE_OR_CLOSE = "recreate-or-close"  # it is gone: recreate it from the buffer, or close the tab


def on_save(disk: Disk) -> SaveStep:
    if disk is Disk.MISSING:
        return SaveStep.RECREATE_OR_CLOSE
    return SaveStep.MERGE if disk is Disk.CHANGED else SaveStep.WRITE


class ReloadStep(StrEnum):
    RELOAD = "reload"  # nothing to lose
    CONFIRM = "confirm"  # edits would be discarded: ask first
    RECREATE_OR_CLOSE = "recreate-or-close"  # nothing on disk to reload from: never empty the buffer


def on_reload(state: BufferState, disk: Disk) -> ReloadStep:
    if disk is Disk.MISSING:
        return ReloadStep.RECREATE_OR_CLOSE
    return ReloadStep.CONFIRM if state.modified else ReloadStep.RELOAD


def can_recreate(root: Path | None) -> bool:
    """A deleted file may be written back from the editor's text while its module folder exists; once the folder
    itself is gone (renamed, moved, deleted), writing it back would make a new folder holding that one file."""
    return root is None or is_dir(root)
