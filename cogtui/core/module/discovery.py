"""The search path (SPEC-v0.1): where modules are found, and which name wins.

Order: `--path` roots ("path"), ./.cognitive/modules ("project"),
~/.cognitive/modules ("user"), then each $COGNITIVE_MODULES_PATH entry
("custom"). A module's name is its folder name; the first of a name wins and
later ones are shadowed by it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, NamedTuple

from cogtui.core.diagnostics import Diagnostic, diag
from cogtui.core.files.module_folder import (
    MANIFEST_V0,
    MANIFEST_V1,
    MANIFEST_V2,
    exists,
    folder_names,
    is_dir,
    manifest_kind,
    module_folder_at,
)

Level = Literal["path", "project", "user", "custom"]
LEVELS: tuple[Level, ...] = ("path", "project", "user", "custom")

# Backups and editor leftovers are never modules (docs/discovery.md).
_BACKUP = re.compile(r"(~|\.(bak|backup|orig|old|tmp|swp)(\.[^/]*)?)$|^(backups?|__pycache__|node_modules)$", re.I)


def is_candidate_name(name: str) -> bool:
    """Whether discovery may take a folder of this name for a module (`skipped_name_reason` says why not)."""
    return not name.startswith((".", "__")) and not _BACKUP.search(name)


def skipped_name_reason(name: str) -> str | None:
    """Why discovery never takes a folder named `name` for a module, or None when it may (is_candidate_name)."""
    if name.startswith("."):
        return "hidden folders (a name starting with '.') are never modules"
    if name.startswith("__"):
        return "folders whose name starts with '__' are never modules"
    found = _BACKUP.search(name)
    if found is None:
        return None
    if found.start() == 0:
        return f"a folder named {name!r} holds backups or tools, never a module"
    return f"names ending in {found.group(0)!r} are backups or editor leftovers (*.bak, *~, *.orig), never modules"


# The records below are NamedTuples: immutable, like frozen dataclasses.
class SearchRoot(NamedTuple):
    """A folder of the search path and its level."""

    path: Path
    level: Level


class SearchPath(NamedTuple):
    """The search path's roots, in the order their modules win."""

    roots: tuple[SearchRoot, ...]

    @classmethod
    def from_environment(
        cls,
        extra: Iterable[str | Path] = (),
        cwd: Path | None = None,
        home: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> SearchPath:
        env = os.environ if env is None else env
        cwd = Path.cwd() if cwd is None else cwd
        home = Path.home() if home is None else home
        roots: list[SearchRoot] = [SearchRoot(_abs(Path(p), cwd), "path") for p in extra]
        roots.append(SearchRoot(cwd / ".cognitive" / "modules", "project"))
        roots.append(SearchRoot(home / ".cognitive" / "modules", "user"))
        for entry in env.get("COGNITIVE_MODULES_PATH", "").split(os.pathsep):
            if entry.strip():
                roots.append(SearchRoot(_abs(_expand_home(entry.strip(), home), cwd), "custom"))
        unique: list[SearchRoot] = []
        seen: set[Path] = set()
        for root in roots:
            key = root.path
            if key not in seen:
                seen.add(key)
                unique.append(root)
        return cls(tuple(unique))

    def root_for(self, level: Level) -> SearchRoot | None:
        return next((r for r in self.roots if r.level == level), None)


def _expand_home(entry: str, home: Path) -> Path:
    # `~` is the `home` given (not $HOME), so a caller's home override covers the env entries too.
    if entry == "~" or entry.startswith(("~/", "~" + os.sep)):
        return home / entry[2:]
    return Path(os.path.expanduser(entry))  # ~user forms


def _abs(path: Path, cwd: Path) -> Path:
    return path if path.is_absolute() else cwd / path


class ModuleEntry(NamedTuple):
    """A module folder on the search path, before (or without) loading it."""

    name: str
    path: Path
    root: SearchRoot
    manifest: str  # module.yaml, MODULE.md or module.md
    shadowed_by: Path | None = None

    @property
    def level(self) -> Level:
        return self.root.level

    @property
    def shadowed(self) -> bool:
        return self.shadowed_by is not None


class ModuleIndex:
    """What discovery found on a search path: every module folder (shadowed ones too) and the problems met."""

    def __init__(
        self,
        search_path: SearchPath,
        entries: list[ModuleEntry] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        unreadable: list[Path] | None = None,
    ) -> None:
        self.search_path = search_path
        self.entries: list[ModuleEntry] = [] if entries is None else entries
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        # Folders that could not be listed (each has its P003 in `diagnostics`): modules in them were not found,
        # so a command judging every module (`--all`) has not judged them all (PATH-3).
        self.unreadable: list[Path] = [] if unreadable is None else unreadable

    @property
    def winners(self) -> list[ModuleEntry]:
        return [e for e in self.entries if not e.shadowed]

    def get(self, name: str) -> ModuleEntry | None:
        return next((e for e in self.entries if e.name == name and not e.shadowed), None)

    def shadowed_under(self, winner: ModuleEntry) -> list[ModuleEntry]:
        return [e for e in self.entries if e.shadowed_by == winner.path]


def scan_root(
    root: SearchRoot, diagnostics: list[Diagnostic], unreadable: list[Path] | None = None
) -> list[ModuleEntry]:
    """The module folders directly in `root` (or `root` itself); problems go to `diagnostics`, and the folders
    that could not be listed to `unreadable` too."""
    unreadable = [] if unreadable is None else unreadable
    path = root.path
    if not exists(path):
        if root.level == "path":  # typed by the user (--path): a typo must not read as an empty search path
            diagnostics.append(
                diag("P003", f"search path entry does not exist: {path}", path, hint="Check the --path given.")
            )
        return []
    if not is_dir(path):
        diagnostics.append(diag("P003", f"search path entry is not a folder: {path}", path))
        return []
    own = manifest_kind(folder_names(path))
    if own is not None:  # a root that is itself a module folder (e.g. --path my-module)
        return [ModuleEntry(path.name, path, root, _manifest_name(own))]
    try:
        children = sorted(os.scandir(path), key=lambda d: d.name)
    except OSError as exc:
        diagnostics.append(
            diag("P003", f"cannot read {path}: {exc.strerror or exc}", path, hint="Check the folder's permissions.")
        )
        unreadable.append(path)
        return []
    found: list[ModuleEntry] = []
    for child in children:
        if not is_candidate_name(child.name):
            continue
        try:
            if not child.is_dir():
                continue
        except OSError:
            continue
        try:
            names = set(os.listdir(child.path))
        except OSError as exc:  # a module in it could not be found: said, not silently missing from the list
            diagnostics.append(
                diag(
                    "P003",
                    f"cannot read {child.path}: {exc.strerror or exc}",
                    Path(child.path),
                    hint="Check the folder's permissions: a module in it cannot be found.",
                )
            )
            unreadable.append(Path(child.path))
            continue
        kind = manifest_kind(names)
        if kind is not None:
            found.append(ModuleEntry(child.name, Path(child.path), root, _manifest_name(kind)))
    return found


def _manifest_name(kind: str) -> str:
    return {"v2": MANIFEST_V2, "v1": MANIFEST_V1, "v0": MANIFEST_V0}[kind]


def discover(search_path: SearchPath) -> ModuleIndex:
    index = ModuleIndex(search_path)
    winners: dict[str, Path] = {}
    for root in search_path.roots:
        for entry in scan_root(root, index.diagnostics, index.unreadable):
            if entry.name in winners:
                entry = ModuleEntry(entry.name, entry.path, entry.root, entry.manifest, winners[entry.name])
            else:
                winners[entry.name] = entry.path
            index.entries.append(entry)
    return index


class Unsearched(NamedTuple):
    """A folder that holds modules the search path does not reach, and what to do about it."""

    path: Path
    modules: int

    @property
    def note(self) -> str:
        return (
            f"{self.path} holds {self.modules} module{'s' * (self.modules != 1)}, but it is not on the search path "
            "(the project's folder is ./.cognitive/modules, with a dot): add it with `--path cognitive/modules` or "
            "COGNITIVE_MODULES_PATH=cognitive/modules, or rename it to .cognitive/modules"
        )


def unsearched_modules(search_path: SearchPath) -> Unsearched | None:
    """`./cognitive/modules`, the folder SPEC-v2.5's examples show, when it holds modules and is not on the search
    path, whose project folder is SPEC-v0.1's `./.cognitive/modules` (PATH-4). Modules put there are never found, so
    `cogn doctor`, `cogn list`, an empty `--all` and the TUI's empty browser say where they are and how to add them."""
    project = search_path.root_for("project")
    if project is None:
        return None
    folder = project.path.parent.parent / "cognitive" / "modules"
    if any(os.path.normpath(root.path) == os.path.normpath(folder) for root in search_path.roots):
        return None
    if not is_dir(folder):
        return None
    count = len(scan_root(SearchRoot(folder, "custom"), []))
    return Unsearched(folder, count) if count else None


def resolve(target: str, index: ModuleIndex, cwd: Path | None = None) -> Path | None:
    """A module name on the search path, or a path to a module folder."""
    entry = index.get(target)
    if entry is not None:
        return entry.path
    return module_folder_at(target, cwd) or by_manifest_name(target, index)


_NAME_LINE = re.compile(r"^name:\s*(['\"]?)([^'\"#\n]+?)\1\s*(?:#.*)?$", re.M)


def manifest_name(entry: ModuleEntry) -> str | None:
    """The `name:` a manifest declares (top level; the first 64 KB), without loading the module."""
    from cogtui.core.files.sourcemap import ParseFailure, read_text

    try:
        text = read_text(entry.path / entry.manifest, entry.path)[:65536]  # confined: never a file outside
    except ParseFailure:
        return None
    found = _NAME_LINE.search(text)
    return found.group(2).strip() if found else None


def by_manifest_name(target: str, index: ModuleIndex) -> Path | None:
    """`cogn run NAME` where NAME is the manifest's `name` and the folder is called otherwise (M009)."""
    matches = [e.path for e in index.winners if manifest_name(e) == target]
    return matches[0] if len(matches) == 1 else None
