"""The argument of `cogn add`: a git repository (URL or local path) and the revision asked for.

`SOURCE[@REF|#COMMIT]`: https://, ssh:// (and git@host:path), file:// URLs and local paths to a git
repository are accepted; `owner/repo`, when no such folder exists, is GitHub's repository (SHARE-2). Plain
http:// and git:// are refused: nothing authenticates what they carry. A URL may hold credentials
(`https://TOKEN@host/...`): git is given them, but every text shown replaces them with `***` and the lock
records the URL without them (credentials belong in git's credential helper).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from cogtui.core.records import record

PROTOCOLS = ("https", "ssh", "file")  # what git may use (git.py enforces it too); a local path is "file"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SSH_SCHEMES = {"ssh": "ssh", "git+ssh": "ssh", "ssh+git": "ssh"}
_HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")  # ext::command, fd::, any transport helper
_SCP_LIKE = re.compile(r"^(?:[^@/:\s]+@)?[^@/:\s]+:[^\s]")  # git@github.com:org/repo.git (a colon before any '/')
_GITHUB_SHORTHAND = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+$")
_COMMIT = re.compile(r"^[0-9a-fA-F]{7,40}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|^[-/.]|[/.]$|\.lock$|//")


class SourceError(ValueError):
    """A `cogn add` argument that names no usable repository or revision."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@record
class Source:
    """A git repository: what git is given, what people see, and what cognitive.lock records."""

    url: str  # for git: credentials included when the user wrote them
    shown: str  # for people: credentials replaced by ***
    stored: str  # for cognitive.lock: credentials removed; a local path as the user wrote it (see parse_source)
    protocol: str  # https, ssh or file
    secrets: tuple[str, ...] = ()  # the credentials, taken out of any text git prints

    def scrub(self, text: str) -> str:
        """`text` (a git message) with the URL shown without its credentials, and every credential as ***."""
        if self.url != self.shown:
            text = text.replace(self.url, self.shown)
        for secret in self.secrets:
            text = text.replace(secret, ":***@" if secret.startswith(":") else "***")
        return text


@record
class Revision:
    """What was asked for: `@REF` (a tag or a branch), `#COMMIT`, or neither (the newest release)."""

    ref: str | None = None
    commit: str | None = None


def split_spec(spec: str, base: Path) -> tuple[str, Revision]:
    """`SOURCE[@REF|#COMMIT]` apart: the last '@' or '#' in the repository's path (after a URL's authority, or
    the ':' of git@host:path, so a user name's '@' is never taken for a ref), so a branch may hold '/'
    (`@feature/x`). An existing folder of that whole name is taken whole (a path may hold '@' or '#')."""
    if (base / spec).is_dir():
        return spec, Revision()
    scheme = _SCHEME.match(spec)
    if scheme:
        start = spec.find("/", scheme.end())
        if start < 0:  # no path after the authority (https://user@host): nothing to split
            return spec, Revision()
    else:
        start = spec.find(":") if _SCP_LIKE.match(spec) and not _HELPER.match(spec) else 0
    at, sharp = spec.rfind("@", start), spec.rfind("#", start)
    if sharp > at:
        source, commit = spec[:sharp], spec[sharp + 1 :]
        if not _COMMIT.match(commit):
            raise SourceError(
                f"#{commit} is not a commit", "A commit is 7 to 40 hexadecimal digits; a tag or branch is @NAME."
            )
        return source, Revision(commit=commit.lower())
    if at > 0:
        source, ref = spec[:at], spec[at + 1 :]
        if not ref or _BAD_REF.search(ref):
            raise SourceError(f"@{ref} is not a tag or branch name git accepts")
        return source, Revision(ref=ref)
    return spec, Revision()


def parse_source(text: str, base: Path, relative_paths: bool = True) -> Source:
    """The repository `text` names. `base` is the folder relative local paths start from (the project root);
    such a path is recorded as written when `relative_paths`, so a copy of the project elsewhere finds it,
    and absolute otherwise (the user level's lock is read from any folder)."""
    if not text.strip():
        raise SourceError("no repository given")
    if text.startswith("-"):
        raise SourceError(f"{text!r} is not a repository", "Write a path starting with '-' as ./" + text)
    if _CONTROL.search(text):
        raise SourceError("the repository's name holds control characters")
    scheme = _SCHEME.match(text)
    if scheme:
        return _from_url(text, scheme.group(1).lower())
    if _HELPER.match(text):
        raise SourceError(
            f"{text.partition('::')[0]}:: is git's remote helper syntax, which cogn add does not use",
            "Give an https://, ssh:// or file:// URL, or a local path to a git repository.",
        )
    folder = base / Path(text).expanduser()
    if folder.is_dir():
        stored = text if relative_paths and not Path(text).expanduser().is_absolute() else str(folder.resolve())
        return Source(str(folder.resolve()), text, stored, "file")
    if _SCP_LIKE.match(text):
        return Source(text, text, text, "ssh")
    if _GITHUB_SHORTHAND.match(text):
        url = f"https://github.com/{text.removesuffix('.git')}.git"
        return Source(url, url, url, "https")
    raise SourceError(
        f"{text} is neither a git URL nor a folder",
        "Give an https://, ssh:// or file:// URL, git@host:path, owner/repo (GitHub) or a local git repository.",
    )


def _from_url(text: str, scheme: str) -> Source:
    if scheme == "http":
        raise SourceError(
            f"{_shown(text)}: plain http is refused, since anyone on the way can change what it carries",
            "Use the https:// URL.",
        )
    if scheme == "git":
        raise SourceError(
            f"{_shown(text)}: the git:// protocol is refused, since nothing authenticates the server",
            "Use the https:// or ssh:// URL.",
        )
    protocol = _SSH_SCHEMES.get(scheme, scheme)
    if protocol not in PROTOCOLS:
        raise SourceError(
            f"{_shown(text)} is not a git URL cogn add uses ({scheme}://)",
            "Give an https://, ssh:// or file:// URL, or a local path to a git repository.",
        )
    try:
        parts = urlsplit(text)
        user, password = parts.username, parts.password
    except ValueError:
        raise SourceError(f"{_shown(text)} is not a URL that can be read") from None
    userinfo, _, host = parts.netloc.rpartition("@")
    if protocol == "https" and userinfo:
        # A token is often the user part alone (https://TOKEN@github.com/...): the whole user part goes.
        shown = urlunsplit(parts._replace(netloc=f"***@{host}"))
        stored = urlunsplit(parts._replace(netloc=host))
        secrets = _secrets(userinfo, password, user if password is None else None)
    elif password is not None:
        shown = urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
        stored = urlunsplit(parts._replace(netloc=f"{user}@{host}"))
        secrets = _secrets(f":{password}@", password)
    else:
        secrets, shown, stored = (), text, text
    return Source(text, shown, stored, protocol, secrets)


def _secrets(*found: str | None) -> tuple[str, ...]:
    """What `Source.scrub` takes out of git's messages, longest first: the URL's user part and password (when
    long enough that replacing it cannot garble ordinary words; the whole URL is replaced before them)."""
    kept = {s for s in found if s and len(s) >= 4}
    return tuple(sorted(kept, key=len, reverse=True))


def _shown(url: str) -> str:
    """The URL with its user and password (whatever they hold) replaced by ***."""
    try:
        parts = urlsplit(url)
        if "@" not in parts.netloc:
            return url
        return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]))
    except ValueError:
        return "<a URL that cannot be read>"
