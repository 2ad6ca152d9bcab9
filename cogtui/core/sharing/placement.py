"""Putting a module folder into a search path root in one step, and taking one out (SHARE-6).

A module is written into a hidden staging folder inside the root it goes to (`.cogtui-staging-<pid>-<hex>`,
which discovery skips: its name starts with '.'), so it is on the same file system and validated where it
will live. Placing it is one `rename` of the staged folder onto its name; a folder it replaces is renamed
into the staging folder first and put back if anything fails before the lock is written. A reader of the
search path sees the old module or the new one, never a mix. Removing renames the folder into the staging
folder, then deletes it.

One `cogn add`, `update` or `remove` works on a root at a time: the root folder is locked (`flock`) for the
whole command, and a second one is told another is at work. Holding the lock, any staging folder left by a
killed command is deleted.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from pathlib import Path

from cogtui.core.files.journal import fsync_dir, write_durable

STAGING_PREFIX = ".cogtui-staging-"

try:
    import fcntl
except ImportError:  # not POSIX: no lock, as if no other command ran at once
    fcntl = None  # type: ignore[assignment]


class RootBusy(Exception):
    """Another cogn add, update or remove holds the root."""


class Staging:
    """The staging folder of one command in `root`; `close` deletes it and releases the root. The root is
    locked at once when it exists or `create` asks for it (it is made then), else when something is first
    written: asking about a level that has no modules folder does not make one."""

    def __init__(self, root: Path, create: bool = True) -> None:
        self.root = root
        self._fd: int | None = None
        self._folder: Path | None = None
        self._count = 0
        if create or root.is_dir():
            self._open()

    def _open(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root, os.O_RDONLY)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise RootBusy(f"another cogn add, update or remove is working in {self.root}") from None
        self._fd = fd
        for left in self.root.glob(STAGING_PREFIX + "*"):  # a killed command's: no other command holds the root
            shutil.rmtree(left, ignore_errors=True)

    @property
    def folder(self) -> Path:
        """The staging folder, made (and the root locked) when first needed."""
        if self._fd is None:
            self._open()
        if self._folder is None:
            self._folder = self.root / f"{STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
            self._folder.mkdir()
        return self._folder

    def _slot(self, label: str) -> Path:
        self._count += 1
        slot = self.folder / f"{self._count}-{label}"
        slot.mkdir()
        return slot

    def write(self, name: str, files: dict[str, bytes]) -> Path:
        """The files written into a new folder `name` of the staging folder (plain files, mode 0644 as the
        umask allows, synced to disk); its path."""
        folder = self._slot("new") / name
        folder.mkdir()
        for rel, data in sorted(files.items()):
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            write_durable(path, data)
        return folder

    def rename(self, staged: Path, name: str) -> Path:
        """A staged folder given another name (the module's own, once its manifest was read)."""
        if staged.name == name:
            return staged
        return staged.rename(staged.parent / name)

    def place(self, staged: Path, name: str) -> Path | None:
        """`staged` renamed to `root/name`. What was there is moved into the staging folder; its place there
        is returned (for `restore`), or None when nothing was there."""
        target = self.root / name
        previous = None
        if os.path.lexists(target):
            previous = self.take_away(name)
        try:
            os.rename(staged, target)
        except BaseException:
            if previous is not None:
                os.rename(previous, target)
            raise
        fsync_dir(self.root)
        return previous

    def take_away(self, name: str) -> Path:
        """`root/name` moved into the staging folder (deleted with it at `close`); its place there."""
        away = self._slot("old") / name
        os.rename(self.root / name, away)
        return away

    def restore(self, name: str, previous: Path | None) -> None:
        """`root/name` back as it was before `place` or `take_away` (`previous` None: nothing was there)."""
        target = self.root / name
        if os.path.lexists(target):  # what `place` put there: set aside, deleted at `close`
            os.rename(target, self._slot("undone") / name)
        if previous is not None:
            os.rename(previous, target)
        fsync_dir(self.root)

    def close(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)  # releases the lock
