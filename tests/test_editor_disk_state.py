"""The editor's disk-state machine (core/files/disk_state.py) and the three-way merge (core/files/merge3.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogtui.core.files.disk_state import (
    BufferState,
    Disk,
    DiskStep,
    ReloadStep,
    SaveStep,
    after_disk_change,
    observe,
    on_reload,
    on_save,
)
from cogtui.core.files.editor_snapshot import FileSnapshot, save_text
from cogtui.core.files.merge3 import HunkKind, Side, merge3

CLEAN = BufferState()
MODIFIED = BufferState(modified=True)
STALE = BufferState(modified=True, stale=True)
DELETED = BufferState(deleted=True)


def test_observe_tells_same_changed_and_missing(tmp_path: Path) -> None:
    path = tmp_path / "module.yaml"
    path.write_text("a: 1\n")
    snapshot = FileSnapshot.read(path)
    assert observe(path, snapshot) is Disk.SAME
    path.write_text("a: 2\n")
    assert observe(path, snapshot) is Disk.CHANGED
    path.unlink()
    assert observe(path, snapshot) is Disk.MISSING
    # a file that did not exist when loaded and still does not: nothing happened
    assert observe(path, FileSnapshot.read(path)) is Disk.SAME
    # our own save moves the snapshot on: the disk agrees again
    path.write_text("a: 1\n")
    saved = save_text(FileSnapshot.read(path), "a: 3\n")
    assert observe(path, saved) is Disk.SAME


def test_observe_without_a_snapshot_counts_any_event(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00")
    assert observe(path, None) is Disk.CHANGED
    path.unlink()
    assert observe(path, None) is Disk.MISSING


@pytest.mark.parametrize(
    ("state", "disk", "next_state", "step"),
    [
        (CLEAN, Disk.CHANGED, CLEAN, DiskStep.RELOAD),
        (MODIFIED, Disk.CHANGED, STALE, DiskStep.MARK_STALE),
        (STALE, Disk.CHANGED, STALE, DiskStep.REMARK),  # announced once
        (CLEAN, Disk.MISSING, DELETED, DiskStep.MARK_DELETED),  # never reloaded to empty
        (MODIFIED, Disk.MISSING, BufferState(modified=True, deleted=True), DiskStep.MARK_DELETED),
        (STALE, Disk.MISSING, BufferState(modified=True, deleted=True), DiskStep.MARK_DELETED),
        (DELETED, Disk.MISSING, DELETED, DiskStep.REMARK),
        (DELETED, Disk.CHANGED, CLEAN, DiskStep.RELOAD),  # recreated by another program, no edits: take it
        (BufferState(modified=True, deleted=True), Disk.CHANGED, STALE, DiskStep.MARK_STALE),
        (STALE, Disk.SAME, MODIFIED, DiskStep.REMARK),  # the other program undid its change
        (MODIFIED, Disk.SAME, MODIFIED, DiskStep.NOTHING),
        (CLEAN, Disk.SAME, CLEAN, DiskStep.NOTHING),
    ],
)
def test_after_disk_change(state: BufferState, disk: Disk, next_state: BufferState, step: DiskStep) -> None:
    transition = after_disk_change(state, disk)
    assert (transition.state, transition.step) == (next_state, step)


def test_no_disk_event_ever_drops_edits() -> None:
    for state in (MODIFIED, STALE, BufferState(modified=True, deleted=True)):
        for disk in Disk:
            transition = after_disk_change(state, disk)
            assert transition.step is not DiskStep.RELOAD and transition.state.modified


def test_save_and_reload_steps() -> None:
    assert on_save(Disk.SAME) is SaveStep.WRITE
    assert on_save(Disk.CHANGED) is SaveStep.MERGE
    assert on_save(Disk.MISSING) is SaveStep.RECREATE_OR_CLOSE
    assert on_reload(CLEAN, Disk.SAME) is ReloadStep.RELOAD
    assert on_reload(MODIFIED, Disk.CHANGED) is ReloadStep.CONFIRM
    assert on_reload(DELETED, Disk.MISSING) is ReloadStep.RECREATE_OR_CLOSE
    assert on_reload(CLEAN, Disk.MISSING) is ReloadStep.RECREATE_OR_CLOSE
    assert [s.name for s in (CLEAN, MODIFIED, STALE, DELETED)] == ["clean", "modified", "stale", "deleted"]


# ------------------------------------------------------------------ three-way merge

BASE = "name: x\nversion: 1\ntier: decision\nrisk: low\n"


def test_changes_on_different_lines_keep_both_by_default() -> None:
    mine = BASE.replace("version: 1", "version: 2")
    theirs = BASE.replace("risk: low", "risk: high") + "extra: yes\n"
    merge = merge3(BASE, mine, theirs)
    assert [h.kind for h in merge.hunks] == [HunkKind.MINE, HunkKind.THEIRS]
    assert merge.conflicts == []
    assert merge.text() == "name: x\nversion: 2\ntier: decision\nrisk: high\nextra: yes\n"


def test_choosing_mine_everywhere_is_explicit_per_hunk() -> None:
    mine = BASE.replace("version: 1", "version: 2")
    theirs = BASE.replace("risk: low", "risk: high")
    merge = merge3(BASE, mine, theirs)
    assert merge.text({1: Side.MINE}) == mine  # reverting theirs needs this choice
    assert merge.text({0: Side.THEIRS}) == theirs


def test_a_conflict_defaults_to_mine_and_can_take_theirs() -> None:
    mine = BASE.replace("tier: decision", "tier: exec")
    theirs = BASE.replace("tier: decision", "tier: exploration")
    merge = merge3(BASE, mine, theirs)
    (hunk,) = merge.hunks
    assert hunk.kind is HunkKind.CONFLICT and hunk.base == ("tier: decision\n",) and hunk.base_start == 2
    assert hunk.mine == ("tier: exec\n",) and hunk.theirs == ("tier: exploration\n",)
    assert merge.text() == mine and merge.text({0: Side.THEIRS}) == theirs
    assert merge.choices() == {0: Side.MINE}


def test_identical_changes_merge_once() -> None:
    both = BASE.replace("risk: low", "risk: medium")
    merge = merge3(BASE, both, both)
    assert [h.kind for h in merge.hunks] == [HunkKind.BOTH_SAME] and merge.text() == both


def test_insertions_at_both_ends_and_adjacent_edits() -> None:
    merge = merge3(BASE, "# top\n" + BASE, BASE + "# end\n")
    assert merge.text() == "# top\n" + BASE + "# end\n"
    # touching edits (line 2 by mine, line 3 by theirs) are one conflict: never guessed
    mine = BASE.replace("version: 1", "version: 2")
    theirs = BASE.replace("tier: decision", "tier: exec")
    (hunk,) = merge3(BASE, mine, theirs).hunks
    assert hunk.kind is HunkKind.CONFLICT
    assert hunk.mine == ("version: 2\n", "tier: decision\n") and hunk.theirs == ("version: 1\n", "tier: exec\n")


def test_empty_base_and_missing_final_newline() -> None:
    (hunk,) = merge3("", "a\n", "b").hunks
    assert hunk.kind is HunkKind.CONFLICT
    assert merge3("", "a\n", "b").text({0: Side.THEIRS}) == "b"
    assert merge3("x", "x", "x").hunks == [] and merge3("x", "x", "x").text() == "x"


# ------------------------------------------------------------------ find (core/files/text_search.py)


def test_find_next_wraps_and_uses_smart_case() -> None:
    from cogtui.core.files.text_search import Match, count_matches, find_next

    lines = ["name: Alpha", "tier: decision", "alpha again"]
    assert find_next(lines, "alpha", 0, 0) == Match(0, 6, 11)
    assert find_next(lines, "alpha", 0, 7) == Match(2, 0, 5)  # after the cursor
    assert find_next(lines, "alpha", 2, 1) == Match(0, 6, 11, wrapped=True)
    assert find_next(lines, "Alpha", 0, 7) == Match(0, 6, 11, wrapped=True)  # capitals: exact case only
    assert find_next(lines, "zzz", 0, 0) is None and find_next(lines, "", 0, 0) is None
    assert count_matches(lines, "alpha") == 2 and count_matches(lines, "Alpha") == 1
