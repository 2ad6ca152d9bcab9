"""Saved migration plans, read back for review (`cogtui review PLAN.json`), and the view of a plan the TUI draws.

A plan file is what `cogn migrate --dry-run --json` prints: `{"format": 1,
"command": "migrate", "modules": [plan, ...], "summary": {...}}` (docs/cli.md),
or what it printed before that document had a format: one plan object, or
`{"plans": [...], "summary": {...}}` with `--all` (docs/migration.md, "The JSON
plan"). `load_plan_file` turns any of them into `ReviewPlan`s and never raises
anything but `PlanFileError`, whose message names the file and, for bad JSON,
the line and column, or for a wrong shape, the key (`plans[1].files[0].action`).

`ReviewPlan.from_plan` converts a live `MigrationPlan` into the same dataclass,
so the TUI draws a plan it just computed and a plan someone saved in CI
through one code path: both look identical.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogtui.core.authoring.migration.plan import MigrationPlan, Note, confirm_first
from cogtui.core.diagnostics import format_location

ACTIONS = ("create", "modify", "delete")


class PlanFileError(Exception):
    """A plan file that cannot be reviewed: missing, unreadable, not JSON, or not shaped like a plan."""

    def __init__(
        self, message: str, path: Path, key: str | None = None, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.path = path
        self.key = key
        self.line = line
        self.column = column


@dataclass(frozen=True)
class ReviewFile:
    """One file of a plan: what happens to it, its unified diff, and its new text when the plan carries it."""

    path: str
    action: str  # create, modify or delete
    diff: str
    content: str | None = None  # the new text (LF); None for a delete
    source: str | None = None  # a created file's diff is against this file
    origins: tuple[str, ...] = ()
    encoding: str = "UTF-8"
    newline: str = "LF"

    @property
    def style_label(self) -> str:
        return f"{self.encoding}, {self.newline}"


@dataclass(frozen=True)
class ReviewIssue:
    """Why a module cannot be migrated, located in the file to fix."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    code: str | None = None
    hint: str = ""

    def location(self, relative_to: str | None = None) -> str:
        if self.file is None:
            return "-"
        file = Path(self.file)
        if relative_to:
            with contextlib.suppress(ValueError):  # a file outside the module stays absolute
                file = file.relative_to(relative_to)
        return format_location(file, self.line, self.column)


@dataclass(frozen=True)
class ReviewPlan:
    """A migration plan as people review it; built from a live plan or from a saved one."""

    module: str
    source_format: str
    target: str | None
    files: tuple[ReviewFile, ...] = ()
    notes: tuple[str, ...] = ()
    errors: tuple[ReviewIssue, ...] = ()
    path: str | None = None
    tier: str | None = None
    tier_inferred: bool = False
    already_current: bool = False
    result: str | None = None  # what the CLI did: "would migrate", "already current", "failed" (saved plans only)
    reason: str | None = None

    @property
    def can_apply(self) -> bool:
        return not self.errors and not self.already_current and bool(self.files)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(ACTIONS, 0)
        for f in self.files:
            out[f.action] = out.get(f.action, 0) + 1
        return out

    def counts_text(self) -> str:
        return ", ".join(f"{n} {action}" for action, n in self.counts().items() if n) or "no file changes"

    def notes_to_confirm_first(self) -> list[str]:
        """The notes, those the author should confirm first (the inferred tier leads them), then the others."""
        return confirm_first(self.notes)

    @classmethod
    def from_plan(cls, plan: MigrationPlan) -> ReviewPlan:
        files = tuple(
            ReviewFile(
                f.path, f.action, f.diff, f.new_text, f.source, f.origins, f.style.encoding_name, f.style.newline_name
            )
            for f in plan.files
        )
        errors = tuple(
            ReviewIssue(e.message, str(e.file) if e.file else None, e.line, e.column, e.code, e.hint)
            for e in plan.errors
        )
        return cls(
            plan.module,
            plan.source_format,
            plan.target,
            files,
            plan.notes,
            errors,
            str(plan.path),
            plan.tier,
            plan.tier_inferred,
            plan.already_current,
        )

    @classmethod
    def unplannable(cls, module: str, path: Path, message: str, source_format: str = "?") -> ReviewPlan:
        """A module that could not even be planned (not a module folder, unreadable, a planner bug)."""
        return cls(module, source_format, None, errors=(ReviewIssue(message, str(path)),), path=str(path))


# ---------------------------------------------------------------- reading a plan file


def load_plan_file(path: Path) -> list[ReviewPlan]:
    """The plans in a `cogn migrate --dry-run --json` file (one module or `--all`); PlanFileError when unusable."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PlanFileError(f"{path}: no such file", path) from None
    except IsADirectoryError:
        raise PlanFileError(f"{path}: is a folder, not a plan file", path) from None
    except OSError as exc:
        raise PlanFileError(f"{path}: cannot read it: {exc.strerror or exc}", path) from None
    return plans_from_bytes(raw, path)


def plans_from_bytes(raw: bytes, path: Path) -> list[ReviewPlan]:
    """The plans in the bytes of a plan file (or of stdin: `cogtui review -`); `path` names them in errors."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PlanFileError(
            f"{path}: not UTF-8 text (byte {exc.start}); expected the JSON that `cogn migrate --dry-run --json` prints",
            path,
        ) from None
    if not text.strip():
        raise PlanFileError(
            f"{path}: the file is empty; expected the JSON that `cogn migrate --dry-run --json` prints", path
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanFileError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}", path, line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:
        raise PlanFileError(f"{path}: invalid plan: the JSON is nested too deeply", path) from None
    return plans_from_json(data, path)


def plans_from_json(data: Any, path: Path) -> list[ReviewPlan]:
    """Plans from parsed JSON: `cogn migrate --json`'s document, a plan object, or `{"plans": [...]}`."""
    reader = _Reader(path)
    if not isinstance(data, dict):
        reader.fail(None, f'expected a JSON object (one plan, or {{"plans": [...]}}), got {_kind(data)}')
    if data.get("format") == 1 and data.get("command") == "migrate":
        plans = reader.get(data, "modules", list, None)
        return [reader.plan(item, f"modules[{i}]") for i, item in enumerate(plans)]
    if "plans" in data:
        plans = reader.get(data, "plans", list, None)
        return [reader.plan(item, f"plans[{i}]") for i, item in enumerate(plans)]
    if "module" not in data:
        reader.fail(None, 'not a migration plan: expected a "module" key (one plan) or a "plans" list (--all)')
    return [reader.plan(data, "")]


_TYPE_NAMES: dict[type, str] = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "true/false",
    int: "a whole number",
}


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


class _Reader:
    """Checks the shape of a plan as it reads it, so an error can name the key that is wrong."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str | None, problem: str) -> Any:
        where = f" at {key}" if key else ""
        raise PlanFileError(f"{self.path}: invalid plan{where}: {problem}", self.path, key=key)

    def get(
        self, obj: dict[str, Any], key: str, kind: type, where: str | None, required: bool = True, default: Any = None
    ) -> Any:
        at = _join(where or "", key)
        if key not in obj:
            if required:
                self.fail(at, "missing")
            return default
        value = obj[key]
        if value is None and not required:
            return default
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            self.fail(at, f"expected {_TYPE_NAMES[kind]}, got {_kind(value)}")
        return value

    def strings(self, obj: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        items = self.get(obj, key, list, where, required=False, default=[])
        for i, item in enumerate(items):
            if not isinstance(item, str):
                self.fail(f"{_join(where, key)}[{i}]", f"expected a string, got {_kind(item)}")
        return tuple(items)

    def notes(self, obj: Any, where: str) -> tuple[str, ...]:
        """The notes, each with its severity: those listed in `notes_to_confirm` are to confirm (MIG-6)."""
        confirm = set(self.strings(obj, "notes_to_confirm", where))
        return tuple(Note(n, "confirm" if n in confirm else "info") for n in self.strings(obj, "notes", where))

    def plan(self, obj: Any, where: str) -> ReviewPlan:
        if not isinstance(obj, dict):
            self.fail(where or None, f"expected a plan object, got {_kind(obj)}")
        module = self.get(obj, "module", str, where)
        files = self.get(obj, "files", list, where)
        errors = self.get(obj, "errors", list, where, required=False, default=[])
        return ReviewPlan(
            module=module,
            source_format=self.get(obj, "from", str, where, required=False, default="?"),
            target=self.get(obj, "to", str, where, required=False),
            files=tuple(self.file(f, _join(where, "files") + f"[{i}]") for i, f in enumerate(files)),
            notes=self.notes(obj, where),
            errors=tuple(self.issue(e, _join(where, "errors") + f"[{i}]") for i, e in enumerate(errors)),
            path=self.get(obj, "path", str, where, required=False),
            tier=self.get(obj, "tier", str, where, required=False),
            tier_inferred=self.get(obj, "tier_inferred", bool, where, required=False, default=False),
            already_current=self.get(obj, "already_current", bool, where, required=False, default=False),
            result=self.get(obj, "result", str, where, required=False),
            reason=self.get(obj, "reason", str, where, required=False),
        )

    def file(self, obj: Any, where: str) -> ReviewFile:
        if not isinstance(obj, dict):
            self.fail(where, f"expected a file object, got {_kind(obj)}")
        action = self.get(obj, "action", str, where)
        if action not in ACTIONS:
            self.fail(_join(where, "action"), f"expected create, modify or delete, got {action!r}")
        return ReviewFile(
            path=self.get(obj, "path", str, where),
            action=action,
            diff=self.get(obj, "diff", str, where, required=False, default=""),
            content=self.get(obj, "content", str, where, required=False),
            source=self.get(obj, "source", str, where, required=False),
            origins=self.strings(obj, "from", where),
            encoding=self.get(obj, "encoding", str, where, required=False, default="UTF-8"),
            newline=self.get(obj, "newline", str, where, required=False, default="LF"),
        )

    def issue(self, obj: Any, where: str) -> ReviewIssue:
        if not isinstance(obj, dict):
            self.fail(where, f"expected an error object, got {_kind(obj)}")
        return ReviewIssue(
            message=self.get(obj, "message", str, where),
            file=self.get(obj, "file", str, where, required=False),
            line=self.get(obj, "line", int, where, required=False),
            column=self.get(obj, "column", int, where, required=False),
            code=self.get(obj, "code", str, where, required=False),
            hint=self.get(obj, "hint", str, where, required=False, default=""),
        )
