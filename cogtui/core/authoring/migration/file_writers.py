"""Writing a v2.2 module's files into a Draft: goldens, the manifest (edited in place), the prompt and README."""

from __future__ import annotations

from typing import Any

from cogtui.core.authoring.migration.draft import Draft
from cogtui.core.authoring.migration.goldens_upgrade import GoldenDraft, fixed_expected
from cogtui.core.authoring.migration.manifest_upgrade import (
    COMPAT,
    add_contract,
    add_missing,
    add_tests,
    migrate_constraints,
    migrate_io,
)
from cogtui.core.authoring.migration.plan import to_confirm
from cogtui.core.authoring.migration.prompt_rewrite import rewrite_response_format
from cogtui.core.authoring.migration.prompt_section import append_section, describes_envelope, envelope_section
from cogtui.core.authoring.migration.yamldoc import YamlDoc
from cogtui.core.files.sourcemap import split_frontmatter
from cogtui.core.files.text_codec import SourceText, TextStyle, read_source, to_lf
from cogtui.core.module.model import ModuleFormat
from cogtui.core.rules.validate_module import KNOWN_FIELDS

TIER_COMMENT = "inferred by cogn migrate; confirm"


def write_goldens(draft: Draft, goldens: list[GoldenDraft]) -> None:
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


def manifest_source(draft: Draft) -> tuple[YamlDoc, TextStyle, SourceText, str | None, str | None]:
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


def write_manifest(draft: Draft, tier: str, overflow: Any, parts: list[str], tests: list[str]) -> None:
    m = draft.module
    doc, style, src, body, source_name = manifest_source(draft)
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
        notes.append(
            to_confirm(
                "module.yaml: the manifest could not be edited in place and is re-written; its comments are lost"
            )
        )
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
        notes.append(
            to_confirm(f"encoding: {source_name or 'module.yaml'} mixes CRLF and LF line ends; edited lines use {used}")
        )
    if m.format is ModuleFormat.V1 and body is not None:
        draft.write(
            "prompt.md",
            with_section(body, draft, overflow, style),
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


def with_section(prompt: str, draft: Draft, overflow: Any, style: TextStyle) -> str:
    """The prompt for v2.2: its old response format rewritten to agree with the envelope section appended after
    it, and the lines it cannot tell about quoted in a note to confirm (MIG-7)."""
    if describes_envelope(prompt):
        draft.notes.append("prompt.md: the prompt already describes the v2.2 envelope; carried verbatim")
        return prompt
    rewrite = rewrite_response_format(prompt)
    if rewrite.changes:
        draft.notes.append(
            "prompt.md: the prompt is carried with its old response format rewritten (the diff shows each line) "
            "and a 'Response Format (Envelope v2.2)' section is appended"
        )
        draft.notes.extend(f"prompt.md: {change}" for change in rewrite.changes)
    else:
        draft.notes.append(
            "prompt.md: the prompt is carried verbatim and a 'Response Format (Envelope v2.2)' section is appended"
        )
    if rewrite.review:
        quoted = "; ".join(f"line {n}: {text[:100]!r}" for n, text in rewrite.review[:3])
        more = f"; and {len(rewrite.review) - 3} more" if len(rewrite.review) > 3 else ""
        draft.notes.append(
            to_confirm(
                f"prompt.md: review {'this line, which still mentions' if len(rewrite.review) == 1 else 'these lines, which still mention'} "
                f"confidence (v2.2 returns it as meta.confidence, never in data): {quoted}{more}"
            )
        )
    section = envelope_section(overflow, confidence_in_result=bool(rewrite.review))
    return append_section(rewrite.text, section, style.newline)


def write_prompt(draft: Draft, overflow: Any) -> None:
    m = draft.module
    if m.format is ModuleFormat.V0 and m.files and m.files.prompt:
        src = read_source(m.files.prompt)
        draft.write(
            "prompt.md",
            with_section(src.text, draft, overflow, src.style),
            src.style,
            "prompt.txt",
            src.lf,
            lf=False,
            new_file=True,
        )
    elif m.format is ModuleFormat.V2_1 and m.files and m.files.prompt:
        src = read_source(m.files.prompt)
        text = with_section(src.text, draft, overflow, src.style)
        if text != src.text:
            draft.write("prompt.md", text, src.style, lf=False)
