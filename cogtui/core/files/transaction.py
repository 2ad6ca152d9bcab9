"""All-or-nothing file changes inside one folder.

`commit()` first writes every new file to a hidden temp file next to its
target (fsynced), then runs a hook (the backup), then renames the temp files
into place and deletes what goes. A path whose folder resolves outside the
root (a symlinked examples/ pointing elsewhere, a `..` in a backup manifest)
is refused before anything is touched: OutsideRootError. If anything raises,
`rollback()` puts back the bytes every touched path had before (held in
memory), removes files and folders the transaction created, and re-raises. A committed transaction can
still be rolled back, until it is discarded (post-write validation uses that).

Kills are covered by a journal (`.cogtui-journal.json` in the root, see
journal.py): written before the first temp file, it says which temp files and
folders are ours and whether the renames had begun. `recover(root)` (run before
any migrate or undo) rolls a transaction killed before its renames back, and
finishes one killed during them, and says which.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cogtui.core.files.journal import Journal, fault_point, fsync_dir, is_plain_empty_dir, write_durable

__all__ = [
    "FileTransaction",
    "OutsideRootError",
    "RollbackIncomplete",
    "fsync_dir",
    "is_plain_empty_dir",
    "write_durable",
]


class OutsideRootError(OSError):
    """A path of the transaction lies outside its root folder once symlinks are followed."""


class RollbackIncomplete(OSError):
    """A rollback could not put back every path (`failed`: path and why); it put back all the others."""

    def __init__(self, failed: list[tuple[Path, OSError]]) -> None:
        shown = "; ".join(f"{path.name}: {exc.strerror or exc}" for path, exc in failed)
        super().__init__(errno.EIO, f"could not put back {shown}")
        self.failed = failed


@dataclass
class _Staged:
    target: Path
    data: bytes
    temp: Path | None = None


@dataclass
class FileTransaction:
    root: Path
    _writes: list[_Staged] = field(default_factory=list)
    _deletes: list[Path] = field(default_factory=list)
    # What each touched path held before: bytes, or None when it did not exist.
    _before: dict[Path, bytes | None] = field(default_factory=dict)
    _made_dirs: list[Path] = field(default_factory=list)
    _removed_dirs: list[Path] = field(default_factory=list)
    _touched: list[Path] = field(default_factory=list)
    note: dict[str, str] = field(default_factory=dict)  # recorded in the journal (e.g. the backup folder)
    journal: bool = False  # migrate and undo: survive a kill (journal.py); an editor save needs no journal

    def write(self, rel: str, data: bytes) -> None:
        self._writes.append(_Staged(self.root / rel, data))

    def delete(self, rel: str) -> None:
        self._deletes.append(self.root / rel)

    @property
    def made_dirs(self) -> list[Path]:
        return list(self._made_dirs)

    def _check_inside(self) -> None:
        root = self.root.resolve()
        for path in [s.target for s in self._writes] + self._deletes:
            # The folder must be inside; the last part may be a symlink (replacing or removing a link is local).
            if not path.parent.resolve().is_relative_to(root):
                raise OutsideRootError(errno.EXDEV, "outside the folder, through a symlink or '..'", str(path))

    def commit(self, before_rename: Callable[[], None] | None = None) -> None:
        self._check_inside()
        journal = Journal(self.root, enabled=self.journal)
        try:
            for path in [s.target for s in self._writes] + self._deletes:
                self._before[path] = path.read_bytes() if path.exists() else None
            for staged in self._writes:
                staged.temp = staged.target.parent / f".{staged.target.name}.{secrets.token_hex(4)}.cogtui-tmp"
            journal.write(
                "staged",
                [(s.target, s.temp) for s in self._writes],  # type: ignore[misc]
                self._deletes,
                _missing_dirs([s.target.parent for s in self._writes]),
                self.note,
            )
            for staged in self._writes:
                self._stage(staged)
            fault_point("staged")
            if before_rename is not None:
                before_rename()
            fault_point("before-rename")
            journal.advance("renaming")
            for n, staged in enumerate(self._writes, 1):
                mode = _mode(staged.target)
                os.replace(staged.temp, staged.target)  # type: ignore[arg-type]
                self._touched.append(staged.target)  # after: a rename that failed left the target as it was
                staged.temp = None
                if mode is not None:
                    os.chmod(staged.target, mode)
                fault_point(f"renamed-{n}")
            for n, path in enumerate(self._deletes, 1):
                path.unlink()
                self._touched.append(path)
                fault_point(f"deleted-{n}")
            self._prune_empty_dirs()
            for folder in {s.target.parent for s in self._writes} | {self.root}:
                fsync_dir(folder)
            fault_point("before-journal-removed")
            journal.remove()
        except BaseException:
            try:
                self.rollback()  # RollbackIncomplete, if raised, names what is left and carries this error
            finally:
                journal.remove()
            raise

    def _stage(self, staged: _Staged) -> None:
        folder = staged.target.parent
        missing = []
        probe = folder
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        for d in reversed(missing):
            d.mkdir()
            self._made_dirs.append(d)
        write_durable(staged.temp, staged.data)  # type: ignore[arg-type]

    def _prune_empty_dirs(self) -> None:
        """Folders emptied by deletions (e.g. examples/ once its pairs became tests/) go too."""
        for folder in sorted({p.parent for p in self._deletes}, key=lambda p: len(p.parts), reverse=True):
            if folder != self.root and is_plain_empty_dir(folder):
                folder.rmdir()
                self._removed_dirs.append(folder)

    def rollback(self) -> None:
        """Restore every path this transaction touched; plain writes, so a failing rename cannot block it.

        A path that cannot be put back (its file made read-only or immutable meanwhile) does not stop the
        others: every other path is restored, the temp files go, then RollbackIncomplete names what is left
        (a second rollback tries those again). A path already holding its old bytes is not written."""
        failed: list[tuple[Path, OSError]] = []
        for folder in reversed(self._removed_dirs):
            with contextlib.suppress(OSError):
                folder.mkdir(parents=True, exist_ok=True)
        for path in reversed(self._touched):
            try:
                _put_back(path, self._before.get(path))
            except OSError as exc:
                failed.append((path, exc))
        for staged in self._writes:
            if staged.temp is not None:
                with contextlib.suppress(OSError):
                    staged.temp.unlink()
                staged.temp = None
        for folder in reversed(self._made_dirs):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self._touched = [path for path, _ in reversed(failed)]
        self._made_dirs.clear()
        self._removed_dirs.clear()
        if failed:
            raise RollbackIncomplete(failed)


def _put_back(path: Path, before: bytes | None) -> None:
    """`path` as it was: gone when it did not exist, else its old bytes (not written again if it holds them)."""
    if before is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    with contextlib.suppress(OSError):
        if path.read_bytes() == before:
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_durable(path, before)


def _missing_dirs(folders: list[Path]) -> list[Path]:
    """Folders that do not exist yet (and will be made for the writes), outermost first."""
    out: list[Path] = []
    for folder in folders:
        chain = []
        probe = folder
        while not probe.exists():
            chain.append(probe)
            probe = probe.parent
        out += [d for d in reversed(chain) if d not in out]
    return out


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None
