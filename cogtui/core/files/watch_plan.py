"""Which folders to watch for changes when some folder under the search path cannot be read.

A recursive file watch (watchfiles, inotify underneath) fails as a whole when
one folder under it cannot be listed: one module folder without read
permission would stop watching for every module. The plan leaves such folders
out and keeps the rest watched: a folder with nothing unreadable under it is
watched with everything under it; a folder holding an unreadable one is
watched for its own entries only (so a module appearing there, or the
unreadable folder's permissions changing, is still seen), and each of its
other sub-folders is planned the same way.

Walking the roots costs a listing of every folder under them, so the TUI asks
for a plan only after a plain recursive watch has failed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple


class WatchPlan(NamedTuple):
    recursive: list[Path]  # watched with everything under them
    shallow: list[Path]  # watched for their own entries only: something under them cannot be read
    unreadable: list[Path]  # left out: listing them failed

    @property
    def complete(self) -> bool:
        """Nothing was left out."""
        return not self.unreadable


def plan_watch(roots: Iterable[Path]) -> WatchPlan:
    """The plan for `roots` (folders; one that does not exist is left out, one that cannot be read is listed)."""
    plan = WatchPlan([], [], [])
    for root in roots:
        failed = _unreadable_under(root)
        if not failed:
            plan.recursive.append(root)
        elif root in failed:
            plan.unreadable.append(root)
        else:
            _split(root, failed, plan)
    return plan


def _unreadable_under(root: Path) -> set[Path]:
    """Every folder under `root` (itself included) whose listing fails. Symlinks are not followed (nor are they
    by the watch, which reports a change to the link itself)."""
    failed: set[Path] = set()

    def note(error: OSError) -> None:
        if error.filename is not None:
            failed.add(Path(os.fsdecode(error.filename)))

    for _folder, _dirs, _files in os.walk(root, onerror=note, followlinks=False):
        pass
    return failed


def _split(folder: Path, failed: set[Path], plan: WatchPlan) -> None:
    """`folder` holds an unreadable folder somewhere under it: watch its own entries, plan each sub-folder."""
    plan.shallow.append(folder)
    try:
        children = sorted(Path(e.path) for e in os.scandir(folder) if _is_real_dir(e))
    except OSError:  # it became unreadable since the walk: left out with the others
        plan.shallow.remove(folder)
        plan.unreadable.append(folder)
        return
    for child in children:
        if child in failed:
            plan.unreadable.append(child)
        elif any(child in f.parents for f in failed):
            _split(child, failed, plan)
        else:
            plan.recursive.append(child)


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False
