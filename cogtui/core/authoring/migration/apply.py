"""Apply a plan atomically, with a backup; undo the latest migration from its backup.

Backups live outside every search path, in
`$COGTUI_DATA_DIR/backups/<module>/<timestamp>/`: `files/` holds each file the
migration modified or deleted, as it was, and `backup.json` lists every change
(created files included, with their hashes) so `undo_latest` can restore the
folder exactly. An undone backup is renamed `<timestamp>.undone` and keeps the
files a later edit had changed, under `edited/`.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.diagnostics import Severity
from cogtui.core.files.journal import pending, recover
from cogtui.core.files.text_codec import sha256
from cogtui.core.files.transaction import (
    FileTransaction,
    RollbackIncomplete,
    fsync_dir,
    is_plain_empty_dir,
    write_durable,
)
from cogtui.core.settings.locations import backups_dir

MANIFEST = "backup.json"
UNDONE = ".undone"


class MigrationError(Exception):
    """Applying or undoing failed; nothing was changed (or everything was put back)."""


class StalePlan(MigrationError):
    """The files are no longer what the plan was made from: nothing was written; plan again (MIG-9)."""


@dataclass(frozen=True)
class ApplyResult:
    module: str
    path: Path
    backup_dir: Path | None
    created: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "path": str(self.path),
            "backup": str(self.backup_dir) if self.backup_dir else None,
            "created": list(self.created),
            "modified": list(self.modified),
            "deleted": list(self.deleted),
        }


@dataclass(frozen=True)
class UndoResult:
    module: str
    path: Path
    backup_dir: Path
    restored: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    edited_since: tuple[str, ...] = field(default=())  # changed after the migration; saved in the backup's edited/


def _timestamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S_%fZ")


def staleness(plan: MigrationPlan) -> str | None:
    """Why the files are no longer what the plan was computed from (a file it changes was edited, deleted or
    appeared), or None while the plan still holds. A file that cannot be read counts as changed."""
    for f in plan.files:
        path = plan.path / f.path
        try:
            current = path.read_bytes() if path.exists() else None
        except OSError:
            return f"{path} can no longer be read"
        if f.action == "create" and current is not None:
            return f"{path} appeared after the plan was made"
        if f.action != "create" and current != f.old_bytes:
            return f"{path} changed after the plan was made"
    return None


def _check_fresh(plan: MigrationPlan) -> None:
    """The files must still be what the plan was computed from."""
    if (reason := staleness(plan)) is not None:
        raise StalePlan(f"{reason}; plan again")


def _write_backup(plan: MigrationPlan, folder: Path) -> None:
    """Durable before the migration renames anything: each file and folder is fsynced."""
    files = folder / "files"
    folders = {folder}
    for f in plan.files:
        if f.old_bytes is not None:
            target = files / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            write_durable(target, f.old_bytes)
            folders.update(p for p in target.parents if p.is_relative_to(folder))
    manifest = {
        "module": plan.module,
        "module_path": str(plan.path.resolve()),
        "created": datetime.now(UTC).isoformat(),
        "from": plan.source_format,
        "to": plan.target,
        "promotion": plan.promotion,
        "changes": [
            {
                "path": f.path,
                "action": f.action,
                "sha256_before": sha256(f.old_bytes) if f.old_bytes is not None else None,
                "sha256_after": sha256(f.new_bytes) if f.new_bytes is not None else None,
            }
            for f in plan.files
        ],
    }
    write_durable(folder / MANIFEST, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    for made in [*sorted(folders, key=lambda p: len(p.parts), reverse=True), folder.parent]:
        fsync_dir(made)


def apply_plan(plan: MigrationPlan, backup: bool = True, verify: bool = True) -> ApplyResult:
    """Write the plan. All of it or none: any failure (including, with `verify`, a migrated module that
    `validate --v22` rejects) restores the folder byte for byte and raises MigrationError."""
    if plan.errors:
        raise MigrationError(f"{plan.module}: the plan has errors; nothing was written")
    if not plan.files:
        return ApplyResult(plan.module, plan.path, None)
    if pending(plan.path):  # the plan was made from a half-applied folder
        outcome = recover(plan.path)
        raise StalePlan(f"{plan.module}: an interrupted migration was found and {outcome}; plan again")
    _check_fresh(plan)
    tx = FileTransaction(plan.path, journal=True)
    for f in plan.files:
        if f.action == "delete":
            tx.delete(f.path)
        else:
            tx.write(f.path, f.new_bytes or b"")
    backup_folder: Path | None = None
    planned: Path | None = None
    if backup:
        base = backups_dir() / plan.module
        planned = base / _timestamp()
        n = 1
        while planned.exists():
            planned, n = base / f"{_timestamp()}-{n}", n + 1
        tx.note["backup"] = str(planned)  # a kill before the renames removes it again (journal.recover)

    def make_backup() -> None:
        nonlocal backup_folder
        if planned is None:
            return
        planned.mkdir(parents=True)
        backup_folder = planned
        _write_backup(plan, planned)

    try:
        tx.commit(make_backup)
        if verify:
            _verify(plan)
    except BaseException as exc:
        left = exc if isinstance(exc, RollbackIncomplete) else None
        if left is None:
            try:
                tx.rollback()  # nothing to do when commit already rolled back
            except RollbackIncomplete as incomplete:
                left = incomplete
        if left is not None:  # the backup is the only full copy of what was there: it stays, and is said
            cause = left.__context__ if left is exc else exc
            raise MigrationError(
                f"{plan.module}: {_what_failed(cause, plan.path)}; the change could not be fully rolled back "
                f"({left.strerror}); every file as it was is in the backup {backup_folder}: "
                f"`cogn migrate --undo {plan.module}` puts them back"
            ) from exc
        if backup_folder is not None:
            shutil.rmtree(backup_folder, ignore_errors=True)
            with contextlib.suppress(OSError):  # the module's folder, if this was its only backup
                backup_folder.parent.rmdir()
        if isinstance(exc, MigrationError):
            raise
        if isinstance(exc, OSError):
            raise MigrationError(
                f"{plan.module}: {_what_failed(exc, plan.path)}; every change was rolled back"
            ) from exc
        raise
    by_action = {a: tuple(f.path for f in plan.files if f.action == a) for a in ("create", "modify", "delete")}
    return ApplyResult(
        plan.module, plan.path, backup_folder, by_action["create"], by_action["modify"], by_action["delete"]
    )


def _what_failed(exc: BaseException | None, folder: Path) -> str:
    if isinstance(exc, OSError):  # a refused rename names its target second: the file that refused it
        return f"{exc.strerror or exc} ({exc.filename2 or exc.filename or folder})"
    return f"{type(exc).__name__}: {exc}" if exc is not None else "the change failed"


def _verify(plan: MigrationPlan) -> None:
    from cogtui.core.module.loader import load_module
    from cogtui.core.rules.validate_module import validate_module

    module = load_module(plan.path)
    errors = [d for d in validate_module(module, v22=True) if d.severity is Severity.ERROR]
    if errors:
        shown = "; ".join(f"{d.location} {d.code} {d.message}" for d in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise MigrationError(
            f"{plan.module}: the migrated module would not pass validate --v22: {shown}{more}; "
            "every change was rolled back"
        )


# ---------------------------------------------------------------- undo


def backed_up_modules() -> list[str]:
    """The names of the modules with migration backups (undone or not)."""
    try:
        return sorted(p.name for p in backups_dir().iterdir() if p.is_dir())
    except OSError:  # no backups folder yet, or one that cannot be listed
        return []


def backups_for(module_name: str) -> list[Path]:
    """This module's backup folders that can still be undone, oldest first."""
    base = backups_dir() / module_name
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.is_dir() and not p.name.endswith(UNDONE) and (p / MANIFEST).is_file())


def undoable_backups(module_name: str, target_dir: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The backups (folder, manifest) of changes to `target_dir` that can still be undone, oldest first: only the
    last can be undone now, then the one before it."""
    target = target_dir.resolve()
    found = []
    for folder in backups_for(module_name):
        try:
            manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and Path(str(manifest.get("module_path", ""))) == target:
            found.append((folder, manifest))
    return found


def latest_backup(module_name: str, target_dir: Path) -> tuple[Path, dict[str, Any]] | None:
    """The latest backup (folder, manifest) of a change to `target_dir` that can still be undone."""
    found = undoable_backups(module_name, target_dir)
    return found[-1] if found else None


def undo_latest(module_name: str, target_dir: Path) -> UndoResult:
    """Restore `target_dir` from the latest backup of a migration of it; raises MigrationError if there is none."""
    target = target_dir.resolve()
    latest = latest_backup(module_name, target)
    if latest is None:
        raise MigrationError(f"no migration backup of {module_name} at {target} in {backups_dir() / module_name}")
    folder, manifest = latest
    try:
        return _undo_from(module_name, target, folder, manifest)
    except (KeyError, TypeError, AttributeError) as exc:
        raise MigrationError(
            f"the backup in {folder} is damaged ({type(exc).__name__}: {exc}); nothing was changed"
        ) from None
    except OSError as exc:
        where = exc.filename or folder
        raise MigrationError(
            f"undo of {module_name} failed: {exc.strerror or exc} ({where}); nothing was changed"
        ) from None


def _undo_from(module_name: str, target: Path, folder: Path, manifest: dict[str, Any]) -> UndoResult:
    tx = FileTransaction(target, journal=True)
    restored, removed, edited = [], [], []
    for change in manifest["changes"]:
        rel, action = change["path"], change["action"]
        path = target / rel
        current = path.read_bytes() if path.exists() else None
        # Anything on disk that is not what the migration left (a file it deleted and someone re-created
        # counts too) is somebody's later work: kept under edited/ before it is overwritten or removed.
        if current is not None and sha256(current) != change.get("sha256_after"):
            edited.append((rel, current))
        if action == "create":
            if current is not None:
                tx.delete(rel)
                removed.append(rel)
        else:
            original = (folder / "files" / rel).read_bytes()
            if current != original:
                tx.write(rel, original)
                restored.append(rel)

    def keep_edited() -> None:  # after the paths are checked, before anything is overwritten
        for rel, data in edited:
            keep = folder / "edited" / rel
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.write_bytes(data)

    tx.commit(keep_edited)
    # The undo itself is done: tidying up afterwards must not report it as failed.
    with contextlib.suppress(OSError):
        _prune_created_dirs(target, manifest)
    done = folder.with_name(folder.name + UNDONE)
    try:
        folder.rename(done)
    except OSError:
        done = folder  # still listed as undoable; undoing again finds nothing left to change
    return UndoResult(module_name, target, done, tuple(restored), tuple(removed), tuple(r for r, _ in edited))


def _prune_created_dirs(target: Path, manifest: dict[str, Any]) -> None:
    """Folders only the migration's files were in (tests/ made from examples/) go with them."""
    folders = {(target / c["path"]).parent for c in manifest.get("changes", []) if c["action"] == "create"}
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder != target and is_plain_empty_dir(folder):
            folder.rmdir()
