"""Every file of a module folder, for the editor: the files the loader knows first, then the rest.

Hidden files and folders, caches, editor backups and cogtui's own temp files
are left out; symlinks are listed only when they stay inside the folder. The
walk stops after `limit` files, so a module folder holding a dataset does not
open thousands of tabs (`truncated` says so).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

EDITOR_FILE_LIMIT = 200
_SKIP_DIRS = {"__pycache__", "node_modules", ".git"}
_SKIP_SUFFIXES = (".cogtui-tmp", "~", ".swp", ".swx", ".pyc")


@dataclass(frozen=True)
class ModuleListing:
    files: tuple[Path, ...]
    truncated: bool = False


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError, ValueError):
        return False


def _walk(root: Path) -> Iterable[Path]:
    for folder, dirs, names in os.walk(root, onerror=lambda _exc: None):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(names):
            if name.startswith((".", "#")) or name.endswith(_SKIP_SUFFIXES):
                continue
            yield Path(folder) / name


def module_files(root: Path, known: Iterable[Path] = (), limit: int = EDITOR_FILE_LIMIT) -> ModuleListing:
    """`known` (in order, e.g. manifest, prompt, schema, tests), then every other file under `root`, sorted."""
    out: list[Path] = []
    seen: set[Path] = set()
    for path in known:
        if path not in seen:
            seen.add(path)
            out.append(path)
    for path in _walk(root):
        if path in seen:
            continue
        if len(out) >= limit:
            return ModuleListing(tuple(out), truncated=True)
        if (path.is_symlink() and not _inside(path, root)) or not path.is_file():
            continue
        seen.add(path)
        out.append(path)
    return ModuleListing(tuple(out))
