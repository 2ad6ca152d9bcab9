"""A migration plan being drafted: the files it writes and deletes, and what it has to say about them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cogtui.core.authoring.migration.plan import FileChange, MigrationIssue
from cogtui.core.files.text_codec import TextStyle, read_source, to_lf, unified_diff
from cogtui.core.module.model import Module

FILE_ORDER = ("module.yaml", "prompt.md", "schema.json", "README.md")  # how a plan lists its changes


@dataclass
class FileWrite:
    text: str  # final text, line ends as they will be written
    style: TextStyle
    source: str | None = None
    source_lf: str | None = None
    origins: tuple[str, ...] = ()


class Draft:
    """The files a plan writes and deletes, collected while planning."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.root = module.path
        self.writes: dict[str, FileWrite] = {}
        self.deletes: list[str] = []
        self.notes: list[str] = []
        self.issues: list[MigrationIssue] = []
        self.tier: str | None = None

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def write(
        self,
        rel: str,
        text: str,
        style: TextStyle,
        source: str | None = None,
        source_lf: str | None = None,
        lf: bool = True,
        new_file: bool = False,
        origins: tuple[str, ...] = (),
    ) -> None:
        if new_file and (self.root / rel).exists() and rel not in self.deletes:
            self.issues.append(
                MigrationIssue(
                    f"{rel} already exists; the migration would overwrite it",
                    self.root / rel,
                    hint="Move it out of the module folder, then migrate.",
                )
            )
            return
        final = text.replace("\n", style.newline) if lf and style.newline != "\n" else text
        self.writes[rel] = FileWrite(final, style, source, source_lf, origins or ((source,) if source else ()))

    def delete(self, path: Path | None) -> None:
        if path is not None and path.exists():
            rel = self.rel(path)
            if rel not in self.deletes:
                self.deletes.append(rel)

    def changes(self) -> tuple[FileChange, ...]:
        def order(rel: str) -> tuple[int, str]:
            return (FILE_ORDER.index(rel) if rel in FILE_ORDER else len(FILE_ORDER), rel)

        out: list[FileChange] = []
        for rel in sorted(self.writes, key=order):
            w = self.writes[rel]
            new_lf, new_bytes = to_lf(w.text), w.style.encode_raw(w.text)
            path = self.root / rel
            if path.exists() and rel not in self.deletes:
                old = read_source(path)
                if old.raw == new_bytes:
                    continue
                diff = unified_diff(old.lf, new_lf, f"a/{rel}", f"b/{rel}")
                out.append(
                    FileChange(rel, "modify", old.lf, new_lf, diff, w.style, None, w.origins, old.raw, new_bytes)
                )
            else:
                base, name = (w.source_lf, f"a/{w.source}") if w.source else ("", "/dev/null")
                diff = unified_diff(base or "", new_lf, name, f"b/{rel}")
                out.append(FileChange(rel, "create", None, new_lf, diff, w.style, w.source, w.origins, None, new_bytes))
        for rel in self.deletes:
            old = read_source(self.root / rel)
            diff = unified_diff(old.lf, "", f"a/{rel}", "/dev/null")
            out.append(FileChange(rel, "delete", old.lf, None, diff, old.style, None, (), old.raw, None))
        return tuple(out)
