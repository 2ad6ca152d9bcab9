"""The read context a module load shares: its folder, what it parsed, and what went wrong.

The loader, the golden-test and example collection and the schema loading all
read through one `ReadContext`, so every file is parsed once, its source map
is kept for locating diagnostics later, and every failure becomes a located
diagnostic instead of an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Diagnostic, diag
from cogtui.core.files.sourcemap import (
    Kind,
    ParseFailure,
    SourceFile,
    load_file,
    parse_yaml,
    read_text,
    split_frontmatter,
)
from cogtui.core.files.written import yaml_kind
from cogtui.core.records import replace


class ReadContext:
    """One module folder being read: `parse`, `mapping`, `text_file` and `markdown_manifest` never raise."""

    def __init__(self, root: Path, names: set[str]) -> None:
        self.root = root
        self.names = names
        self.diagnostics: list[Diagnostic] = []
        self.sources: dict[Path, SourceFile] = {}

    def parse(self, path: Path, kind: Kind) -> SourceFile | None:
        try:
            src = load_file(path, kind, self.root)  # confined to the module folder (docs/security.md)
        except ParseFailure as failure:
            self.diagnostics.append(failure.diagnostic)
            return None
        self.sources[path] = src
        return src

    def mapping(self, src: SourceFile | None, what: str) -> dict[str, Any]:
        if src is None:
            return {}
        if src.value is None:
            return {}
        if not isinstance(src.value, dict):
            line, col = src.locate()
            self.diagnostics.append(
                diag("P004", f"{what} must be a mapping, found {yaml_kind(src.value)}", src.path, line, col)
            )
            return {}
        return src.value

    def markdown_manifest(self, path: Path, required: bool) -> tuple[dict[str, Any], str]:
        """Frontmatter and body of MODULE.md / module.md."""
        try:
            text = read_text(path, self.root)
        except ParseFailure as failure:
            self.diagnostics.append(failure.diagnostic)
            return {}, ""
        split = split_frontmatter(text)
        if split is None:
            if not required:  # v0 module.md may be a plain YAML document
                try:
                    src = parse_yaml(text, path)
                    if isinstance(src.value, dict):
                        self.sources[path] = src
                        return src.value, ""
                except ParseFailure:
                    pass
            self.diagnostics.append(
                diag(
                    "P006",
                    f"{path.name} has no YAML frontmatter",
                    path,
                    1,
                    1,
                    hint="Start the file with a line '---', the YAML fields, and another '---'.",
                )
            )
            return {}, text
        yaml_text, body, _body_line = split
        try:
            src = parse_yaml(yaml_text, path, line_offset=1)
        except ParseFailure as failure:
            self.diagnostics.append(failure.diagnostic)
            return {}, body
        # Keep the whole file's text so editors and migration see it as it is on disk.
        self.sources[path] = replace(src, text=text)
        return self.mapping(self.sources[path], f"{path.name} frontmatter"), body

    def text_file(self, name: str, required: bool) -> tuple[Path | None, str]:
        path = self.root / name
        if name not in self.names:
            if required:
                self.diagnostics.append(diag("P003", f"{name} is missing", path, hint=f"Create {name}."))
            return None, ""
        try:
            return path, read_text(path, self.root)
        except ParseFailure as failure:
            self.diagnostics.append(failure.diagnostic)
            return path, ""
