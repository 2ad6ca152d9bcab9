"""All-or-nothing file changes inside one folder.

`commit()` first writes every new file to a hidden temp file next to its
target (fsynced), then runs a hook (the backup), then renames the temp files
into place and deletes what goes. A path whose folder resolves outside the
root (a symlinked examples/ pointing elsewhere, a `..` in a backup manifest)
is refused before anything is touched: OutsideRootError. If anything raises,
`rollback()` puts back the bytes every touched path had before (held in
memory), removes files and folders the transaction created, and re-raises. A committed transaction can
still be rolled back, until it is discarded (post-write validation uses that).
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


class OutsideRootError(OSError):
    """A path of the transaction lies outside its root folder once symlinks are followed."""


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

    def write(self, rel: str, data: bytes) -> None:
        self._writes.append(_Staged(self.root / rel, data))

    def delete(self, rel: str) -> None:
        self._deletes.append(self.root / rel)

    @property
    def made_dirs(self) -> list[Path]:
        return list(self._made_dirs)

    @property
    def removed_dirs(self) -> list[Path]:
        return list(self._removed_dirs)

    def _check_inside(self) -> None:
        root = self.root.resolve()
        for path in [s.target for s in self._writes] + self._deletes:
            # The folder must be inside; the last part may be a symlink (replacing or removing a link is local).
            if not path.parent.resolve().is_relative_to(root):
                raise OutsideRootError(errno.EXDEV, "outside the folder, through a symlink or '..'", str(path))

    def commit(self, before_rename: Callable[[], None] | None = None) -> None:
        self._check_inside()
        try:
            for path in [s.target for s in self._writes] + self._deletes:
                self._before[path] = path.read_bytes() if path.exists() else None
            for staged in self._writes:
                self._stage(staged)
            if before_rename is not None:
                before_rename()
            for staged in self._writes:
                mode = _mode(staged.target)
                self._touched.append(staged.target)
                os.replace(staged.temp, staged.target)  # type: ignore[arg-type]
                staged.temp = None
                if mode is not None:
                    os.chmod(staged.target, mode)
            for path in self._deletes:
                self._touched.append(path)
                path.unlink()
            self._prune_empty_dirs()
            for folder in {s.target.parent for s in self._writes} | {self.root}:
                fsync_dir(folder)
        except BaseException:
            self.rollback()
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
        temp = folder / f".{staged.target.name}.{secrets.token_hex(4)}.cogtui-tmp"
        staged.temp = temp
        write_durable(temp, staged.data)

    def _prune_empty_dirs(self) -> None:
        """Folders emptied by deletions (e.g. examples/ once its pairs became tests/) go too."""
        for folder in sorted({p.parent for p in self._deletes}, key=lambda p: len(p.parts), reverse=True):
            if folder != self.root and is_plain_empty_dir(folder):
                folder.rmdir()
                self._removed_dirs.append(folder)

    def rollback(self) -> None:
        """Restore every path this transaction touched; plain writes, so a failing rename cannot block it."""
        for folder in reversed(self._removed_dirs):
            folder.mkdir(parents=True, exist_ok=True)
        for path in reversed(self._touched):
            before = self._before.get(path)
            if before is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_durable(path, before)
        for staged in self._writes:
            if staged.temp is not None:
                with contextlib.suppress(FileNotFoundError):
                    staged.temp.unlink()
                staged.temp = None
        for folder in reversed(self._made_dirs):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self._touched.clear()
        self._made_dirs.clear()
        self._removed_dirs.clear()


def is_plain_empty_dir(folder: Path) -> bool:
    """An empty real folder; a symlink to one is left alone (rmdir cannot remove it, and it is not ours)."""
    try:
        return not folder.is_symlink() and folder.is_dir() and not any(folder.iterdir())
    except OSError:
        return False


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


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
