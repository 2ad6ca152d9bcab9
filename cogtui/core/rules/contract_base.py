"""What every contract rule shares: the module, the output list, and locating a diagnostic."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.diagnostics import Diagnostic, Severity, diag
from cogtui.core.files.module_folder import exists
from cogtui.core.module.model import Module

PathT = tuple[str | int, ...]


def file_unusable(module: Module, path: Path | None) -> bool:
    """`path` could not be read: missing (P003), refused (F001-F004), or not parsed or decoded (a P error).
    Its one diagnostic says so; a rule about what the file holds would only restate it, wrongly (FMT-17)."""
    return path is not None and any(d.file == path and d.code[:1] in ("P", "F") for d in module.load_diagnostics)


def schema_file_unusable(module: Module) -> bool:
    """schema.json is missing (S010) or could not be read."""
    schema = module.files.schema if module.files else None
    return any(d.code == "S010" for d in module.load_diagnostics) or file_unusable(module, schema)


class RuleBase:
    def __init__(self, module: Module, out: list[Diagnostic], v22: bool, strict: bool = False) -> None:
        self.m = module
        self.out = out
        self.v22 = v22
        self.strict = strict

    @property
    def schema_file_unusable(self) -> bool:
        """schema.json is missing (S010) or could not be read (a P or F error in it): that one diagnostic says so,
        and the rules about its parts (S004, S005, V001) would only restate it (FMT-17)."""
        return schema_file_unusable(self.m)

    # ------------------------------------------------------------ locating

    def add_at(
        self,
        code: str,
        message: str,
        file: Path | None,
        parts: PathT = (),
        hint: str = "",
        severity: Severity | None = None,
        fact: str = "",
    ) -> None:
        src = self.m.sources.get(file) if file is not None else None
        line: int | None
        col: int | None
        if src is not None:
            line, col = src.locate(parts)
        elif file is not None and exists(file):
            line, col = 1, 1
        else:
            line = col = None
        self.out.append(diag(code, message, file, line, col, hint, severity, fact))

    def add_part(
        self, code: str, message: str, part: str, inner: PathT = (), hint: str = "", severity: Severity | None = None
    ) -> None:
        loc = self.m.schemas.locations.get(part)
        file = loc[0] if loc else (self.m.files.schema if self.m.files else None)
        base = loc[1] if loc else ()
        self.add_at(code, message, file, (*base, *inner), hint, severity)

    @property
    def v_severity(self) -> Severity | None:
        """V005's severity (the prompt describes the envelope): an error under --v22, which errors on each of the
        v2.2 checklist's five items (FMT-14); else None, V005's usual warning."""
        return Severity.ERROR if self.v22 else None
