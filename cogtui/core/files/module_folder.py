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
