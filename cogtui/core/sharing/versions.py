"""Tags as semantic versions: which one is the newest release (SHARE-4).

A tag is a version when it is `MAJOR.MINOR.PATCH`, with an optional `v` before it and the optional
pre-release (`-rc.1`) and build (`+meta`) parts of semver.org. Versions are ordered by semver precedence
(build metadata ignored); a pre-release is never "the newest" unless asked for by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TAG = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$"
)

Key = tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]


def version_key(tag: str) -> Key | None:
    """The tag's place in semver order, or None when it is not a version."""
    found = _TAG.match(tag)
    if found is None:
        return None
    major, minor, patch, pre = found.groups()
    if pre is None:  # a release ranks above its pre-releases
        return (int(major), int(minor), int(patch), 1, ())
    parts = tuple((0, int(p)) if p.isdigit() else (1, p) for p in pre.split("."))
    return (int(major), int(minor), int(patch), 0, parts)


def newest_release(tags: Iterable[str]) -> str | None:
    """The highest version among `tags` that is not a pre-release; None when there is none. Of two tags with
    the same version (`v1.2.0` and `1.2.0`), the one sorting first by name."""
    best: tuple[Key, str] | None = None
    for tag in sorted(tags):
        key = version_key(tag)
        if key is not None and key[3] == 1 and (best is None or key > best[0]):
            best = (key, tag)
    return None if best is None else best[1]


def is_newer(tag: str, than: str) -> bool:
    """Whether `tag` is a higher version than `than` (False when either is not a version)."""
    a, b = version_key(tag), version_key(than)
    return a is not None and b is not None and a > b
