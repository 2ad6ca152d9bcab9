"""`plan_migration`: what upgrading one module would change, computed without writing anything.

v0 and v1 become the v2.2 layout (module.yaml, prompt.md, schema.json,
tests/); v2.1 is upgraded in place; v2.2 gets v2.5's response and modalities
(`to="2.5"`, chained from older formats). Bad input (anything `validate`
reports as an error that migrating would not fix) becomes located plan errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogtui.core.authoring.migration.goldens_upgrade import GoldenDraft, example_goldens, fixed_expected
from cogtui.core.authoring.migration.jsondoc import JsonDoc, JsonEditError, JsonStyle, detect_style, scan
from cogtui.core.authoring.migration.manifest_upgrade import (
    COMPAT,
    add_contract,
    add_missing,
    add_tests,
    add_v25,
    migrate_constraints,
    migrate_io,
)
from cogtui.core.authoring.migration.plan import FileChange, MigrationIssue, MigrationPlan
from cogtui.core.authoring.migration.prompt_section import append_section, describes_envelope, envelope_section
from cogtui.core.authoring.migration.schema_upgrade import (
    SchemaUpgradeError,
    _get,
    assemble_v0,
    resolve_local,
    upgrade_schema,
)
from cogtui.core.authoring.migration.tiering import infer_tier
from cogtui.core.authoring.migration.yamldoc import YamlDoc
from cogtui.core.diagnostics import Severity
from cogtui.core.files.sourcemap import ParseFailure, read_text, split_frontmatter
from cogtui.core.files.text_codec import SourceText, TextStyle, read_source, to_lf, unified_diff
from cogtui.core.module.model import Module, ModuleFormat
from cogtui.core.rules.validate_module import KNOWN_FIELDS, validate_module

FORMAT_RANK = {"v0": 0, "v1": 1, "v2.1": 2, "v2.2": 3, "v2.5": 4}
TARGETS = {"2.2": "v2.2", "v2.2": "v2.2", "2.5": "v2.5", "v2.5": "v2.5"}
# Errors `validate` reports on a legacy module that migrating leaves in place (so they block it).
_BLOCKING_CODES = ("T001", "T003", "T004", "T005", "T006", "L003")
_FILE_ORDER = ("module.yaml", "prompt.md", "schema.json", "README.md")
TIER_COMMENT = "inferred by cogn migrate; confirm"


def normalize_target(to: str) -> str:
    try:
        return TARGETS[to.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown target version {to!r}: use 2.2 or 2.5") from None


def blocking_issues(module: Module) -> list[MigrationIssue]:
    """Load errors, then validate errors the migration would carry over; empty when the module can be migrated."""
    issues = []
    for d in module.load_diagnostics:
        if d.severity is Severity.ERROR and d.code.startswith("P"):
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


@dataclass
class _Write:
    text: str  # final text, line ends as they will be written
    style: TextStyle
    source: str | None = None
    source_lf: str | None = None
    origins: tuple[str, ...] = ()


class _Draft:
    """The files a plan writes and deletes, collected while planning."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.root = module.path
        self.writes: dict[str, _Write] = {}
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
        self.writes[rel] = _Write(final, style, source, source_lf, origins or ((source,) if source else ()))

    def delete(self, path: Path | None) -> None:
        if path is not None and path.exists():
            rel = self.rel(path)
            if rel not in self.deletes:
                self.deletes.append(rel)

    def changes(self) -> tuple[FileChange, ...]:
        def order(rel: str) -> tuple[int, str]:
            return (_FILE_ORDER.index(rel) if rel in _FILE_ORDER else len(_FILE_ORDER), rel)

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
    draft = _Draft(module)
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


def _schema_doc(draft: _Draft) -> tuple[JsonDoc, tuple[str | int, ...], TextStyle, SourceText] | None:
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


def _to_v22(draft: _Draft) -> None:
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
    data_schema = _get(schema_doc.value, data_at)
    ext = _get(schema_doc.value, resolve_local(schema_doc.value, (*data_at, "properties", "extensions")))
    reachable = {
        "data": data_schema,
        "extensions": ext,
        "$defs": schema_doc.value.get("$defs"),
        "definitions": schema_doc.value.get("definitions"),
    }
    choice = infer_tier(m, reachable, envelopes)
    draft.tier = choice.tier
    notes.insert(0, "tier: " + choice.note)
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
    _write_goldens(draft, goldens)
    parts = [p for p in ("input", "data", "meta", "error") if p in schema_doc.value]
    _write_manifest(
        draft,
        choice.tier,
        overflow,
        parts,
        [f"tests/{g.name}.input.json -> tests/{g.name}.expected.json" for g in goldens],
    )
    _write_prompt(draft, overflow)
    if m.format is ModuleFormat.V0:
        files = m.files
        assert files is not None
        for path in (files.manifest, files.input_schema, files.output_schema, files.constraints, files.prompt):
            draft.delete(path)
    elif m.format is ModuleFormat.V1:
        draft.delete(m.files.manifest)  # type: ignore[union-attr]


def _schema_issue(draft: _Draft, src: SourceText, exc: SchemaUpgradeError) -> MigrationIssue:
    path = exc.path
    if path[:1] == ("data",):  # where that schema is in the file as it is on disk
        path = (
            path[1:] if draft.module.format is ModuleFormat.V0 else (draft.module.schemas.data_key or "data", *path[1:])
        )
    loaded = draft.module.sources.get(src.path)
    line, col = loaded.locate(path) if loaded is not None else (1, 1)
    return MigrationIssue(str(exc), src.path, line, col)


def _write_goldens(draft: _Draft, goldens: list[GoldenDraft]) -> None:
    m = draft.module
    for g in goldens:
        in_rel, out_rel = draft.rel(g.input_src.path), draft.rel(g.output_src.path)
        draft.write(
            f"tests/{g.name}.input.json",
            g.input_src.text,
            g.input_src.style,
            in_rel,
            g.input_src.lf,
            lf=False,
            new_file=True,
        )
        draft.write(
            f"tests/{g.name}.expected.json", g.expected_text(), g.output_src.style, new_file=True, origins=(out_rel,)
        )
        draft.delete(g.input_src.path)
        draft.delete(g.output_src.path)
        draft.notes.append(
            f"tests: {in_rel} and {out_rel} become tests/{g.name}.input.json and "
            f"tests/{g.name}.expected.json (the output wrapped in a v2.2 envelope, SPEC-v2.2 §6.3)"
        )
        if g.rationale_rewritten:
            draft.notes.append(
                f"tests: {out_rel} has a structured rationale; tests/{g.name}.expected.json holds it as text"
            )
    if m.format is ModuleFormat.V2_1:
        for t in m.tests:
            if t.expected_path is None:
                continue
            fixed = fixed_expected(t.expected_path, t.expected, True)
            if fixed is not None:
                src, text = fixed
                draft.write(draft.rel(t.expected_path), text, src.style)
                draft.notes.append(f"tests: {draft.rel(t.expected_path)} gets a meta block (SPEC-v2.2 §6.3 wrap)")


def _manifest_source(draft: _Draft) -> tuple[YamlDoc, TextStyle, SourceText, str | None, str | None]:
    """(editable manifest, its style, its file, the prompt body after the frontmatter, the source name for the diff)."""
    m = draft.module
    path = m.files.manifest  # type: ignore[union-attr]
    src = read_source(path)  # type: ignore[arg-type]
    if m.format is ModuleFormat.V2_1 or m.format.has_envelope_contract:
        return YamlDoc(src.lf, path), src.style, src, None, None  # type: ignore[arg-type]
    split = split_frontmatter(src.text)
    yaml_text, body = (split[0], split[1]) if split is not None else (src.text, "")
    doc = YamlDoc(to_lf(yaml_text), path)  # type: ignore[arg-type]
    doc.final_newline = True
    return doc, src.style, src, body, path.name  # type: ignore[union-attr]


def _write_manifest(draft: _Draft, tier: str, overflow: Any, parts: list[str], tests: list[str]) -> None:
    m = draft.module
    doc, style, src, body, source_name = _manifest_source(draft)
    notes = draft.notes
    if isinstance(doc.value.get("constraints"), dict):
        migrate_constraints(doc, doc.value["constraints"], doc, "constraints", notes, source_name or "module.yaml")
        if m.format is ModuleFormat.V0 and m.files and m.files.constraints:
            notes.append(
                "constraints: constraints.yaml is ignored, as the loader does, because module.md has constraints"
            )
    elif m.format is ModuleFormat.V0 and m.files and m.files.constraints and m.constraints:
        csrc = read_source(m.files.constraints)
        cdoc = YamlDoc(csrc.lf, m.files.constraints)
        key = "constraints" if set(cdoc.value) == {"constraints"} else None
        migrate_constraints(doc, m.constraints, cdoc, key, notes, "constraints.yaml")
    add_contract(doc, tier, overflow, TIER_COMMENT)
    migrate_io(doc, parts, notes)
    if add_missing(doc, "compat", COMPAT):
        notes.append(
            "module.yaml: compat accepts v2.1 payloads and auto-wraps them (SPEC-v2.2 §6.2); "
            "remove it once the prompt returns v2.2 envelopes"
        )
    add_tests(doc, tests, notes)
    unknown = [str(k) for k in doc.value if str(k) not in KNOWN_FIELDS]
    if unknown:
        notes.append(
            f"module.yaml: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a v2.2 field; kept as-is"
        )
    text, reformatted = doc.finish()
    if reformatted:
        notes.append("module.yaml: the manifest could not be edited in place and is re-written; its comments are lost")
    split = split_frontmatter(src.text) if source_name else None
    source_lf = to_lf(split[0]) + "\n" if split is not None else None
    origins: tuple[str, ...] = (source_name,) if source_name else ()
    if m.format is ModuleFormat.V0 and m.files and m.files.constraints:
        origins += ("constraints.yaml",)
    draft.write(
        "module.yaml",
        text,
        style,
        source_name if source_lf else None,
        source_lf,
        new_file=not m.format.is_v2,
        origins=origins,
    )
    if source_name and src.style != TextStyle():
        notes.append(f"encoding: files made from {source_name} keep its {src.style.label}")
    if src.mixed_newlines:
        used = "CRLF" if style.newline == "\r\n" else "LF"
        notes.append(f"encoding: {source_name or 'module.yaml'} mixes CRLF and LF line ends; edited lines use {used}")
    if m.format is ModuleFormat.V1 and body is not None:
        draft.write(
            "prompt.md",
            _with_section(body, draft, overflow, style),
            style,
            "MODULE.md",
            to_lf(body),
            lf=False,
            new_file=True,
        )
    if m.format is ModuleFormat.V0 and body and body.strip():
        if (m.path / "README.md").exists():
            notes.append(
                "module.md: its text after the frontmatter is not carried over (README.md exists); it is in the backup"
            )
        else:
            draft.write("README.md", body, style, "module.md", to_lf(body), lf=False)
            notes.append("module.md: its text after the frontmatter (documentation, not prompt) becomes README.md")


def _with_section(prompt: str, draft: _Draft, overflow: Any, style: TextStyle) -> str:
    if describes_envelope(prompt):
        draft.notes.append("prompt.md: the prompt already describes the v2.2 envelope; carried verbatim")
        return prompt
    draft.notes.append(
        "prompt.md: the prompt is carried verbatim and a 'Response Format (Envelope v2.2)' section is appended"
    )
    return append_section(prompt, envelope_section(overflow), style.newline)


def _write_prompt(draft: _Draft, overflow: Any) -> None:
    m = draft.module
    if m.format is ModuleFormat.V0 and m.files and m.files.prompt:
        src = read_source(m.files.prompt)
        draft.write(
            "prompt.md",
            _with_section(src.text, draft, overflow, src.style),
            src.style,
            "prompt.txt",
            src.lf,
            lf=False,
            new_file=True,
        )
    elif m.format is ModuleFormat.V2_1 and m.files and m.files.prompt:
        src = read_source(m.files.prompt)
        text = _with_section(src.text, draft, overflow, src.style)
        if text != src.text:
            draft.write("prompt.md", text, src.style, lf=False)


# ---------------------------------------------------------------- to v2.5


def _to_v25(draft: _Draft) -> None:
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
