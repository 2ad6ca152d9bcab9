"""What `cogn add`, `cogn update` and `cogn remove` share: options, opening the level, output and exit codes.

Exit codes: 0 done (or nothing to do), 1 a module was refused, 2 usage errors (a source that names no
repository, a module not installed, a lock that cannot be read, another command at work in the folder), 3
an update shown and not written (`cogn update` off a terminal without --yes, or answered no).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .output import Printer, err, print_diagnostic

if TYPE_CHECKING:
    from cogtui.core.sharing.install import Installer, Outcome, Place
    from cogtui.core.sharing.lockfile import LockEntry

USAGE_REASONS = frozenset({"source", "not-installed"})  # refusals that are the command line's mistake: exit 2
EX_PENDING = 3


def common_options(p: argparse.ArgumentParser, force_help: str) -> None:
    p.add_argument(
        "--user",
        action="store_true",
        help="the user level (~/.cognitive/modules, ~/.cognitive/cognitive.lock), not the project's",
    )
    p.add_argument("--force", action="store_true", help=force_help)
    p.add_argument("--json", action="store_true", help="print JSON")


def download_option(p: argparse.ArgumentParser) -> None:
    """--max-download: how much `add` and `update` fetch to find a module (core/sharing/git.py, SHARE-9)."""
    from cogtui.core.sharing.repo_tree import DOWNLOAD_MIB

    p.add_argument(
        "--max-download",
        type=_mebibytes,
        default=DOWNLOAD_MIB,
        metavar="MIB",
        help=f"stop a fetch past MIB mebibytes (default {DOWNLOAD_MIB}): a repository larger than that is refused",
    )


def _mebibytes(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of mebibytes, 1 or more")
    return int(text)


@contextmanager
def installer(args: argparse.Namespace, create: bool = False) -> Iterator[Installer | None]:
    """The Installer of the level the arguments name, or None (said on stderr) when the level's folder is
    busy or its lock cannot be read. Its modules folder is made at once with `create` (adding a module)."""
    from cogtui.core.sharing.install import Installer, place_for
    from cogtui.core.sharing.lockfile import LockError
    from cogtui.core.sharing.placement import RootBusy
    from cogtui.core.sharing.repo_tree import Limits

    place = place_for("user" if args.user else "project")
    progress = None if args.json else _progress
    mib = getattr(args, "max_download", None)  # `remove` fetches nothing
    limits = Limits(download_bytes=mib << 20) if mib else Limits()
    try:
        opened = Installer(
            place, args.paths, force=args.force, limits=limits, progress=progress, create=create
        ).__enter__()
    except LockError as exc:
        err(exc.message + (f" ({exc.hint})" if exc.hint else ""))
        yield None
        return
    except RootBusy as exc:
        err(str(exc))
        yield None
        return
    except OSError as exc:
        err(f"cannot use {place.root}: {exc.strerror or exc}")
        yield None
        return
    try:
        yield opened
    finally:
        opened.__exit__(None, None, None)


def without_lock(args: argparse.Namespace) -> Place | None:
    """The level's place when it has no lock file, so the command can say there is nothing installed without
    opening the level (which would make its modules folder); None when it has one."""
    from cogtui.core.sharing.install import place_for

    place = place_for("user" if args.user else "project")
    return None if place.lock_path.exists() else place


def _progress(message: str) -> None:
    Printer(sys.stderr).line(f"{message} ...", "dim")


def exit_code(outcomes: list[Outcome]) -> int:
    refusals = [o for o in outcomes if o.status == "refused"]
    if any(o.reason in USAGE_REASONS for o in refusals):
        return 2
    if refusals:
        return 1
    return EX_PENDING if any(o.status == "pending" for o in outcomes) else 0


def print_json(command: str, outcomes: list[Outcome]) -> None:
    """The one `--json` document (docs/cli.md): one object per module, and how many had each status."""
    summary: dict[str, Any] = {"modules": len(outcomes)}
    for outcome in outcomes:
        summary[outcome.status] = summary.get(outcome.status, 0) + 1
    Printer().document(command, "modules", [o.to_json() for o in outcomes], summary)


def print_outcome(p: Printer, o: Outcome) -> None:
    """One module's line, then what it needs said: a refusal's reason and diagnostics, an update's diff."""
    at = _at(o.entry) if o.entry else ""
    if o.status == "refused":
        # "✗ NAME: what happened", or "✗ NAME does not validate" when the message starts with the name
        said = o.message[len(o.name) :] if o.message.startswith(o.name + " ") else f": {o.message}"
        p.parts(("✗ ", "error"), (o.name, "bold"), (said, None))
    elif o.status in ("installed", "updated", "removed"):
        version = f" {o.version}" if o.version else ""
        p.parts(("✓ ", "ok"), (f"{o.status} ", None), (o.name, "bold"), (version, None), (f" from {_from(o)}", "dim"))
    elif o.status == "unchanged":
        p.parts(("= ", "dim"), (o.name, "bold"), (f" is installed as the lock says ({at})", "dim"))
    elif o.status == "current":
        p.parts(("= ", "dim"), (o.name, "bold"), (f" is up to date ({at})", "dim"))
    elif o.status == "pinned":
        p.parts(
            ("= ", "dim"),
            (o.name, "bold"),
            (f" is pinned at {at}: update leaves it (add it again with @TAG or @BRANCH to follow one)", "dim"),
        )
    elif o.status == "pending":
        p.parts(("~ ", "warning"), (o.name, "bold"), (f": {_move(o)}", None))
    for d in o.diagnostics:
        print_diagnostic(p, d)
    if o.hint:
        p.parts(("  hint: ", "dim"), (o.hint, None))
    if o.status == "pending":
        print_changes(p, o)


def _at(entry: LockEntry) -> str:
    """`v1.2.0 at 0123456789ab`, or `commit 0123456789ab` for a pinned one."""
    return f"{entry.ref} at {entry.commit[:12]}" if entry.ref else f"commit {entry.commit[:12]}"


def _from(o: Outcome) -> str:
    entry = o.entry
    if entry is None:
        return "-"
    where = entry.source + (f" ({entry.path_in_repo})" if entry.path_in_repo else "")
    return f"{where}, {_at(entry)}"


def _move(o: Outcome) -> str:
    old, new = o.previous, o.entry
    assert old is not None and new is not None
    return f"{_at(old)} -> {_at(new)}"


def print_changes(p: Printer, o: Outcome) -> None:
    if not o.changes:
        p.line("  no file changes", "dim")
    for change in o.changes:
        p.parts(("  ", None), (f"{change.change} ", "dim"), (change.path, "bold"))
        if change.binary or not change.diff:
            p.line("    (a binary file)" if change.binary else "    (an empty file)", "dim")
            continue
        p.diff(change.diff, dim_headers=True)


def print_summary(p: Printer, outcomes: list[Outcome]) -> None:
    """`3 modules: 2 installed, 1 unchanged` after more than one module."""
    if len(outcomes) < 2:
        return
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    said = ", ".join(f"{n} {status}" for status, n in counts.items())
    p.line(f"{len(outcomes)} modules: {said}", "error" if "refused" in counts else None)
