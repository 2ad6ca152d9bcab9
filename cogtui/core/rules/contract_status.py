"""Whether a module's contract can be known, and what keeps a module from running (RUN-1, RUN-2).

A module's contract is its schemas. When schema.json (or a schema file `io`
points at) is missing, unreadable, not an object, or not a valid JSON Schema,
or an `io` reference does not resolve, or a `$ref` loops without reaching a
schema or leaves the module, or a schema is nested too deeply (FMT-3), the
contract cannot be known: nothing the module takes or returns can be judged,
so nothing may pass. `cogn check
--module` refuses to judge a document against such a module (exit 2), and the
runner refuses to run it (E4000), with the located diagnostic `cogn validate`
also gives. A manifest field declared with an illegal value blocks a run too
(RUN-2): running under defaults would silently ignore what the author declared.
So does a `$ref` the output schema reaches that does not resolve (RUN-1): no
answer could be validated, so the model is not called. A golden test's file that
cannot be read or parsed does not: it fails its own case, with its located
diagnostic, and the module's other cases run (GOLD-4, `golden_file_problems`).
"""

from __future__ import annotations

import os
from pathlib import Path

from cogtui.core.diagnostics import Diagnostic, Severity, diag
from cogtui.core.files.json_pointer import object_at
from cogtui.core.module.memo import memo
from cogtui.core.module.model import GoldenTest, Module
from cogtui.core.module.schema_engine import SchemaUnusable, draft_label, metaschema_errors
from cogtui.core.module.schema_words import place
from cogtui.core.module.schemas import PARTS, schemas_for
from cogtui.core.rules.output_refs import unusable_output_refs
from cogtui.core.rules.ref_checks import ref_problems

__all__ = ["contract_problems", "golden_file_problems", "manifest_value_errors", "run_blockers"]

_SCHEMA_FILES = ("schema.json", "input.schema.json", "output.schema.json")


def contract_problems(module: Module) -> list[Diagnostic]:
    """Why the module's schemas cannot be known (empty when they can): computed once per loaded module."""
    return memo(module, "contract_problems", lambda: _contract_problems(module))


def _contract_problems(module: Module) -> list[Diagnostic]:
    files = _schema_files(module)
    out = [
        d
        for d in module.load_diagnostics
        if (_unreadable(d) and _normal(d.file) in files)
        or (d.severity is Severity.ERROR and d.code in ("S003", "S010"))
    ]
    if out:
        return out
    blockers = ref_problems(module).blockers  # a $ref loop, one out of the module, a schema nested too deeply
    if blockers:
        return list(blockers)
    compiled = schemas_for(module)
    for part in PARTS:
        schema = getattr(module.schemas, part)
        loc = module.schemas.locations.get(part)
        if schema is None or loc is None:
            continue
        draft = compiled.draft(part)
        path, pointer = loc
        errors = metaschema_errors(schema, draft)
        if errors:
            out.append(_not_a_schema(module, path, (*pointer, *errors[0].path), errors[0].message, draft))
            continue
        try:
            compiled.validator(part)
        except SchemaUnusable as exc:  # a part that is sound but refers to one that is not (a bad $defs entry)
            if exc.kind == "schema":
                out.append(_not_a_schema(module, path, tuple(exc.schema_path), str(exc), draft))
    return out


def _not_a_schema(module: Module, path: Path, where: tuple[str | int, ...], why: str, draft: str) -> Diagnostic:
    src = module.sources.get(path)
    line, col = src.locate(where) if src is not None else (None, None)
    shown = place(where)
    why = why.removeprefix(f"the schema is not a valid JSON Schema at {shown}: ")
    return diag(
        "S001",
        f"{path.name} is not a valid JSON Schema: {shown}: {why}",
        path,
        line,
        col,
        hint=f"Checked against {draft_label(draft)}.",
    )


def _schema_files(module: Module) -> set[Path]:
    files = {module.path / name for name in _SCHEMA_FILES}
    files |= {path for path, _ in module.schemas.locations.values()}
    io = object_at(module.manifest, "io")
    for ref in io.values():
        if isinstance(ref, str) and ref.partition("#")[0].strip():
            files.add(module.path / ref.partition("#")[0].strip())
    return {Path(os.path.normpath(f)) for f in files}


def _normal(path: Path | None) -> Path | None:
    return Path(os.path.normpath(path)) if path is not None else None


def manifest_value_errors(module: Module) -> list[Diagnostic]:
    """The manifest's declared fields whose values are illegal (wrong type or value): errors of validate's manifest
    rules, except a missing required field (M001), which declares nothing to ignore."""

    def find() -> list[Diagnostic]:
        from cogtui.core.rules.validate_module import ManifestRules

        found: list[Diagnostic] = []
        ManifestRules(module, found).run()
        return [d for d in found if d.severity is Severity.ERROR and d.code != "M001"]

    return memo(module, "manifest_value_errors", find)


def _unreadable(d: Diagnostic) -> bool:
    return d.severity is Severity.ERROR and d.code[:1] in ("P", "F")


def _golden_files(module: Module) -> frozenset[Path]:
    """Every golden test's input and expected file: what only its own case reads."""
    return memo(
        module,
        "golden_files",
        lambda: frozenset(p for t in module.tests for p in (t.input_path, t.expected_path) if p is not None),
    )


def _example_files(module: Module) -> frozenset[Path]:
    """Every example's input and output file: read by the replay provider and offered as run inputs, never sent."""
    return memo(
        module,
        "example_files",
        lambda: frozenset(p for e in module.examples for p in (e.input_path, e.output_path) if p is not None),
    )


def golden_file_problems(module: Module, test: GoldenTest) -> list[Diagnostic]:
    """Why one golden case's files cannot be read (P: does not parse, F: the confined reader refused it), located:
    that case fails with them, the module's other cases still run (GOLD-4)."""
    files = (test.input_path, test.expected_path)
    return [d for d in module.load_diagnostics if d.file is not None and d.file in files and _unreadable(d)]


def run_blockers(module: Module) -> list[Diagnostic]:
    """What keeps the module from running, most basic first: a file that cannot be read (P, F), a contract that
    cannot be known, an output schema that cannot be used, declared manifest values that cannot be honoured.
    A golden test's file is not one: it fails its own case (`golden_file_problems`, GOLD-4); nor is an example's,
    which only the replay provider reads (it answers from the examples that could be read, GOLD-5)."""
    left_out = _golden_files(module) | _example_files(module)
    out = [d for d in module.load_diagnostics if _unreadable(d) and d.file not in left_out]
    out += [d for d in contract_problems(module) if d not in out]
    out += [u.diagnostic for u in unusable_output_refs(module) if u.diagnostic not in out]
    return out + manifest_value_errors(module)
