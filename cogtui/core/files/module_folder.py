"""What makes a folder a module, by exact file names; and file checks that never raise.

Kept free of parsing (no yaml, no jsonschema) so discovery, and so the TUI's
first screen, import almost nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

MANIFEST_V2 = "module.yaml"
MANIFEST_V1 = "MODULE.md"
MANIFEST_V0 = "module.md"


def folder_names(path: Path) -> set[str]:
    """Exact entry names: comparing these keeps MODULE.md and module.md apart on case-insensitive file systems."""
    try:
        return set(os.listdir(path))
    except (OSError, ValueError):
        return set()


def manifest_kind(names: set[str]) -> str | None:
    if MANIFEST_V2 in names:
        return "v2"
    if MANIFEST_V1 in names:
        return "v1"
    if MANIFEST_V0 in names:
        return "v0"
    return None


def is_module_dir(path: Path) -> bool:
    return manifest_kind(folder_names(path)) is not None


# Path.is_file() and friends raise on names too long for the OS or with a NUL: a user's odd path is a "no".
def is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def lexists(path: Path) -> bool:
    """The name exists, even as a broken symlink (which the confined reader then reports)."""
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def module_folder_at(target: str, cwd: Path | None = None) -> Path | None:
    """The module folder `target` names as a path (the folder, or its manifest file; relative to `cwd`), else None."""
    candidate = Path(target)
    if not candidate.is_absolute():
        candidate = (cwd or Path.cwd()) / candidate
    if is_dir(candidate) and manifest_kind(folder_names(candidate)) is not None:
        return candidate
    if is_file(candidate) and candidate.name in (MANIFEST_V2, MANIFEST_V1, MANIFEST_V0):
        return candidate.parent
    return None


def folder_read_error(target: str, cwd: Path | None = None) -> str | None:
    """When `target`, as a path, is a folder whose entries cannot be listed: what to say (else None)."""
    candidate = Path(target)
    if not candidate.is_absolute():
        candidate = (cwd or Path.cwd()) / candidate
    if not is_dir(candidate):
        return None
    try:
        os.listdir(candidate)
    except OSError as exc:
        return f"cannot read {candidate}: {exc.strerror or exc}"
    return None


def written_as_path(target: str) -> bool:
    """`target` holds a path separator, so it is no module name (a name is a folder's name)."""
    return os.sep in target or (os.altsep is not None and os.altsep in target)
