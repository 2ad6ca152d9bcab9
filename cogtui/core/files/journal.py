"""The journal that makes a FileTransaction survive a kill, and the durable-write helpers it needs.

`.cogtui-journal.json` in the transaction's root records, before any temp file
exists, every temp file, target, deletion and new folder, plus the state:

- `staged`: temp files may exist, nothing was renamed yet. Recovery rolls back:
  it removes the temp files, the new folders and a recorded backup folder.
- `renaming`: the backup is durable and renames have begun. Recovery finishes:
  it renames the temp files that are left and makes the deletions.

The journal itself is replaced atomically (temp file, fsync, rename), so it is
either the old state or the new one. `COGTUI_FAULT_AT=<step>` kills the process
with SIGKILL at a named step (tests use it to kill a migration at every step).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
from pathlib import Path
from typing import Any

from cogtui.core.files.confined import safe_resolve

JOURNAL = ".cogtui-journal.json"
FAULT_ENV = "COGTUI_FAULT_AT"


def fault_point(step: str) -> None:
    """Fault injection for the crash tests: die here, as a kill -9 would, when asked to."""
    if os.environ.get(FAULT_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


def write_durable(path: Path, data: bytes) -> None:
    """Write and fsync one file (for new files such as backups; replacing a file goes through a transaction)."""
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def fsync_dir(folder: Path) -> None:
    # Makes the renames durable on POSIX; some platforms cannot open a folder, which is fine.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def is_plain_empty_dir(folder: Path) -> bool:
    """An empty real folder; a symlink to one is left alone (rmdir cannot remove it, and it is not ours)."""
    try:
        return not folder.is_symlink() and folder.is_dir() and not any(folder.iterdir())
    except OSError:
        return False


class Journal:
    def __init__(self, root: Path, enabled: bool = True) -> None:
        self.enabled = enabled
        self.root = root
        self.path = root / JOURNAL
        self.doc: dict[str, Any] = {}

    def _rel(self, path: Path) -> str:
        return str(path.relative_to(self.root))

    def write(
        self,
        state: str,
        writes: list[tuple[Path, Path]],
        deletes: list[Path],
        made_dirs: list[Path],
        note: dict[str, str],
    ) -> None:
        self.doc = {
            "state": state,
            "writes": [[self._rel(t), self._rel(tmp)] for t, tmp in writes],
            "deletes": [self._rel(p) for p in deletes],
            "made_dirs": [self._rel(d) for d in made_dirs],
            "note": dict(note),
        }
        self._save()

    def advance(self, state: str) -> None:
        self.doc["state"] = state
        self._save()

    def _save(self) -> None:
        if not self.enabled:
            return
        temp = self.root / (JOURNAL + ".cogtui-tmp")
        write_durable(temp, json.dumps(self.doc, indent=1).encode("utf-8"))
        os.replace(temp, self.path)
        fsync_dir(self.root)

    def remove(self) -> None:
        if not self.enabled:
            return
        for path in (self.path, self.root / (JOURNAL + ".cogtui-tmp")):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        fsync_dir(self.root)


def pending(root: Path) -> bool:
    """A transaction in this folder was interrupted (a journal, or a half-written one, is left)."""
    return (root / JOURNAL).exists() or (root / (JOURNAL + ".cogtui-tmp")).exists()


def recover(root: Path) -> str | None:
    """Finish or roll back a transaction interrupted in `root`: "finished", "rolled back", or None if none was."""
    journal = Journal(root)
    if not journal.path.exists():
        if pending(root):  # killed while writing the first journal: no temp file had been made yet
            journal.remove()
            return "rolled back"
        return None
    try:
        doc = json.loads(journal.path.read_bytes())
        writes = [(root / t, root / tmp) for t, tmp in doc["writes"]]
        deletes = [root / p for p in doc["deletes"]]
        made_dirs = [root / d for d in doc["made_dirs"]]
        note = doc.get("note") or {}
        state = doc["state"]
    except (OSError, ValueError, KeyError, TypeError):
        journal.remove()  # written atomically, so unreadable means not ours: nothing to act on
        return None
    inside = [p for p, _ in writes] + [t for _, t in writes] + deletes + made_dirs
    if any(not safe_resolve(p).is_relative_to(safe_resolve(root)) for p in inside):
        journal.remove()  # a journal pointing outside the folder was not written by us
        return None
    if state == "renaming":
        for target, temp in writes:
            if temp.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(temp, target)
        for path in deletes:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        for folder in sorted({p.parent for p in deletes}, key=lambda p: len(p.parts), reverse=True):
            if folder != root and is_plain_empty_dir(folder):
                folder.rmdir()
        outcome = "finished"
    else:
        for _, temp in writes:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        for folder in reversed(made_dirs):
            with contextlib.suppress(OSError):
                folder.rmdir()
        backup = note.get("backup")
        if backup:
            shutil.rmtree(backup, ignore_errors=True)
            with contextlib.suppress(OSError):
                Path(backup).parent.rmdir()
        outcome = "rolled back"
    for folder in {p.parent for p, _ in writes} | {root}:
        fsync_dir(folder)
    journal.remove()
    return outcome
