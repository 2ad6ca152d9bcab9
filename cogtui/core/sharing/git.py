"""The git command, as cogn add uses it on untrusted repositories.

Always an argument list (never a shell), in a scratch repository of our own, with settings that keep the
remote's content inert (SHARE-3):
- no hook runs (`core.hooksPath` is the null device; the scratch repository is made without templates);
- only https, ssh and file transports (`protocol.allow=never` and three exceptions), so neither `ext::` nor a
  redirect to plain http or git:// is followed;
- objects are checked as they arrive (`transfer.fsckObjects`), submodules are never fetched;
- no checkout ever happens: files are read out of the object store (`ls-tree`, `cat-file`), so no filter,
  attribute or symlink in the repository acts on the disk;
- git never asks on the terminal (`GIT_TERMINAL_PROMPT=0`): a repository that needs credentials fails with
  git's message instead of waiting for an answer, and a remote that stops answering ends at `GIT_TIMEOUT`;
- what a remote sends is bounded (SHARE-9): git writes its output into the scratch folder, which is watched while
  git runs; past `max_bytes` in all (the fetched objects, kept as packs as they arrive, and git's output), git
  and its helpers are killed and `TooLarge` names the limit. A commit's tree is read up to `max_entries` paths.
Variables that would point git at another repository (GIT_DIR and friends, set inside a hook) are dropped.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from cogtui.core.records import record
from cogtui.core.sharing.source import Source

GIT_TIMEOUT = 600.0  # seconds for one git command; a fetch of a large repository over a slow link fits
WATCH_SECONDS = 0.05  # how often the scratch folder's size is looked at while git runs
_SETTINGS = (
    f"core.hooksPath={os.devnull}",
    "core.fsmonitor=false",
    "protocol.allow=never",
    "protocol.https.allow=always",
    "protocol.ssh.allow=always",
    "protocol.file.allow=always",
    "transfer.fsckObjects=true",
    "fetch.recurseSubmodules=false",
    "submodule.recurse=false",
    "gc.auto=0",
    # Received objects stay one pack, written as it arrives (never unpacked object by object, which holds a whole
    # object in memory before anything is on disk): the watched size grows with what was received.
    "fetch.unpackLimit=1",
    "transfer.unpackLimit=1",
    "maintenance.auto=false",
)
_LOCATION_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


class GitError(Exception):
    """git failed or is missing; `message` is git's own words with credentials taken out."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TooLarge(Exception):
    """What a remote sent, or a commit's tree, passed a limit; git was stopped. Not a GitError: no other way of
    fetching is tried (it would be as large)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def size_of(folder: Path) -> int:
    """Bytes of every file under `folder` (files that vanish while it is walked are not counted)."""
    total = 0
    for top, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                pass
    return total


def mib(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MiB" if size >= 1024 * 1024 else f"{size:,} bytes"


@record
class RemoteRefs:
    """What `git ls-remote` lists: tags and branches with their commits, and the default branch."""

    tags: dict[str, str]  # name -> the commit it points to (an annotated tag's target)
    branches: dict[str, str]
    default_branch: str | None


@record
class TreeEntry:
    """One path of a commit's tree (`git ls-tree -r -l`): a blob, a symlink or a submodule."""

    mode: str  # 100644, 100755, 120000 (a symlink), 160000 (a submodule)
    oid: str
    size: int | None  # None for a submodule
    path: str


class Git:
    """git commands about one repository, fetched into a scratch repository at `scratch`."""

    def __init__(
        self,
        source: Source,
        scratch: Path,
        timeout: float = GIT_TIMEOUT,
        max_bytes: int | None = None,
        max_entries: int | None = None,
    ) -> None:
        self.source = source
        self.scratch = scratch
        self.timeout = timeout
        self.max_bytes = max_bytes  # the scratch folder's size at most (what was fetched, and git's output)
        self.max_entries = max_entries  # paths of a commit's tree at most
        self._ready = False

    def run(self, args: Sequence[str], stdin: bytes | None = None, here: bool = True) -> bytes:
        """git's output (stdout); GitError with its message (credentials scrubbed) when it fails, TooLarge when
        the scratch folder passes `max_bytes` while it runs."""
        command = ["git"]
        for setting in _SETTINGS:
            command += ["-c", setting]
        if here:
            command += ["-C", str(self.scratch)]
        env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_CEILING_DIRECTORIES"] = str(self.scratch.parent)  # no repository above the scratch one is used
        out_path, err_path = self.scratch / ".cogtui-stdout", self.scratch / ".cogtui-stderr"
        try:
            with out_path.open("w+b") as out, err_path.open("w+b") as said, tempfile.TemporaryFile() as given:
                given.write(stdin or b"")
                given.seek(0)
                try:
                    proc = subprocess.Popen(
                        [*command, *args],
                        stdin=given,
                        stdout=out,
                        stderr=said,
                        env=env,
                        cwd=self.scratch,
                        start_new_session=True,  # git and the helpers it starts, killed as one group
                    )
                except FileNotFoundError:
                    raise GitError("git is not installed, or not on PATH (cogn add fetches modules with it)") from None
                try:
                    code = self._watch(proc)
                finally:
                    _stop(proc)
                out.seek(0)
                output = out.read()
                said.seek(0)
                words = said.read()
        finally:
            out_path.unlink(missing_ok=True)
            err_path.unlink(missing_ok=True)
        if code != 0:
            text = words.decode("utf-8", "replace").strip() or f"git exited with {code}"
            lines = [line for line in text.splitlines() if line.strip() and not line.startswith("hint:")]
            raise GitError(self.source.scrub("\n".join(lines[-6:])))
        return output

    def _watch(self, proc: subprocess.Popen[bytes]) -> int:
        """Wait for git, looking at the scratch folder's size as it runs and once it is done; its exit code."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                code = proc.wait(timeout=WATCH_SECONDS)
                break
            except subprocess.TimeoutExpired:
                self._check_size()
                if time.monotonic() > deadline:
                    raise GitError(f"git did not finish within {self.timeout:.0f} s ({self.source.shown})") from None
        self._check_size()
        return code

    def _check_size(self) -> None:
        if self.max_bytes is not None and (size := size_of(self.scratch)) > self.max_bytes:
            raise TooLarge(
                f"{self.source.shown} sent more than {mib(self.max_bytes)} (at least {mib(size)}), the most cogn add "
                "downloads for a module; it was stopped, and nothing was installed"
            )

    def remote_refs(self) -> RemoteRefs:
        """The repository's tags and branches (`git ls-remote --symref`); GitError when it is not a git
        repository or cannot be reached."""
        out = self.run(["ls-remote", "--symref", self.source.url], here=False).decode("utf-8", "replace")
        tags: dict[str, str] = {}
        peeled: dict[str, str] = {}
        branches: dict[str, str] = {}
        default = None
        for line in out.splitlines():
            left, _, name = line.partition("\t")
            if left.startswith("ref: ") and name == "HEAD":
                default = left[5:].removeprefix("refs/heads/")
            elif name.startswith("refs/tags/") and name.endswith("^{}"):
                peeled[name[10:-3]] = left
            elif name.startswith("refs/tags/"):
                tags[name[10:]] = left
            elif name.startswith("refs/heads/"):
                branches[name[11:]] = left
        tags.update((tag, oid) for tag, oid in peeled.items() if tag in tags)
        return RemoteRefs(tags, branches, default)

    def fetch(self, what: str) -> str:
        """The commit `what` (a full ref name or a full commit id) fetched alone (depth 1); its id."""
        self._init()
        self.run(["fetch", "--quiet", "--depth", "1", "--no-tags", "--no-recurse-submodules", self.source.url, what])
        return self.commit_of("FETCH_HEAD")

    def fetch_all(self) -> None:
        """Every branch and tag (full history): how an abbreviated commit, or one a server will not give by its
        id alone, is found."""
        self._init()
        self.run(
            [
                "fetch",
                "--quiet",
                "--no-recurse-submodules",
                self.source.url,
                "+refs/heads/*:refs/fetched/heads/*",
                "+refs/tags/*:refs/fetched/tags/*",
            ]
        )

    def commit_of(self, name: str) -> str:
        """The full id of the commit `name` (an id, abbreviated or not, or FETCH_HEAD) names; GitError if none."""
        return self.run(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}"]).decode().strip()

    def has_commit(self, commit: str) -> bool:
        """Whether the scratch repository holds commit `commit` already."""
        self._init()
        try:
            self.run(["cat-file", "-e", f"{commit}^{{commit}}"])
        except GitError:
            return False
        return True

    def tree(self, commit: str) -> list[TreeEntry]:
        """Every file, symlink and submodule of the commit's tree, by path."""
        out = self.run(["ls-tree", "-r", "-z", "-l", "--full-tree", commit])
        entries: list[TreeEntry] = []
        for item in out.split(b"\0"):
            if not item:
                continue
            if self.max_entries is not None and len(entries) >= self.max_entries:
                raise TooLarge(
                    f"{self.source.shown} at {commit[:12]} holds more than {self.max_entries:,} files, the most cogn "
                    "add reads to find a module; nothing was installed"
                )
            meta, _, raw_path = item.partition(b"\t")
            try:
                mode, _kind, oid, size = meta.decode("ascii").split()
            except ValueError:
                raise GitError(f"git ls-tree said what cannot be read: {meta[:80]!r}") from None
            try:
                path = raw_path.decode("utf-8")
            except UnicodeDecodeError:
                path = raw_path.decode("utf-8", "surrogateescape")  # refused by repo_tree (names must be UTF-8)
            entries.append(TreeEntry(mode, oid, None if size == "-" else int(size), path))
        return entries

    def blobs(self, oids: Sequence[str]) -> dict[str, bytes]:
        """The bytes of each blob (`git cat-file --batch`); the sizes were checked from `tree` before."""
        if not oids:
            return {}
        out = self.run(["cat-file", "--batch"], stdin="".join(f"{oid}\n" for oid in oids).encode("ascii"))
        found: dict[str, bytes] = {}
        at = 0
        for oid in oids:
            end = out.find(b"\n", at)
            header = out[at:end].decode("ascii", "replace").split() if end >= 0 else []
            if len(header) != 3 or header[1] != "blob" or not header[2].isdigit():
                raise GitError(f"object {oid} cannot be read from the repository")
            size = int(header[2])
            found[oid] = out[end + 1 : end + 1 + size]
            at = end + 1 + size + 1
        return found

    def _init(self) -> None:
        if not self._ready:
            self.run(["init", "--quiet", "--bare", "--template=", str(self.scratch)], here=False)
            self._ready = True


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill git and the helpers it started (index-pack, upload-pack), if they still run."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (AttributeError, ProcessLookupError, PermissionError):  # no process groups (Windows), or gone
            proc.kill()
        proc.wait()
