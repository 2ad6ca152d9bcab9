"""The one way module content is read: confined, regular, bounded.

A module folder is untrusted (a git clone, a zip, someone else's repo). Every
read of its files goes through `read_confined`, which guarantees:

- only regular files are opened: a FIFO, socket or device is refused before it
  is opened for reading (and the open itself is non-blocking and re-checked
  with fstat, so a file swapped for a FIFO in between cannot block);
- symlinks are resolved; a target outside the module folder (or the allowed
  roots) is refused, and a symlink loop is reported, never a traceback;
- at most `limit` bytes are read: a larger file (or /dev/zero behind a link)
  is refused with its size, never read into memory.

Refusals raise `ConfinementError` carrying a located `Diagnostic` (F-codes of
diagnostics.CATALOGUE); it is a ParseFailure, so the loader reports it like
any unreadable file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from cogtui.core.diagnostics import Diagnostic, diag

# Module text files (manifest, prompt, schemas, goldens) above this are refused.
MAX_MODULE_FILE_BYTES = 8 * 1024 * 1024


class ParseFailure(Exception):
    """A file could not be read or parsed; carries the located diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class ConfinementError(ParseFailure):
    """The file is outside the folder, not a regular file, too large, or a symlink loop."""

    def __init__(self, diagnostic: Diagnostic, size: int | None = None) -> None:
        super().__init__(diagnostic)
        self.size = size  # for F003: the file's size in bytes

    @property
    def code(self) -> str:
        return self.diagnostic.code


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _inside(real: str, roots: Iterable[Path]) -> bool:
    for root in roots:
        # `real` is a resolved path: its every leading part, `root` as written among them, is a real folder
        # (no link, no `..`), so a `real` under `root` as written is under `realpath(root)`. That answers most
        # reads without resolving the root again (a lstat per part of the root, for every read); any other case
        # resolves it as before.
        written = str(root)
        if real == written or real.startswith(written.rstrip(os.sep) + os.sep):
            return True
        base = os.path.realpath(root)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def resolve_confined(path: Path, root: Path | None = None, allowed: Iterable[Path] = ()) -> Path:
    """The real path of `path`, checked to be an existing regular file inside `root` (or `allowed`)."""
    shown = str(path)
    try:
        real = os.path.realpath(path, strict=True)
    except FileNotFoundError:
        # Confinement is judged before existence: probing outside the folder must learn nothing.
        with contextlib.suppress(OSError, ValueError):
            _refuse_outside(path, os.path.realpath(path), root, allowed)
        if os.path.islink(path):
            raise ConfinementError(
                diag("P003", f"{path.name} is a symlink to a file that does not exist", path)
            ) from None
        raise ParseFailure(diag("P003", f"{path.name} does not exist", path)) from None
    except (OSError, RuntimeError, ValueError) as exc:
        if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
            raise ConfinementError(
                diag("F004", f"{path.name} is a symlink loop", path, hint="Replace the link with the file itself.")
            ) from None
        if isinstance(exc, ValueError):
            raise ParseFailure(diag("P003", f"{shown!r} is not a usable file name", path)) from None
        raise ParseFailure(
            diag("P003", f"cannot read {path.name}: {getattr(exc, 'strerror', None) or exc}", path)
        ) from None
    _refuse_outside(path, real, root, allowed)
    return Path(real)


def _refuse_outside(path: Path, real: str, root: Path | None, allowed: Iterable[Path]) -> None:
    if root is not None and not _inside(real, (root, *allowed)):
        raise ConfinementError(
            diag(
                "F001",
                f"{path.name} leads outside the module folder",
                path,
                1,
                1,
                hint="Module files must stay inside the module folder; copy the file in instead of linking it.",
            )
        )


def read_confined(
    path: Path, root: Path | None = None, limit: int = MAX_MODULE_FILE_BYTES, allowed: Iterable[Path] = ()
) -> bytes:
    """The bytes of `path`, under the guarantees above; raises ParseFailure/ConfinementError."""
    real = resolve_confined(path, root, allowed)
    try:
        st = os.stat(real)
    except OSError as exc:
        raise ParseFailure(diag("P003", f"cannot read {path.name}: {exc.strerror or exc}", path)) from None
    _check_stat(path, st.st_mode, st.st_size, limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # swapped for a symlink since it was resolved
            raise ConfinementError(diag("F004", f"{path.name} changed into a symlink while read", path)) from None
        raise ParseFailure(
            diag("P003", f"cannot read {path.name}: {exc.strerror or exc}", path, hint="Check the file's permissions.")
        ) from None
    try:
        st = os.fstat(fd)
        _check_stat(path, st.st_mode, st.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise ParseFailure(diag("P003", f"cannot read {path.name}: {exc.strerror or exc}", path)) from None
    finally:
        os.close(fd)
    if total > limit:  # it grew since fstat
        raise _too_large(path, total, limit)
    return b"".join(chunks)


def _check_stat(path: Path, mode: int, size: int, limit: int) -> None:
    if stat.S_ISDIR(mode):
        raise ParseFailure(
            diag(
                "P003",
                f"{path.name} is a directory, not a file",
                path,
                hint=f"Move the folder's contents elsewhere and write {path.name} as a file in its place.",
            )
        )
    if not stat.S_ISREG(mode):
        raise ConfinementError(
            diag(
                "F002",
                f"{path.name} is {_kind(mode)}, not a regular file",
                path,
                1,
                1,
                hint="Module files must be regular files; a pipe or device would block or never end.",
            )
        )
    if size > limit:
        raise _too_large(path, size, limit)


def _too_large(path: Path, size: int, limit: int) -> ConfinementError:
    return ConfinementError(
        size=size,
        diagnostic=diag(
            "F003",
            f"{path.name} is {_size(size)}, over the {_size(limit)} limit for module files",
            path,
            1,
            1,
            hint="Keep module files small; large data belongs in the run's input, not the module.",
        ),
    )


def safe_resolve(path: Path) -> Path:
    """`path.resolve()` that never raises: a symlink loop or an impossible name gives the absolute path."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return path.absolute()
