"""A migration plan: per file create / modify / delete, with new content and a diff; notes; errors.

The plan is pure data. `cogn migrate --dry-run` prints it, `--json` prints
`MigrationPlan.to_json()` (docs/migration.md documents the shape, which is also
what a later `cogtui review PLAN.json` reads), and `apply_plan` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cogtui.core.diagnostics import Diagnostic, format_location
from cogtui.core.files.text_codec import TextStyle, sha256

Action = Literal["create", "modify", "delete"]
NoteSeverity = Literal["confirm", "info"]


class Note(str):
    """A plan's note, with its severity: "confirm" for a choice the migration made that the author should check
    (an inferred tier, a file re-written without its comments, mixed line ends), "info" for a change it
    describes. It is a string everywhere else (text output, JSON `notes`).
    """

    severity: NoteSeverity

    def __new__(cls, text: str, severity: NoteSeverity = "info") -> Note:
        note = super().__new__(cls, text)
        note.severity = severity
        return note


def to_confirm(text: str) -> Note:
    return Note(text, "confirm")


def severity_of(note: str) -> NoteSeverity:
    """A note's severity; a plain string (a note made before severities, a saved plan's) is "info"."""
    return note.severity if isinstance(note, Note) else "info"


def confirm_first(notes: tuple[str, ...] | list[str]) -> list[str]:
    """The notes to confirm first (in their order), then the others: how every view lists them."""
    return sorted(notes, key=lambda note: severity_of(note) != "confirm")


@dataclass(frozen=True)
class FileChange:
    """One file's change. Text is LF-normalised; `style` says how it is written (encoding, BOM, line ends).

    For a file created from another (prompt.md from prompt.txt, module.yaml from
    MODULE.md's frontmatter), `source` names that file and `diff` is against it,
    so a reviewer sees what changed rather than a wall of added lines.
    """

    path: str  # relative to the module folder, with /
    action: Action
    old_text: str | None
    new_text: str | None
    diff: str
    style: TextStyle = field(default_factory=TextStyle)
    source: str | None = None
    origins: tuple[str, ...] = ()  # the files its content comes from (a deleted one is "carried" here)
    old_bytes: bytes | None = field(default=None, repr=False)
    new_bytes: bytes | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "action": self.action,
            "diff": self.diff,
            "source": self.source,
            "from": list(self.origins),
            "encoding": self.style.encoding_name,
            "newline": self.style.newline_name,
            "sha256_before": sha256(self.old_bytes) if self.old_bytes is not None else None,
            "content": self.new_text,
        }


@dataclass(frozen=True)
class MigrationIssue:
    """Why a module cannot be migrated as it is, located in the file to fix."""

    message: str
    file: Path | None = None
    line: int | None = None
    column: int | None = None
    code: str | None = None  # the diagnostic code when the issue is a load or validate diagnostic
    hint: str = ""

    @classmethod
    def from_diagnostic(cls, d: Diagnostic) -> MigrationIssue:
        return cls(d.message, d.file, d.line, d.column, d.code, d.hint)

    @property
    def location(self) -> str:
        return format_location(self.file, self.line, self.column)

    def __str__(self) -> str:
        code = f"{self.code} " if self.code else ""
        return f"{self.location}: {code}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "file": str(self.file) if self.file else None,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "hint": self.hint or None,
        }


@dataclass(frozen=True)
class MigrationPlan:
    module: str
    path: Path
    source_format: str  # "v0", "v1", "v2.1", "v2.2", "v2.5"
    target: str  # "v2.2" or "v2.5"
    files: tuple[FileChange, ...] = ()
    notes: tuple[str, ...] = ()
    errors: tuple[MigrationIssue, ...] = ()
    tier: str | None = None
    tier_inferred: bool = False  # True when the migration chose the tier (the author should confirm it)
    already_current: bool = False
    # The promotion this plan makes (PromotionRequest.key), or None for a migration: written into its
    # backup, so the insights dashboard undoes exactly that promotion and nothing else.
    promotion: str | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    def counts(self) -> dict[str, int]:
        out = {"create": 0, "modify": 0, "delete": 0}
        for f in self.files:
            out[f.action] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "from": self.source_format,
            "to": self.target,
            "files": [f.to_json() for f in self.files],
            "notes": list(self.notes),
            "notes_to_confirm": [n for n in self.notes if severity_of(n) == "confirm"],
            "path": str(self.path),
            "tier": self.tier,
            "tier_inferred": self.tier_inferred,
            "already_current": self.already_current,
            "errors": [e.to_json() for e in self.errors],
        }
