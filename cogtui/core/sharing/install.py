"""add, reinstall from the lock, update and remove: modules from git put on the search path (docs/sharing.md).

Every change follows the same path: the module's files are read from git (fetching.py), written into the
root's staging folder, checked against the search path (a name that would shadow, or be shadowed by, another
module is refused without `force`), validated as `cogn validate` validates (errors refuse it, with their
diagnostics located at the module's path in the repository), renamed into place, and then recorded in the
lock. A module whose installed files no longer hash to its lock entry has local changes: it is never
replaced or removed without `force` (SHARE-7).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Diagnostic, plural
from cogtui.core.files.text_codec import to_lf, unified_diff
from cogtui.core.records import field, record, replace
from cogtui.core.sharing.fetching import Fetched, Fetcher, Refused, Resolved
from cogtui.core.sharing.lockfile import LOCK_NAME, LockEntry, content_hash, folder_files, read_lock
from cogtui.core.sharing.placement import Staging
from cogtui.core.sharing.repo_tree import MANIFESTS, Limits, name_problem
from cogtui.core.sharing.source import Source, SourceError, parse_source, split_spec

LEVELS = ("project", "user")


@record
class Place:
    """A level of the search path cogn add installs into: its modules folder, its lock, and the folder
    relative local sources are read from."""

    level: str
    root: Path
    lock_path: Path
    base: Path


def place_for(level: str, cwd: Path | None = None, home: Path | None = None) -> Place:
    """The project level (`./.cognitive/modules`, `./cognitive.lock`) or the user level
    (`~/.cognitive/modules`, `~/.cognitive/cognitive.lock`), as the search path has them (SPEC-v0.1)."""
    cwd = Path.cwd() if cwd is None else cwd
    home = Path.home() if home is None else home
    if level == "user":
        return Place("user", home / ".cognitive" / "modules", home / ".cognitive" / LOCK_NAME, cwd)
    return Place("project", cwd / ".cognitive" / "modules", cwd / LOCK_NAME, cwd)


@record
class FileChange:
    """One file of an update: added, removed or modified, with its unified diff ("" for a binary file)."""

    path: str
    change: str
    diff: str
    binary: bool = False


@record(frozen=False)
class Outcome:
    """What happened to one module: `status` is installed, unchanged, pending (an update shown, not yet
    written), updated, current, pinned, removed or refused (`reason`, `message`, `hint`, `diagnostics`)."""

    name: str
    status: str
    entry: LockEntry | None = None
    previous: LockEntry | None = None
    path: Path | None = None
    version: str | None = None
    reason: str = ""
    message: str = ""
    hint: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "status": self.status, "path": str(self.path) if self.path else None}
        out.update(self.entry.to_json() if self.entry else {})
        out["version"] = self.version
        if self.previous is not None and self.previous != self.entry:
            out["previous"] = {"ref": self.previous.ref, "commit": self.previous.commit, "hash": self.previous.hash}
        if self.status == "refused":
            out.update(reason=self.reason, message=self.message, hint=self.hint)
        out["diagnostics"] = [d.to_json() for d in self.diagnostics]
        if self.changes:
            out["changes"] = [
                {"path": c.path, "change": c.change, "diff": c.diff, "binary": c.binary} for c in self.changes
            ]
        return out


def refused(name: str, exc: Refused) -> Outcome:
    return Outcome(
        name, "refused", reason=exc.reason, message=exc.message, hint=exc.hint, diagnostics=list(exc.diagnostics)
    )


class Installer:
    """add, reinstall, update and remove at one level; a context manager holding the level's root (see
    placement.Staging) and its lock for the whole command."""

    def __init__(
        self,
        place: Place,
        search_paths: Sequence[str] = (),
        force: bool = False,
        limits: Limits | None = None,
        progress: Callable[[str], None] | None = None,
        create: bool = True,
    ) -> None:
        self.place = place
        self.create = create  # make the level's modules folder at once (add), or only when writing into it
        self.search_paths = list(search_paths)
        self.force = force
        self.limits = limits or Limits()
        self.progress = progress
        self._pending: dict[str, tuple[Path, LockEntry]] = {}

    def __enter__(self) -> Installer:
        self.staging = Staging(self.place.root, self.create)
        try:
            self.lock = read_lock(self.place.lock_path)
        except BaseException:
            self.staging.close()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        self.staging.close()

    # -- add ------------------------------------------------------------------------------------------------

    def add(self, spec: str, module: str | None = None) -> Outcome:
        """The module `spec` (SOURCE[@REF|#COMMIT]) names, installed and recorded in the lock."""
        name = spec
        try:
            try:
                text, revision = split_spec(spec, self.place.base)
                source = parse_source(text, self.place.base, relative_paths=self.place.level == "project")
            except SourceError as exc:
                raise Refused("source", exc.message, exc.hint) from None
            name = source.shown
            with Fetcher(source, self.limits, self.progress) as fetcher:
                fetched = fetcher.read(fetcher.resolve(revision), module)
                default = fetcher.default_name(fetched.folder)
            staged = self._stage("module", fetched.files)  # named once its manifest is read
            name = self._module_name(fetched, default, staged)
            staged = self.staging.rename(staged, name)
            previous = self._may_replace(name, fetched.entry)
            if previous == fetched.entry and self._installed_state(name, previous) == "same":
                return Outcome(name, "unchanged", previous, previous, self.place.root / name)
            self._check_shadowing(name)
            diagnostics, version = self._validate(staged, name, fetched.folder)
            self._place(staged, name, fetched.entry)
        except Refused as exc:
            return refused(name, exc)
        return Outcome(
            name, "installed", fetched.entry, previous, self.place.root / name, version, diagnostics=diagnostics
        )

    def _stage(self, name: str, files: dict[str, bytes]) -> Path:
        try:
            return self.staging.write(name, files)
        except OSError as exc:  # a full disk, a name the file system refuses
            raise Refused("write", f"cannot write {name} into {self.place.root}: {exc.strerror or exc}") from None

    def _module_name(self, fetched: Fetched, default: str, staged: Path) -> str:
        """The manifest's `name` when it can be a folder name (so the module is found by the name it declares),
        else `default`; Refused when neither can."""
        from cogtui.core.module.discovery import ModuleEntry, SearchRoot, manifest_name

        manifest = next((m for m in MANIFESTS if m in fetched.files), MANIFESTS[0])
        declared = manifest_name(ModuleEntry(default, staged, SearchRoot(staged, "path"), manifest))
        if declared and name_problem(declared) is None:
            return declared
        problem = name_problem(default)
        if problem is not None:
            raise Refused("name", f"the module has no name it can be installed under: {problem}")
        return default

    def _may_replace(self, name: str, entry: LockEntry) -> LockEntry | None:
        """The lock entry `entry` replaces (None: a new one); Refused, without `force`, when `name` is a folder
        cogn add did not install, a module from another source, or an installed module with local changes."""
        target = self.place.root / name
        old = self.lock.entries.get(name)
        if self.force:
            return old
        if old is None:
            if os.path.lexists(target):
                raise Refused(
                    "exists",
                    f"{target} exists and was not installed by cogn add",
                    "Pass --force to replace it (its files are deleted), or install the other module elsewhere.",
                )
            return None
        if (old.source, old.path_in_repo) != (entry.source, entry.path_in_repo):
            raise Refused(
                "exists",
                f"{name} is already installed from {_origin(old)}",
                f"Remove it first (cogn remove {name}), or pass --force to replace it.",
            )
        self._refuse_local_changes(name, old)
        return old

    def _refuse_local_changes(self, name: str, entry: LockEntry) -> None:
        if not self.force and self._installed_state(name, entry) == "changed":
            raise Refused(
                "local-changes",
                f"{self.place.root / name} has local changes: its files differ from what {self.place.lock_path.name} "
                "records",
                "Keep them elsewhere (or send them upstream), then pass --force to replace them.",
            )

    def _installed_state(self, name: str, entry: LockEntry) -> str:
        """ "missing", "same" (its files hash to the entry's) or "changed"."""
        target = self.place.root / name
        if not os.path.lexists(target):
            return "missing"
        files = folder_files(target, self.limits) if target.is_dir() and not target.is_symlink() else None
        return "same" if files is not None and content_hash(files) == entry.hash else "changed"

    def _check_shadowing(self, name: str) -> None:
        """Refused, without `force`, when another module of this name is on the search path: one before this
        level would hide the installed module; one after it would be hidden by it."""
        if self.force:
            return
        from cogtui.core.module.discovery import SearchPath, discover

        search_path = SearchPath.from_environment(self.search_paths)
        ours = os.path.normpath(self.place.root)
        order = [os.path.normpath(root.path) for root in search_path.roots]
        here = order.index(ours) if ours in order else len(order)
        target = os.path.normpath(self.place.root / name)
        for entry in discover(search_path).entries:
            if entry.name != name or os.path.normpath(entry.path) == target:
                continue
            where = f"{entry.path} ({entry.level} level)"
            if order.index(os.path.normpath(entry.root.path)) < here:
                message = f"{name} would be shadowed by {where}: the search path would never find it"
            else:
                message = f"{name} would shadow {where}: that module would no longer be found"
            raise Refused("shadows", message, "Pass --force to install it anyway.")

    def _validate(self, staged: Path, name: str, folder: str) -> tuple[list[Diagnostic], str | None]:
        """The staged module's diagnostics, located at their path in the repository, and its version;
        Refused, with them, when any is an error."""
        from cogtui.core.workspace import check_path

        report = check_path(staged)
        diagnostics = [_in_repository(d, staged, folder) for d in report.diagnostics]
        if report.errors:
            raise Refused(
                "invalid",
                f"{name} does not validate ({plural(report.errors, 'error')}), so nothing was written",
                "Fix the module in its repository; the diagnostics name its files there.",
                diagnostics,
            )
        return diagnostics, report.version

    def _place(self, staged: Path, name: str, entry: LockEntry) -> None:
        """The staged module renamed into place and its entry written to the lock; both undone if the lock
        cannot be written."""
        before = self.lock.entries.get(name)
        try:
            previous = self.staging.place(staged, name)
        except OSError as exc:
            raise Refused("write", f"cannot put {name} in {self.place.root}: {exc.strerror or exc}") from None
        self.lock.entries[name] = entry
        try:
            self.lock.save()
        except OSError as exc:
            self.staging.restore(name, previous)
            _put_entry(self.lock.entries, name, before)
            raise Refused("write", f"cannot write {self.place.lock_path}: {exc.strerror or exc}") from None

    # -- reinstall from the lock ----------------------------------------------------------------------------

    def reinstall(self) -> list[Outcome]:
        """Every module of the lock as it records it (`cogn add` without arguments): one whose files already
        hash to its entry is left alone; a missing one is fetched at its commit and must hash to its entry."""
        return [self._reinstall(name, entry) for name, entry in sorted(self.lock.entries.items())]

    def _reinstall(self, name: str, entry: LockEntry) -> Outcome:
        target = self.place.root / name
        try:
            if self._installed_state(name, entry) == "same":
                return Outcome(name, "unchanged", entry, entry, target)
            self._refuse_local_changes(name, entry)
            fetched = self._fetch(entry, Resolved(entry.commit, entry.ref, entry.follows))
            if fetched.entry.hash != entry.hash:
                raise Refused(
                    "hash-mismatch",
                    f"{name}: the files of {_origin(entry)} at {entry.commit[:12]} hash to {fetched.entry.hash}, "
                    f"but {self.place.lock_path.name} records {entry.hash}",
                    "The lock was edited, or the repository changed what that commit holds: check the source "
                    "before trusting it; `cogn add` with the source records what it holds now.",
                )
            staged = self._stage(name, fetched.files)
            self._check_shadowing(name)
            diagnostics, version = self._validate(staged, name, fetched.folder)
            self._place(staged, name, entry)
        except Refused as exc:
            return refused(name, exc)
        return Outcome(name, "installed", entry, entry, target, version, diagnostics=diagnostics)

    def _fetch(self, entry: LockEntry, resolved: Resolved) -> Fetched:
        with Fetcher(self._locked_source(entry), self.limits, self.progress) as fetcher:
            return fetcher.read(resolved, entry.path_in_repo, exact=True)

    def _locked_source(self, entry: LockEntry) -> Source:
        """The repository the lock entry names; Refused when the lock's text is no source."""
        try:
            return parse_source(entry.source, self.place.base, relative_paths=self.place.level == "project")
        except SourceError as exc:
            raise Refused("source", f"{self.place.lock_path.name}: {exc.message}", exc.hint) from None

    # -- update ---------------------------------------------------------------------------------------------

    def check_update(self, name: str) -> Outcome:
        """Where `cogn update` would move `name`: current, pinned, or pending with its file changes (the new
        version staged and validated; `apply` puts it in place)."""
        try:
            entry = self._entry(name)
            with Fetcher(self._locked_source(entry), self.limits, self.progress) as fetcher:
                resolved = fetcher.newer(entry)
                if resolved.follows == "commit":
                    return Outcome(name, "pinned", entry, entry, self.place.root / name)
                if (resolved.commit, resolved.ref) == (entry.commit, entry.ref):
                    return Outcome(name, "current", entry, entry, self.place.root / name)
                fetched = fetcher.read(resolved, entry.path_in_repo, exact=True)
            self._refuse_local_changes(name, entry)
            before = folder_files(self.place.root / name, self.limits) or {}
            staged = self._stage(name, fetched.files)
            self._check_shadowing(name)
            diagnostics, version = self._validate(staged, name, fetched.folder)
        except Refused as exc:
            return refused(name, exc)
        self._pending[name] = (staged, fetched.entry)
        changes = file_changes(before, fetched.files)
        return Outcome(
            name,
            "pending",
            fetched.entry,
            entry,
            self.place.root / name,
            version,
            diagnostics=diagnostics,
            changes=changes,
        )

    def apply(self, outcome: Outcome) -> Outcome:
        """A pending update (from `check_update`) put in place and recorded."""
        staged, entry = self._pending.pop(outcome.name)
        try:
            self._place(staged, outcome.name, entry)
        except Refused as exc:
            return refused(outcome.name, exc)
        return replace(outcome, status="updated")

    # -- remove ---------------------------------------------------------------------------------------------

    def remove(self, name: str) -> Outcome:
        """`name`'s folder and lock entry gone; Refused, without `force`, when its files have local changes."""
        try:
            entry = self._entry(name)
            self._refuse_local_changes(name, entry)
            target = self.place.root / name
            previous = self.staging.take_away(name) if os.path.lexists(target) else None
            del self.lock.entries[name]
            try:
                self.lock.save()
            except OSError as exc:
                self.lock.entries[name] = entry
                if previous is not None:
                    self.staging.restore(name, previous)
                raise Refused("write", f"cannot write {self.place.lock_path}: {exc.strerror or exc}") from None
        except Refused as exc:
            return refused(name, exc)
        return Outcome(name, "removed", entry, entry, target)

    def _entry(self, name: str) -> LockEntry:
        entry = self.lock.entries.get(name)
        if entry is not None:
            return entry
        target = self.place.root / name
        other = "user" if self.place.level == "project" else "project"
        if os.path.lexists(target):
            hint = f"{target} was not installed by cogn add: change or delete it as any folder of yours."
        elif name in read_lock_quietly(place_for(other).lock_path):
            hint = f"It is installed at the {other} level: " + ("add --user." if other == "user" else "drop --user.")
        elif self.lock.entries:
            hint = "Installed here: " + ", ".join(sorted(self.lock.entries)) + "."
        else:
            hint = "Nothing is installed at this level."
        raise Refused("not-installed", f"{name} is not in {self.place.lock_path}", hint)


def read_lock_quietly(path: Path) -> set[str]:
    """The module names a lock lists; none when it cannot be read (only used for a hint)."""
    from cogtui.core.sharing.lockfile import LockError

    try:
        return set(read_lock(path).entries)
    except LockError:
        return set()


def file_changes(before: dict[str, bytes], after: dict[str, bytes]) -> list[FileChange]:
    """What an update changes, file by file in path order, with a unified diff of each text file."""
    changes = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old == new:
            continue
        change = "added" if old is None else "removed" if new is None else "modified"
        old_text, new_text = _text(old or b""), _text(new or b"")
        diff = ""
        binary = old_text is None or new_text is None
        if old_text is not None and new_text is not None:
            diff = unified_diff(
                old_text,
                new_text,
                "/dev/null" if old is None else f"a/{rel}",
                "/dev/null" if new is None else f"b/{rel}",
            )
        changes.append(FileChange(rel, change, diff, binary))
    return changes


def _text(data: bytes) -> str | None:
    try:
        return to_lf(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def _in_repository(d: Diagnostic, staged: Path, folder: str) -> Diagnostic:
    """`d` located at its file's path in the repository instead of the staging folder."""
    if d.file is None or not d.file.is_relative_to(staged):
        return d
    rel = d.file.relative_to(staged)
    return replace(d, file=Path(folder) / rel if folder else rel)


def _origin(entry: LockEntry) -> str:
    return entry.source + (f" ({entry.path_in_repo})" if entry.path_in_repo else "")


def _put_entry(entries: dict[str, LockEntry], name: str, entry: LockEntry | None) -> None:
    if entry is None:
        entries.pop(name, None)
    else:
        entries[name] = entry


__all__ = ["LEVELS", "FileChange", "Installer", "Outcome", "Place", "Refused", "place_for"]
