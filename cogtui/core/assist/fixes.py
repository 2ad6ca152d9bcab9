"""Safe fixes for diagnostics, as text edits the editor previews and applies itself (never written here):

- V005: append the envelope section to prompt.md, the very text `cogn migrate` appends (`envelope_section`);
- V003: set `meta.explain.maxLength` to 280 in schema.json;
- M001 (tier) and V011: add whichever of `tier`, `overflow` and `enums` is missing, with the tier's defaults
  (`TIER_DEFAULTS`; `decision` when no tier is written);
- a near-miss value: the one the message suggests (`did you mean "string"?`), or the allowed value of the field
  nearest to what is written (`tier: decison` -> `decision`).

A fix is offered only where the document parses and the edit's result is certain; otherwise none.
"""

from __future__ import annotations

import difflib
import json
import re

from cogtui.core.assist.documents import Doc, Point, Span
from cogtui.core.assist.fields import field_at
from cogtui.core.authoring.migration.prompt_section import append_section, envelope_section
from cogtui.core.authoring.migration.schema_upgrade import OverflowSettings
from cogtui.core.diagnostics import Diagnostic
from cogtui.core.module.model import Module
from cogtui.core.module.tiers import DEFAULT_TIER, EXPLAIN_MAX, TIER_DEFAULTS
from cogtui.core.records import record

SUGGESTED = re.compile(r"""did you mean (["'])(.+?)\1\?""")
NEAR_MISS_CODES = ("M003", "M004", "M005", "M010", "M011", "M016", "S001")


@record
class Edit:
    span: Span
    text: str


@record
class Fix:
    title: str
    diagnostic: Diagnostic
    edits: list[Edit]  # in the diagnostic's document


def fixes(doc: Doc, found: list[tuple[Diagnostic, Span]], module: Module | None) -> list[Fix]:
    """The fixes for the diagnostics `found` in `doc` (each with its span)."""
    out: list[Fix] = []
    for d, span in found:
        fix = _fix(doc, d, span, module)
        if fix is not None:
            out.append(fix)
    return out


def _fix(doc: Doc, d: Diagnostic, span: Span, module: Module | None) -> Fix | None:
    if d.code == "V005" and doc.role == "prompt" and module is not None:
        return _envelope(doc, d, module)
    if d.code == "V003" and doc.role == "schema":
        return _explain_max(doc, d)
    if d.code in ("M001", "V011") and doc.role == "manifest":
        return _tier_settings(doc, d, module)
    if d.code in NEAR_MISS_CODES:
        return _near_miss(doc, d, span)
    return None


def _end(doc: Doc) -> Point:
    lines = doc.lines
    return len(lines) - 1, len(lines[-1])


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _envelope(doc: Doc, d: Diagnostic, module: Module) -> Fix:
    c = module.contract
    overflow = OverflowSettings(
        c.overflow_enabled.value, c.overflow_max_items.value, c.overflow_require_suggested_mapping.value
    )
    added = append_section(doc.text, envelope_section(overflow), _newline(doc.text))[len(doc.text) :]
    end = _end(doc)
    return Fix("Add the envelope section (as cogn migrate writes it)", d, [Edit((end, end), added)])


def _explain_max(doc: Doc, d: Diagnostic) -> Fix | None:
    if doc.source is None:
        return None
    schema = doc.source.value
    meta = schema.get("meta") if isinstance(schema, dict) else None
    props = meta.get("properties") if isinstance(meta, dict) else None
    explain = props.get("explain") if isinstance(props, dict) else None
    if not isinstance(explain, dict) or "$ref" in explain:
        return None
    title = f"Set meta.explain.maxLength to {EXPLAIN_MAX}"
    if "maxLength" in explain:
        span = doc.span(("meta", "properties", "explain", "maxLength"))
        return Fix(title, d, [Edit(span, str(EXPLAIN_MAX))]) if span else None
    span = doc.span(("meta", "properties", "explain"))
    if span is None:
        return None
    if not explain:
        return Fix(title, d, [Edit(span, f'{{"maxLength": {EXPLAIN_MAX}}}')])
    (row, col), _end_point = span
    after = doc.line(row)[col + 1 :]
    if after.strip():  # `{"type": "string"}` on one line: insert right after the brace
        return Fix(title, d, [Edit(((row, col + 1), (row, col + 1)), f'"maxLength": {EXPLAIN_MAX}, ')])
    below = doc.line(row + 1)
    indent = below[: len(below) - len(below.lstrip())]
    insert = f'{_newline(doc.text)}{indent}"maxLength": {EXPLAIN_MAX},'
    return Fix(title, d, [Edit(((row, col + 1), (row, col + 1)), insert)])


def _tier_settings(doc: Doc, d: Diagnostic, module: Module | None) -> Fix | None:
    if doc.source is None or not isinstance(doc.source.value, dict):
        return None
    manifest = doc.source.value
    if d.code == "M001" and "'tier'" not in d.message:
        return None
    written = manifest.get("tier")
    tier = written if isinstance(written, str) and written in TIER_DEFAULTS else DEFAULT_TIER
    defaults = TIER_DEFAULTS[tier]
    blocks: list[str] = []
    if "tier" not in manifest:
        blocks.append(f"tier: {tier}")
    if "overflow" not in manifest:
        enabled = str(defaults["overflow.enabled"]).lower()
        blocks.append(f"overflow:\n  enabled: {enabled}\n  max_items: {defaults['overflow.max_items']}")
    if "enums" not in manifest:
        blocks.append(f"enums:\n  strategy: {defaults['enums.strategy']}")
    if not blocks:
        return None
    newline = _newline(doc.text)
    lead = "" if doc.text.endswith("\n") or not doc.text else newline
    text = lead + newline.join(blocks).replace("\n", newline) + newline
    names = ", ".join(b.split(":")[0] for b in blocks)
    end = _end(doc)
    return Fix(f"Add {names} with the {tier} tier's defaults", d, [Edit((end, end), text)])


def _near_miss(doc: Doc, d: Diagnostic, span: Span) -> Fix | None:
    (row, start), (end_row, end) = span
    if row != end_row or end <= start:
        return None
    written = doc.line(row)[start:end]
    quote = written[0] if written[:1] in ('"', "'") and written[-1:] == written[:1] else ""
    bare = written[1:-1] if quote else written
    suggested = SUGGESTED.search(d.message)
    choice = suggested.group(2) if suggested else None
    if choice is None and d.code != "S001":
        pointer, _on_key = doc.at(span[0])
        field = field_at(pointer[:2]) if pointer else None
        allowed = [str(v) for v in (field.items or field.values)] if field is not None else []
        close = difflib.get_close_matches(bare, allowed, n=1, cutoff=0.6)
        choice = close[0] if close else None
    if choice is None or choice == bare:
        return None
    text = f"{quote}{choice}{quote}" if quote else choice
    if doc.role in ("schema", "json") and not quote:
        text = json.dumps(choice)
    return Fix(f"Change {written} to {text}", d, [Edit(span, text)])
