"""Which folder of a commit is the module, and its files: refused when unsafe or too large (SHARE-5).

A module folder is one holding a manifest (module.yaml, MODULE.md or module.md). The repository's root, when
it is one, is the module; otherwise the module folders found anywhere in the tree (not inside another module,
not in a hidden or backup folder, `.cognitive` apart) are the choices, and `--module` picks one by its path
in the repository or by its folder's name.

The module's files must all be plain files: a symlink (wherever it points) and a submodule are refused, as
are names that are not UTF-8, `.git` anywhere in a path, two names that differ only in case (they would be
one file on macOS and Windows), and more than `Limits` allows.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from cogtui.core.files.module_folder import MANIFEST_V0, MANIFEST_V1, MANIFEST_V2, manifest_kind
from cogtui.core.module.discovery import is_candidate_name
from cogtui.core.records import record
from cogtui.core.sharing.git import TreeEntry

MANIFESTS = (MANIFEST_V2, MANIFEST_V1, MANIFEST_V0)
SYMLINK, SUBMODULE = "120000", "160000"
SHOWN_CHOICES = 20  # module folders listed when several are found


DOWNLOAD_MIB = 256  # what cogn add fetches for one module at most, by default (--max-download)


@record
class Limits:
    """How much a module may hold: files, bytes in all, bytes in one file (as confined reads allow); and how much
    of its repository is fetched to find it (SHARE-9): bytes received, paths of the commit's tree."""

    files: int = 1000
    total_bytes: int = 32 * 1024 * 1024
    file_bytes: int = 8 * 1024 * 1024
    download_bytes: int = DOWNLOAD_MIB * 1024 * 1024
    repo_entries: int = 200_000


class TreeRefused(Exception):
    """The commit holds no usable module folder, or the module's files cannot be installed."""

    def __init__(self, reason: str, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.hint = hint


def module_folders(entries: Iterable[TreeEntry]) -> list[str]:
    """The module folders of the tree ("" for the root), outermost only, in path order."""
    names: dict[str, set[str]] = {}
    for entry in entries:
        folder, name = posixpath.split(entry.path)
        if name in MANIFESTS and entry.mode != SUBMODULE:
            names.setdefault(folder, set()).add(name)
    found = sorted(folder for folder, present in names.items() if manifest_kind(present) and _searchable(folder))
    outermost: list[str] = []
    for folder in found:
        if not any(_inside(folder, outer) for outer in outermost):
            outermost.append(folder)
    return outermost


def _searchable(folder: str) -> bool:
    return folder == "" or all(part == ".cognitive" or is_candidate_name(part) for part in folder.split("/"))


def _inside(path: str, folder: str) -> bool:
    return folder == "" or path == folder or path.startswith(folder + "/")


def choose_module(entries: list[TreeEntry], wanted: str | None, where: str, exact: bool = False) -> str:
    """The module folder to install: `wanted` (a path in the repository, or, unless `exact`, a module folder's
    name), else the only one there is. `where` names the repository and revision in messages."""
    found = module_folders(entries)
    if wanted is not None:
        return _wanted(entries, found, wanted, where, exact)
    if "" in found:
        return ""
    if not found:
        raise TreeRefused(
            "no-module",
            f"{where} holds no module (no folder with a module.yaml, MODULE.md or module.md)",
            "Check the repository and the revision; a module folder holds its manifest.",
        )
    if len(found) > 1:
        shown = ", ".join(found[:SHOWN_CHOICES]) + (", ..." if len(found) > SHOWN_CHOICES else "")
        raise TreeRefused(
            "several-modules",
            f"{where} holds {len(found)} modules: {shown}",
            f"Pick one with --module, e.g. --module {found[0]}",
        )
    return found[0]


def _wanted(entries: list[TreeEntry], found: list[str], wanted: str, where: str, exact: bool) -> str:
    path = posixpath.normpath(wanted.strip("/")) if wanted.strip("/") else ""
    path = "" if path == "." else path
    if path.startswith("../") or path == "..":
        raise TreeRefused("no-module", f"--module {wanted} leaves the repository")
    manifests = {e.path for e in entries if posixpath.basename(e.path) in MANIFESTS}
    if manifest_kind({posixpath.basename(m) for m in manifests if posixpath.dirname(m) == path}):
        return path
    for entry in entries:
        if entry.path == path and entry.mode == SYMLINK:
            raise TreeRefused("symlink", f"--module {wanted} is a symlink in {where}, not a folder")
    by_name = [] if exact else [folder for folder in found if posixpath.basename(folder) == path]
    if len(by_name) == 1:
        return by_name[0]
    if len(by_name) > 1:
        raise TreeRefused(
            "several-modules",
            f"{where} holds {len(by_name)} modules named {path}: {', '.join(by_name)}",
            "Give --module the folder's path in the repository.",
        )
    if not path or any(_inside(e.path, path) for e in entries):
        raise TreeRefused(
            "no-module",
            (f"{path} in {where}" if path else f"the root of {where}")
            + " is not a module folder (it holds no module.yaml, MODULE.md or module.md)",
            _choices_hint(found),
        )
    raise TreeRefused("no-module", f"{where} has no folder {wanted}", _choices_hint(found))


def _choices_hint(found: list[str]) -> str:
    if not found:
        return "The repository holds no module at this revision."
    return "Its modules: " + ", ".join(f or "(the root)" for f in found[:SHOWN_CHOICES])


def module_entries(entries: list[TreeEntry], folder: str, limits: Limits) -> dict[str, TreeEntry]:
    """The module's files by their path inside the module folder; TreeRefused when one is not a plain file,
    has a name that cannot be installed, or the module is larger than `limits`."""
    files: dict[str, TreeEntry] = {}
    total = 0
    seen_folded: dict[str, str] = {}
    for entry in entries:
        if not _inside(entry.path, folder) or entry.path == folder:
            continue
        rel = entry.path[len(folder) + 1 :] if folder else entry.path
        _check_name(rel)
        if entry.mode == SYMLINK:
            raise TreeRefused(
                "symlink",
                f"{entry.path} is a symlink: a module is installed only when all its files are plain files",
                "Replace the link by the file it points to, in the repository.",
            )
        if entry.mode == SUBMODULE:
            raise TreeRefused(
                "submodule",
                f"{entry.path} is a git submodule: submodules are never fetched, so the module would be incomplete",
                "Put the files in the module's own folder.",
            )
        folded = rel.casefold()
        if folded in seen_folded:
            raise TreeRefused(
                "name", f"{seen_folded[folded]} and {rel} differ only in case: one would overwrite the other"
            )
        seen_folded[folded] = rel
        size = entry.size or 0
        if size > limits.file_bytes:
            raise TreeRefused(
                "too-large",
                f"{entry.path} is {_mib(size)}, more than a module file may be (the limit is {_mib(limits.file_bytes)})",
            )
        total += size
        files[rel] = entry
        if len(files) > limits.files:
            raise TreeRefused("too-large", f"the module holds more than {limits.files} files")
        if total > limits.total_bytes:
            raise TreeRefused("too-large", f"the module's files are more than {_mib(limits.total_bytes)} in all")
    return files


def _check_name(rel: str) -> None:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        raise TreeRefused("name", f"a file name in the module is not UTF-8: {rel!r}") from None
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts) or any(part.casefold() == ".git" for part in parts):
        raise TreeRefused("name", f"{rel}: a path a module cannot hold")


def _mib(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MiB" if size >= 1024 * 1024 else f"{size} bytes"


def name_problem(name: str) -> str | None:
    """Why `name` cannot be an installed module's folder name (the search path finds a module by its folder
    name, so it must be one discovery takes, on any system), or None when it can."""
    if not name or name in (".", "..") or any(c in name for c in "/\\:\0") or len(name) > 100:
        return f"{name!r} is not a folder name a module can have"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "the name holds control characters"
    if not is_candidate_name(name):
        return f"{name!r} is a name discovery skips (hidden folders and backups are never modules)"
    return None
