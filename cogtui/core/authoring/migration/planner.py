"""`plan_migration`: what upgrading one module would change, computed without writing anything.

v0 and v1 become the v2.2 layout (module.yaml, prompt.md, schema.json,
tests/); v2.1 is upgraded in place; v2.2 gets v2.5's response and modalities
(`to="2.5"`, chained from older formats). Bad input (anything `validate`
reports as an error that migrating would not fix) becomes located plan errors.
"""

from __future__ import annotations

from pathlib import Path

from cogtui.core.authoring.migration.draft import Draft
from cogtui.core.authoring.migration.file_writers import write_goldens, write_manifest, write_prompt
from cogtui.core.authoring.migration.goldens_upgrade import GoldenDraft, example_goldens
from cogtui.core.authoring.migration.jsondoc import JsonDoc, JsonEditError, JsonStyle, detect_style, scan
from cogtui.core.authoring.migration.manifest_upgrade import add_v25
from cogtui.core.authoring.migration.plan import MigrationIssue, MigrationPlan, to_confirm
from cogtui.core.authoring.migration.schema_upgrade import (
    SchemaUpgradeError,
    assemble_v0,
    resolve_local,
    upgrade_schema,
)
from cogtui.core.authoring.migration.tiering import infer_tier
from cogtui.core.authoring.migration.yamldoc import YamlDoc
from cogtui.core.diagnostics import Severity
from cogtui.core.files.json_pointer import value_at
from cogtui.core.files.sourcemap import ParseFailure, read_text
from cogtui.core.files.text_codec import SourceText, TextStyle, read_source, to_lf
from cogtui.core.module.model import Module, ModuleFormat
from cogtui.core.rules.validate_module import validate_module

FORMAT_RANK = {"v0": 0, "v1": 1, "v2.1": 2, "v2.2": 3, "v2.5": 4}
TARGETS = {"2.2": "v2.2", "v2.2": "v2.2", "2.5": "v2.5", "v2.5": "v2.5"}
# Errors `validate` reports on a legacy module that migrating leaves in place (so they block it).
_BLOCKING_CODES = ("T001", "T003", "T004", "T005", "T006", "L003")


def normalize_target(to: str) -> str:
    try:
        return TARGETS[to.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown target version {to!r}: use 2.2 or 2.5") from None


def blocking_issues(module: Module) -> list[MigrationIssue]:
    """Load errors, then validate errors the migration would carry over; empty when the module can be migrated."""
    issues = []
    for d in module.load_diagnostics:
        if d.severity is Severity.ERROR and d.code[:1] in ("P", "F"):  # F: a refused file (docs/security.md)
            if (
                d.code == "P003"
                and module.format is ModuleFormat.V0
                and d.file is not None
                and d.file.name == "constraints.yaml"
            ):
                continue  # a v0 module without constraints simply has none
            issues.append(MigrationIssue.from_diagnostic(d))
    if issues:
        return issues
    strict = module.format.has_envelope_contract
    for d in validate_module(module, v22=strict):
        if d.severity is not Severity.ERROR:
            continue
        if strict or d.code[0] in "MS" or d.code in _BLOCKING_CODES:
            issues.append(MigrationIssue.from_diagnostic(d))
    return issues


def changed_since_loaded(module: Module) -> list[Path]:
    """Files whose text on disk is no longer what `module` was loaded from (or that cannot be read now)."""
    changed = []
    for path, src in module.sources.items():
        try:
            if read_text(path) != src.text:
                changed.append(path)
        except ParseFailure:
            changed.append(path)
    return changed


def plan_migration(module: Module, to: str = "2.2") -> MigrationPlan:
    """The plan to bring `module` to `to` ("2.2" or "2.5"). Reads the module's files; writes nothing.

    The plan edits the text on disk using what the loader parsed: a module loaded before its files
    changed is loaded again first, so an edit made in between is never planned away.
    """
    if changed_since_loaded(module):
        from cogtui.core.module.loader import NotAModule, load_module

        try:
            module = load_module(module.path)
        except (NotAModule, OSError) as exc:
            return MigrationPlan(
                module.name,
                module.path,
                module.format.value,
                normalize_target(to),
                errors=(MigrationIssue(f"the module changed and no longer loads: {exc}", module.path),),
            )
    plan = _plan(module, to)
    stale = changed_since_loaded(module)
    if stale and plan.files:
        issue = MigrationIssue(f"{stale[0].name} changed while the plan was being made; plan again", stale[0])
        return MigrationPlan(
            module.name, module.path, plan.source_format, plan.target, notes=plan.notes, errors=(issue,), tier=plan.tier
        )
    return plan


def _plan(module: Module, to: str) -> MigrationPlan:
    target = normalize_target(to)
    fmt = module.format.value
    if not module.contract.known:  # the manifest cannot be read (FMT-16): its format is a guess, never "current"
        unreadable = blocking_issues(module)
        if unreadable:
            return MigrationPlan(module.name, module.path, fmt, target, errors=tuple(unreadable))
    if FORMAT_RANK[fmt] >= FORMAT_RANK[target]:
        newer = f" (newer than {target})" if FORMAT_RANK[fmt] > FORMAT_RANK[target] else ""
        return MigrationPlan(
            module.name,
            module.path,
            fmt,
            target,
            notes=(f"already {fmt}{newer}; nothing to change",),
            tier=module.tier,
            already_current=True,
        )
    issues = blocking_issues(module)
    if issues:
        return MigrationPlan(module.name, module.path, fmt, target, errors=tuple(issues))
    draft = Draft(module)
    try:
        if module.format is not ModuleFormat.V2_2:
            _to_v22(draft)
        else:
            draft.tier = module.tier
            draft.notes.append(f"tier: {module.tier} ({module.contract.tier.origin} in module.yaml)")
        if target == "v2.5" and not draft.issues:
            _to_v25(draft)
    except ParseFailure as failure:
        draft.issues.append(MigrationIssue.from_diagnostic(failure.diagnostic))
    if draft.issues:
        return MigrationPlan(
            module.name, module.path, fmt, target, notes=tuple(draft.notes), errors=tuple(draft.issues), tier=draft.tier
        )
    return MigrationPlan(
        module.name,
        module.path,
        fmt,
        target,
        draft.changes(),
        tuple(draft.notes),
        (),
        draft.tier,
        tier_inferred=module.format is not ModuleFormat.V2_2,
    )


# ---------------------------------------------------------------- to v2.2


def _json_style(src: SourceText) -> JsonStyle | None:
    try:
        return detect_style(src.lf, scan(src.lf))
    except (JsonEditError, RecursionError):
        return None


def _schema_doc(draft: Draft) -> tuple[JsonDoc, tuple[str | int, ...], TextStyle, SourceText] | None:
    m = draft.module
    files = m.files
    assert files is not None
    if m.format is ModuleFormat.V0:
        out_src, in_src = read_source(files.output_schema), read_source(files.input_schema)  # type: ignore[arg-type]
        root = assemble_v0(m.schemas.input or {}, m.schemas.data or {}, draft.notes)
        draft.notes.insert(0, "schema.json: made from input.schema.json (input) and output.schema.json (data)")
        doc = JsonDoc.new(root, _json_style(out_src) or _json_style(in_src) or JsonStyle())
        return doc, ("data",), out_src.style, out_src
    loc = m.schemas.locations.get("data")
    if files.schema is None or loc is None or loc[0] != files.schema:
        where = loc[0] if loc else files.manifest
        draft.issues.append(
            MigrationIssue(
                "the data (output) schema is not in schema.json; cogn migrate edits schema.json only",
                where,
                1,
                1,
                hint="Move the output schema into schema.json.",
            )
        )
        return None
    src = read_source(files.schema)
    return JsonDoc(src.lf, m.schemas.root), loc[1], src.style, src


def _to_v22(draft: Draft) -> None:
    m = draft.module
    notes = draft.notes
    found = _schema_doc(draft)
    if found is None:
        return
    schema_doc, data_path, schema_style, schema_src = found
    goldens: list[GoldenDraft] = []
    if m.format in (ModuleFormat.V0, ModuleFormat.V1):
        goldens, issues = example_goldens(m, notes)
        draft.issues += issues
        envelopes = [(draft.rel(g.output_src.path), g.envelope) for g in goldens]
    else:
        envelopes = [
            (draft.rel(t.expected_path), t.expected)
            for t in m.tests
            if t.expected_path is not None and isinstance(t.expected, dict)
        ]
    if draft.issues:
        return
    data_at = resolve_local(schema_doc.value, data_path)
    data_schema = value_at(schema_doc.value, data_at)
    ext = value_at(schema_doc.value, resolve_local(schema_doc.value, (*data_at, "properties", "extensions")))
    reachable = {
        "data": data_schema,
        "extensions": ext,
        "$defs": schema_doc.value.get("$defs"),
        "definitions": schema_doc.value.get("definitions"),
    }
    choice = infer_tier(m, reachable, envelopes)
    draft.tier = choice.tier
    notes.insert(0, to_confirm("tier: " + choice.note))
    try:
        overflow = upgrade_schema(schema_doc, data_path, choice.tier, notes)
    except SchemaUpgradeError as exc:
        draft.issues.append(_schema_issue(draft, schema_src, exc))
        return
    schema_text, reformatted = schema_doc.finish()
    if reformatted and m.format is not ModuleFormat.V0:
        notes.append("schema.json: the edits could not be made in place, so it is re-serialised in its own indentation")
    origins = ("input.schema.json", "output.schema.json") if m.format is ModuleFormat.V0 else ()
    draft.write("schema.json", schema_text, schema_style, new_file=m.format is ModuleFormat.V0, origins=origins)
    write_goldens(draft, goldens)
    parts = [p for p in ("input", "data", "meta", "error") if p in schema_doc.value]
    write_manifest(
        draft,
        choice.tier,
        overflow,
        parts,
        [f"tests/{g.name}.input.json -> tests/{g.name}.expected.json" for g in goldens],
    )
    write_prompt(draft, overflow)
    if m.format is ModuleFormat.V0:
        files = m.files
        assert files is not None
        for path in (files.manifest, files.input_schema, files.output_schema, files.constraints, files.prompt):
            draft.delete(path)
    elif m.format is ModuleFormat.V1:
        draft.delete(m.files.manifest)  # type: ignore[union-attr]


def _schema_issue(draft: Draft, src: SourceText, exc: SchemaUpgradeError) -> MigrationIssue:
    path = exc.path
    if path[:1] == ("data",):  # where that schema is in the file as it is on disk
        path = (
            path[1:] if draft.module.format is ModuleFormat.V0 else (draft.module.schemas.data_key or "data", *path[1:])
        )
    loaded = draft.module.sources.get(src.path)
    line, col = loaded.locate(path) if loaded is not None else (1, 1)
    return MigrationIssue(str(exc), src.path, line, col)


# ---------------------------------------------------------------- to v2.5


def _to_v25(draft: Draft) -> None:
    m = draft.module
    tier = draft.tier or m.tier
    current = draft.writes.get("module.yaml")
    if current is not None:
        text_lf, style, source, source_lf = to_lf(current.text), current.style, current.source, current.source_lf
    else:
        src = read_source(m.files.manifest)  # type: ignore[union-attr, arg-type]
        text_lf, style, source, source_lf = src.lf, src.style, None, None
    doc = YamlDoc(text_lf, m.path / "module.yaml")
    add_v25(doc, tier, draft.notes)
    text, reformatted = doc.finish()
    if reformatted:
        draft.notes.append(
            "module.yaml: the manifest could not be edited in place and is re-written; its comments are lost"
        )
    draft.write("module.yaml", text, style, source, source_lf, origins=current.origins if current else ())
