"""From a repository and a revision to a module's files: which commit, which folder, which bytes.

Nothing here writes outside a scratch repository in the system's temporary folder (deleted afterwards).
"""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Callable
from pathlib import Path

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.records import record
from cogtui.core.sharing.git import Git, GitError, RemoteRefs, TooLarge
from cogtui.core.sharing.lockfile import LockEntry, content_hash
from cogtui.core.sharing.repo_tree import Limits, TreeRefused, choose_module, module_entries
from cogtui.core.sharing.source import Revision, Source
from cogtui.core.sharing.versions import is_newer, newest_release, version_key

SHOWN_REFS = 10  # tags and branches named when a ref is not found


class Refused(Exception):
    """An install, update or removal that cannot be done; `reason` is a short kind for JSON."""

    def __init__(self, reason: str, message: str, hint: str = "", diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.hint = hint
        self.diagnostics = diagnostics or []


@record
class Resolved:
    """A revision resolved to a commit: the ref it came from (None for a commit) and what it follows."""

    commit: str
    ref: str | None
    follows: str


@record
class Fetched:
    """A module's files read from a commit, with the lock entry that describes them."""

    folder: str  # the module folder in the repository ("" for its root)
    files: dict[str, bytes]
    entry: LockEntry


class Fetcher:
    """One repository, read through a scratch git repository; use as a context manager."""

    def __init__(self, source: Source, limits: Limits, progress: Callable[[str], None] | None = None) -> None:
        self.source = source
        self.limits = limits
        self.progress = progress or (lambda _message: None)
        self._scratch = tempfile.TemporaryDirectory(prefix="cogtui-git-", ignore_cleanup_errors=True)
        self.git = Git(
            source, Path(self._scratch.name), max_bytes=limits.download_bytes, max_entries=limits.repo_entries
        )
        self._refs: RemoteRefs | None = None

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, _kind: object, exc: BaseException | None, _tb: object) -> None:
        """The scratch repository removed, whatever happened; a fetch stopped at a limit is a refusal."""
        self._scratch.cleanup()
        if isinstance(exc, TooLarge):
            raise Refused(
                "too-large",
                exc.message,
                "Give the module a repository of its own (or fetch a smaller revision); --max-download MIB raises "
                "the download limit",
            ) from None

    def refs(self) -> RemoteRefs:
        """The repository's tags and branches; Refused when it is not a git repository or cannot be read."""
        if self._refs is None:
            self.progress(f"reading {self.source.shown}")
            try:
                self._refs = self.git.remote_refs()
            except GitError as exc:
                message = f"{self.source.shown}: cannot read it as a git repository"
                raise Refused("not-git", message, _folder_hint(self.source) or _said(exc)) from None
        return self._refs

    def resolve(self, revision: Revision) -> Resolved:
        """The commit `revision` names: `#COMMIT` pinned, `@REF` a tag (first) or a branch, neither the newest
        release tag, else the default branch."""
        refs = self.refs()
        if revision.commit is not None:
            return Resolved(self._commit(revision.commit), None, "commit")
        if revision.ref is not None:
            if revision.ref in refs.tags:
                return Resolved(refs.tags[revision.ref], revision.ref, "tag")
            if revision.ref in refs.branches:
                return Resolved(refs.branches[revision.ref], revision.ref, "branch")
            raise Refused("no-ref", f"{self.source.shown} has no tag or branch {revision.ref}", self._known(refs))
        tag = newest_release(refs.tags)
        if tag is not None:
            return Resolved(refs.tags[tag], tag, "tag")
        if refs.default_branch in refs.branches:
            branch = refs.default_branch
            return Resolved(refs.branches[branch], branch, "branch")
        raise Refused(
            "no-ref",
            f"{self.source.shown} has no release tag and no default branch",
            "Name the revision: SOURCE@TAG, SOURCE@BRANCH or SOURCE#COMMIT.",
        )

    def newer(self, entry: LockEntry) -> Resolved:
        """Where `cogn update` moves `entry`: the newest release tag when it follows a version tag (never an
        older one), the same tag when it follows another tag, its branch's head; a pinned commit stays."""
        refs = self.refs()
        if entry.follows == "commit" or entry.ref is None:
            return Resolved(entry.commit, None, "commit")
        if entry.follows == "branch":
            if entry.ref not in refs.branches:
                raise Refused("no-ref", f"{self.source.shown} has no branch {entry.ref} any more", self._known(refs))
            return Resolved(refs.branches[entry.ref], entry.ref, "branch")
        tag = entry.ref
        newest = newest_release(refs.tags) if version_key(entry.ref) is not None else None
        if newest is not None and is_newer(newest, entry.ref):
            tag = newest
        if tag not in refs.tags:
            raise Refused("no-ref", f"{self.source.shown} has no tag {tag} any more", self._known(refs))
        return Resolved(refs.tags[tag], tag, "tag")

    def _commit(self, wanted: str, resolved: Resolved | None = None) -> str:
        """The full id of commit `wanted` (7 to 40 hex digits), fetched: by its id alone when it is whole (one
        commit's objects), else by the ref it was resolved from, else with every branch and tag."""
        if len(wanted) == 40 and self.git.has_commit(wanted):
            return wanted
        tries = [wanted] if len(wanted) == 40 else []
        if resolved is not None and resolved.follows in ("tag", "branch"):
            tries.append(f"refs/{'tags' if resolved.follows == 'tag' else 'heads'}/{resolved.ref}")
        for what in tries:
            self.progress(
                f"fetching {self.source.shown} at {resolved.ref if resolved and resolved.ref else wanted[:12]}"
            )
            try:
                if self.git.fetch(what) == wanted:
                    return wanted
            except GitError:
                pass  # a server that gives commits only by ref, or a ref moved since: look among all of them
        self.progress(f"fetching every branch and tag of {self.source.shown} to find {wanted[:12]}")
        try:
            self.git.fetch_all()
            return self.git.commit_of(wanted)
        except GitError:
            raise Refused(
                "no-ref",
                f"{self.source.shown} has no commit {wanted}",
                "Check the id; only commits reachable from a branch or tag can be fetched.",
            ) from None

    def read(self, resolved: Resolved, module: str | None, exact: bool = False) -> Fetched:
        """The module's files at `resolved` (`module`: --module, or the lock's path when `exact`)."""
        commit = self._commit(resolved.commit, resolved)
        where = f"{self.source.shown} at {resolved.ref or commit[:12]}"
        try:
            entries = self.git.tree(commit)
        except GitError as exc:
            raise Refused("git", f"cannot read {where}", _said(exc)) from None
        try:
            folder = choose_module(entries, module, where, exact=exact)
            chosen = module_entries(entries, folder, self.limits)
        except TreeRefused as exc:
            raise Refused(exc.reason, exc.message, exc.hint) from None
        try:
            blobs = self.git.blobs(sorted({entry.oid for entry in chosen.values()}))
        except GitError as exc:
            raise Refused("git", f"cannot read the module's files from {where}", _said(exc)) from None
        files = {rel: blobs[entry.oid] for rel, entry in chosen.items()}
        entry = LockEntry(self.source.stored, folder, resolved.ref, resolved.follows, commit, content_hash(files))
        return Fetched(folder, files, entry)

    def default_name(self, folder: str) -> str:
        """The module's name when its manifest declares none that can be a folder name: its folder's name, or
        the repository's for a module at the root."""
        if folder:
            return posixpath.basename(folder)
        tail = self.source.stored.rstrip("/").replace(":", "/").rsplit("/", 1)[-1]
        return tail.removesuffix(".git") or "module"

    @staticmethod
    def _known(refs: RemoteRefs) -> str:
        tags = sorted(refs.tags, key=lambda t: (version_key(t) is not None, version_key(t) or (), t), reverse=True)
        parts = []
        if tags:
            parts.append("tags: " + ", ".join(tags[:SHOWN_REFS]) + (", ..." if len(tags) > SHOWN_REFS else ""))
        if refs.branches:
            branches = sorted(refs.branches)
            parts.append(
                "branches: " + ", ".join(branches[:SHOWN_REFS]) + (", ..." if len(branches) > SHOWN_REFS else "")
            )
        return "It has " + "; ".join(parts) + "." if parts else "It has no tags or branches."


def _said(exc: GitError) -> str:
    return "git said: " + exc.message.replace("\n", " / ")


def _folder_hint(source: Source) -> str | None:
    """For a local folder that is not a repository itself: the repository it is in and the --module to give
    (found by looking for `.git` in the folders above; git is never run inside the folder), or how to make
    it one. None for anything else."""
    if source.protocol != "file" or "://" in source.url:
        return None
    folder = Path(source.url)
    if not folder.is_dir() or (folder / ".git").exists():  # a repository git could not read: git's words say why
        return None
    for top in folder.parents:
        if (top / ".git").exists():
            rel = folder.relative_to(top).as_posix()
            return f"It is a folder of the git repository {top}: cogn add {top} --module {rel}"
    return "It is a plain folder: make it a git repository (git init, git add, git commit) and add that."
