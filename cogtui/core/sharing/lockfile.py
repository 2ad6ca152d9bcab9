"""cognitive.lock: what `cogn add` installed, from where, at which commit, with which content (SHARE-1).

The project's lock is `cognitive.lock` at the project root (the folder holding `.cognitive/modules`); the
user level's is `~/.cognitive/cognitive.lock`. It is JSON, one key a line and modules in name order, so a
change reads as a small diff in review:

    {
      "lock_format": 1,
      "modules": {
        "summarizer": {
          "source": "https://github.com/acme/modules.git",
          "path_in_repo": "modules/summarizer",
          "ref": "v1.2.0",
          "follows": "tag",
          "commit": "<40 hex digits>",
          "hash": "sha256:<64 hex digits>"
        }
      }
    }

The content hash (`content_hash`) is SHA-256 over the module's files in the byte order of their paths (UTF-8,
'/'-separated, relative to the module folder); for each file: its path, a NUL byte, its length in decimal
ASCII digits, a NUL byte, then its bytes. Folders, modes and times are not part of it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from cogtui.core.files.confined import ParseFailure, read_confined
from cogtui.core.files.editor_snapshot import atomic_write
from cogtui.core.records import record
from cogtui.core.sharing.repo_tree import Limits, name_problem

LOCK_NAME = "cognitive.lock"
LOCK_FORMAT = 1
MAX_LOCK_BYTES = 4 * 1024 * 1024
FOLLOWS = ("tag", "branch", "commit")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")


class LockError(Exception):
    """cognitive.lock cannot be read or does not say what a lock says."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@record
class LockEntry:
    """One installed module: where it comes from and what was installed."""

    source: str  # the repository (credentials removed)
    path_in_repo: str  # the module folder in the repository; "" for its root
    ref: str | None  # the tag or branch followed; None for a pinned commit
    follows: str  # "tag", "branch" or "commit": what `cogn update` moves along
    commit: str  # the full commit id installed
    hash: str  # content_hash of the installed files

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "path_in_repo": self.path_in_repo,
            "ref": self.ref,
            "follows": self.follows,
            "commit": self.commit,
            "hash": self.hash,
        }


def content_hash(files: Mapping[str, bytes]) -> str:
    """`sha256:` and the hex digest of the module's files, as the module docstring defines it."""
    digest = hashlib.sha256()
    for rel in sorted(files, key=lambda r: r.encode("utf-8", "surrogateescape")):
        data = files[rel]
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return "sha256:" + digest.hexdigest()


def folder_files(folder: Path, limits: Limits | None = None) -> dict[str, bytes] | None:
    """An installed module folder's files by relative path, for its content hash and a diff; None when it
    cannot be read whole, or holds what an install never makes (a symlink, a FIFO, more than `limits`): such a
    folder differs from any lock entry."""
    limits = limits or Limits()
    files: dict[str, bytes] = {}
    total = 0
    try:
        for dirpath, dirnames, filenames in os.walk(folder, onerror=_raise):
            here = Path(dirpath)
            for name in dirnames:
                if (here / name).is_symlink():
                    return None
            for name in filenames:
                path = here / name
                if path.is_symlink():
                    return None
                data = read_confined(path, folder, limit=limits.file_bytes)
                total += len(data)
                if len(files) >= limits.files or total > limits.total_bytes:
                    return None
                files[path.relative_to(folder).as_posix()] = data
    except (OSError, ParseFailure):
        return None
    return files


def _raise(exc: OSError) -> None:
    raise exc


class Lock:
    """A lock file's entries by module name; `save` writes it back atomically."""

    def __init__(self, path: Path, entries: dict[str, LockEntry] | None = None) -> None:
        self.path = path
        self.entries: dict[str, LockEntry] = {} if entries is None else entries

    def save(self) -> None:
        modules = {name: self.entries[name].to_json() for name in sorted(self.entries)}
        text = json.dumps({"lock_format": LOCK_FORMAT, "modules": modules}, indent=2, ensure_ascii=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, (text + "\n").encode("utf-8"))


def read_lock(path: Path) -> Lock:
    """The lock at `path` (empty when there is none); LockError, saying where, when it cannot be used."""
    if not path.exists():
        return Lock(path)
    try:
        raw = read_confined(path, path.parent, limit=MAX_LOCK_BYTES)
    except ParseFailure as exc:
        raise LockError(f"{path}: {exc.diagnostic.message}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise LockError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise LockError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})", _REPAIR) from None
    if not isinstance(data, dict) or not isinstance(data.get("modules"), dict):
        raise LockError(f'{path}: not a lock file (it needs a "modules" object)', _REPAIR)
    if data.get("lock_format") != LOCK_FORMAT:
        raise LockError(
            f"{path}: lock_format {data.get('lock_format')!r} is not one this cogtui reads ({LOCK_FORMAT})",
            "A newer cogtui wrote it: upgrade cogtui.",
        )
    entries = {}
    for name, value in data["modules"].items():
        entries[name] = _entry(path, name, value)
    return Lock(path, entries)


_REPAIR = "Restore it from version control, or delete it and add the modules again."


def _entry(path: Path, name: str, value: object) -> LockEntry:
    def bad(what: str) -> LockError:
        return LockError(f"{path}: modules.{name}: {what}", _REPAIR)

    if not isinstance(value, dict):
        raise bad("not an object")
    for key in ("source", "path_in_repo", "follows", "commit", "hash"):
        if not isinstance(value.get(key), str):
            raise bad(f"{key} must be a string")
    ref = value.get("ref")
    if ref is not None and not isinstance(ref, str):
        raise bad("ref must be a string or null")
    if value["follows"] not in FOLLOWS:
        raise bad(f"follows must be one of {', '.join(FOLLOWS)}")
    if value["follows"] != "commit" and not ref:
        raise bad(f"an entry that follows a {value['follows']} needs its ref")
    if not _COMMIT.match(value["commit"]):
        raise bad("commit must be a full commit id (40 hexadecimal digits)")
    if not _HASH.match(value["hash"]):
        raise bad("hash must be sha256: and 64 hexadecimal digits")
    if (problem := name_problem(name)) is not None:
        raise LockError(f"{path}: modules: {problem}", _REPAIR)
    return LockEntry(value["source"], value["path_in_repo"], ref, value["follows"], value["commit"], value["hash"])
