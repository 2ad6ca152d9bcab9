"""Rules of `cogn validate` about the schemas themselves: the draft's metaschema and every pattern.

Each part (and each `$defs`/`definitions` entry) is checked against the
metaschema of the draft its document declares (schema_engine.draft_of). Every
`pattern` and `patternProperties` key in the module's schema documents must be
a regular expression the engine accepts (S001, located at the pattern), and a
pattern that can backtrack catastrophically in other runtimes is a warning
(S008) even though cogtui itself matches it in linear time or under a budget.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from cogtui.core.diagnostics import Severity
from cogtui.core.module.model import Module
from cogtui.core.module.regex_safety import backtracking_hazard
from cogtui.core.module.schema_engine import (
    DRAFT2019,
    DRAFT2020,
    DRAFT_URIS,
    SchemaUnusable,
    compile_schema,
    draft_label,
    draft_of,
    iter_patterns,
    metaschema_errors,
)
from cogtui.core.module.schemas import PARTS, schemas_for
from cogtui.core.rules.violation import dotted

PathT = tuple[str | int, ...]


class Locating(Protocol):
    m: Module

    def add_at(
        self,
        code: str,
        message: str,
        file: Path | None,
        parts: PathT = (),
        hint: str = "",
        severity: Severity | None = None,
    ) -> None: ...

    def add_part(
        self, code: str, message: str, part: str, inner: PathT = (), hint: str = "", severity: Severity | None = None
    ) -> None: ...


def check_schema_documents(rules: Locating) -> bool:
    """Metaschema and pattern rules; False when a schema cannot be used as written."""
    module = rules.m
    s = module.schemas
    sch = schemas_for(module)
    ok = True
    for part in PARTS:
        schema = getattr(s, part)
        if schema is None:
            continue
        draft = sch.draft(part)
        for err in metaschema_errors(schema, draft):
            ok = False
            rules.add_part(
                "S001",
                f"{part_place(module, part, err.path)}: {err.message}",
                part,
                err.path,
                hint=f"Checked against {draft_label(draft)}.",
            )
    draft = sch.draft()
    schema_file = module.files.schema if module.files else None
    for name in ("$defs", "definitions"):
        defs = s.root.get(name)
        if isinstance(defs, dict) and schema_file is not None:
            for def_name, sub in defs.items():
                for err in metaschema_errors(sub, draft):
                    ok = False
                    where = (name, def_name, *err.path)
                    rules.add_at("S001", f"{dotted(where)}: {err.message}", schema_file, where)
    for file, document in _documents(module):
        doc_draft = draft_of(document)
        patterns = list(iter_patterns(document))
        compiled = bool(patterns) and _all_compile([pattern for _, pattern in patterns], doc_draft)
        for where, pattern in patterns:  # each one compiled alone only when one of them fails, to say which
            if compiled:
                _check_hazard(rules, file, where, pattern)
            else:
                ok = _check_pattern(rules, file, where, pattern, doc_draft) and ok
        for where, keyword in foreign_keywords(document, doc_draft):
            rules.add_at(
                "S009",
                f"{keyword} has no meaning in {draft_label(doc_draft)}, the draft this schema is read as",
                file,
                where,
                hint=f'Declare the draft it belongs to, e.g. "$schema": "{DRAFT_URIS[DRAFT2020]}", '
                "or write it the Draft-07 way (items as a list, additionalItems, dependencies).",
            )
    return ok


_NEWER = (
    *("prefixItems", "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems"),
    *("$dynamicRef", "$dynamicAnchor", "$recursiveRef", "minContains", "maxContains"),
)
_OLDER = ("additionalItems", "dependencies")


def foreign_keywords(document: Any, draft: str, at: PathT = ()) -> list[tuple[PathT, str]]:
    """Keywords a draft ignores: 2019-09/2020-12 ones under Draft-07 and earlier, and the reverse."""
    newer = draft in (DRAFT2019, DRAFT2020)
    out: list[tuple[PathT, str]] = []
    if isinstance(document, dict):
        for key, value in document.items():
            foreign = (key in _OLDER or (key == "items" and isinstance(value, list))) if newer else key in _NEWER
            if (foreign and key != "dependencies") or (foreign and isinstance(value, dict) and _is_schema_map(value)):
                out.append(((*at, key), key))
            if key not in ("const", "enum", "examples", "default", "properties"):
                if isinstance(value, (dict, list)):  # a scalar holds no keyword: no call per leaf
                    out += foreign_keywords(value, draft, (*at, key))
            elif key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    if isinstance(sub, (dict, list)):
                        out += foreign_keywords(sub, draft, (*at, key, name))
    elif isinstance(document, list):
        for i, value in enumerate(document):
            if isinstance(value, (dict, list)):
                out += foreign_keywords(value, draft, (*at, i))
    return out


def part_place(module: Module, part: str, inner: PathT = ()) -> str:
    """Where `inner` is in a schema part, named as its file names it: `output.properties.x.type` in a v1 or v2.1
    schema.json, `data.…` in a v2.2 one, `properties.x.type` in a file that is the schema (v0's
    output.schema.json), the file's name for its root."""
    loc = module.schemas.locations.get(part)
    where = (*(loc[1] if loc else (part,)), *inner)
    if where:
        return dotted(where)
    return loc[0].name if loc else part


def _is_schema_map(value: dict[str, Any]) -> bool:
    return all(isinstance(v, (dict, list, bool)) for v in value.values())


def _documents(module: Module) -> list[tuple[Path, Any]]:
    out: dict[Path, Any] = {}
    for path, _pointer in module.schemas.locations.values():
        src = module.sources.get(path)
        if src is not None and path not in out:
            out[path] = src.value
    return list(out.items())


def _all_compile(patterns: list[str], draft: str) -> bool:
    """Whether every pattern compiles, as one validator: a document's patterns cost one compile, not one each."""
    try:
        compile_schema({"allOf": [{"pattern": pattern} for pattern in patterns]}, draft=draft)
    except SchemaUnusable:
        return False
    return True


def _check_pattern(rules: Locating, file: Path, where: PathT, pattern: str, draft: str) -> bool:
    try:
        compile_schema({"pattern": pattern}, draft=draft)
    except SchemaUnusable as exc:
        rules.add_at(
            "S001",
            f"{dotted(where)}: {exc.detail}",
            file,
            where,
            hint="Patterns are ECMA-262 regular expressions; escape a literal backslash as \\\\ in JSON.",
        )
        return False
    _check_hazard(rules, file, where, pattern)
    return True


def _check_hazard(rules: Locating, file: Path, where: PathT, pattern: str) -> None:
    """S008 for a pattern that compiles but can backtrack catastrophically (a warning: the pattern is usable)."""
    hazard = backtracking_hazard(pattern)
    if hazard is not None:
        rules.add_at(
            "S008",
            f"{_keyword(where)} {pattern!r} can backtrack catastrophically: {hazard}",
            file,
            where,
            hint="cogtui matches it safely, but backtracking runtimes can hang on a near-miss value; "
            "rewrite it without a repetition inside a repeated group (e.g. (a+)+ -> a+).",
        )


def _keyword(where: PathT) -> str:
    return "patternProperties" if len(where) >= 2 and where[-2] == "patternProperties" else "pattern"
