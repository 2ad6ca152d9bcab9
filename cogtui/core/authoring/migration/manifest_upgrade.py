"""module.yaml to v2.2 / v2.5: constraints become policies, and tier, overflow, enums, io, compat, tests are added.

Every edit goes through `YamlDoc`, so the manifest's comments, key order and
unknown fields survive. Comments on constraint lines follow them to the
policy lines they become.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.authoring.migration.schema_upgrade import OverflowSettings
from cogtui.core.authoring.migration.yamldoc import Entry, YamlDoc, emit, header_comment, with_comment, yaml_scalar
from cogtui.core.files.json_pointer import object_at
from cogtui.core.module.tiers import TIER_DEFAULTS

# What a v0/v1 constraint becomes in a v2.2 manifest: its policy, `true` a deny and `false` an allow (MIG-2).
CONSTRAINT_POLICIES = {
    "no_network": "network",
    "no_side_effects": "side_effects",
    "no_file_write": "filesystem_write",
    "no_filesystem_write": "filesystem_write",
    "no_code_execution": "code_execution",
}
# Constraints with no policy: dropped when v2.2 already guarantees them, kept when the runtime still enforces them.
DROPPED_CONSTRAINTS = {"require_confidence": "meta.confidence is always required in the v2.2 envelope"}
KEPT_CONSTRAINTS = {
    "require_rationale": "the runtime still rejects an empty rationale (E3003)",
    "no_inventing_data": "no v2.2 policy covers it; the runtime still asks the model to mark unknowns",
}
COMPAT = {"accepts_v21_payload": True, "runtime_auto_wrap": True, "schema_output_alias": "data"}


def _entries_from(doc: YamlDoc | None, key: str | None, value: dict[str, Any], unit: str, nested: bool) -> list[Entry]:
    """Entries with their comments when the text allows; plain entries otherwise."""
    found = None
    if doc is not None and doc.editable:
        found = doc.root_entries() if key is None else doc.entries(key)
    if found is None:
        return [Entry(str(k), v, tuple(emit(str(k), v, unit, 1 if nested else 0))) for k, v in value.items()]
    return found


def _indented(entry: Entry, unit: str, nested: bool) -> list[str]:
    """An entry's original lines (and the comments above it) placed one level under its block key."""
    lead = [unit + c.strip() for c in entry.leading]
    if nested:
        return lead + list(entry.lines)
    return lead + [unit + line if line.strip() else line for line in entry.lines]


def migrate_constraints(
    doc: YamlDoc,
    constraints: dict[str, Any],
    source: YamlDoc | None,
    source_key: str | None,
    notes: list[str],
    where: str,
) -> None:
    """constraints → policies (+ the constraints that keep a meaning), written into `doc`.

    `source` holds the constraints' text: `doc` itself for a v1 frontmatter
    (source_key "constraints"), or constraints.yaml for v0 (source_key None for
    a flat file, "constraints" when the file wraps them).
    """
    unit = doc.indent_unit
    nested = source is doc or source_key is not None
    entries = _entries_from(source, source_key, constraints, unit, nested)
    existing = object_at(doc.value, "policies")
    policies: dict[str, Any] = dict(existing)
    policy_lines: list[str] = []
    kept: dict[str, Any] = {}
    kept_lines: list[str] = []
    for entry in entries:
        key, value = entry.key, entry.value
        policy = CONSTRAINT_POLICIES.get(key)
        if policy is not None and isinstance(value, bool):
            verdict = "deny" if value else "allow"
            if policy in policies:
                notes.append(
                    f"constraints: {key}: {yaml_scalar(value)} is dropped; "
                    f"policies already set {policy}: {policies[policy]}"
                )
                continue
            policies[policy] = verdict
            column = (
                entry.comment_column + (len(unit) if not nested else 0) if entry.comment_column is not None else None
            )
            policy_lines += [unit + c.strip() for c in entry.leading]
            policy_lines.append(with_comment(f"{unit}{policy}: {verdict}", entry.comment, column))
            notes.append(f"constraints: {key}: {yaml_scalar(value)} becomes policies: {policy}: {verdict} ({where})")
        elif key in DROPPED_CONSTRAINTS:
            notes.append(f"constraints: {key} is dropped: {DROPPED_CONSTRAINTS[key]}")
        else:
            kept[key] = value
            kept_lines += _indented(entry, unit, nested)
            why = KEPT_CONSTRAINTS.get(key, "it does not map to a v2.2 policy; kept as-is for the author to review")
            notes.append(f"constraints: {key} is kept: {why}")
    parts: list[tuple[str, Any, list[str]]] = []
    if policies != existing:
        if existing:
            old = doc.entries("policies")
            block = doc.block("policies")
            head = doc.lines[block.key_line] if block is not None else "policies:"
            old_lines = (
                [ln for e in old for ln in _indented(e, unit, True)]
                if old is not None
                else emit("policies", existing, unit)[1:]
            )
            parts_policies = [head, *old_lines, *policy_lines]
            doc.set_block("policies", policies, parts_policies)
        else:
            parts.append(("policies", policies, ["policies:", *policy_lines]))
    header = None
    if source is doc and doc.block("constraints") is not None:
        header = header_comment(doc.lines[doc.block("constraints").key_line])  # type: ignore[union-attr]
    if kept:
        parts.append(("constraints", kept, [with_comment("constraints:", header, None), *kept_lines]))
    if doc.has("constraints"):
        if parts:
            doc.replace_block("constraints", parts)
        else:  # every constraint mapped onto existing policies or was dropped
            doc.replace_block("constraints", [])
    elif parts:
        doc.insert_blocks(parts)


def add_contract(doc: YamlDoc, tier: str, overflow: OverflowSettings, tier_note: str) -> None:
    """tier and schema_strictness after responsibility; overflow and enums after policies (SPEC-v2.2 §1.4)."""
    unit = doc.indent_unit
    defaults = TIER_DEFAULTS[tier]
    strictness = defaults["schema_strictness"]
    doc.insert_blocks(
        [
            ("tier", tier, [f"tier: {tier}  # {tier_note}"]),
            ("schema_strictness", strictness, [f"schema_strictness: {strictness}"]),
        ],
        tight=True,
    )
    if overflow.enabled:
        overflow_value: dict[str, Any] = {
            "enabled": True,
            "recoverable": overflow.require_mapping,
            "max_items": overflow.max_items,
            "require_suggested_mapping": overflow.require_mapping,
        }
    else:
        overflow_value = {"enabled": False}
    enums_value = {"strategy": defaults["enums.strategy"]}
    doc.insert_blocks(
        [
            ("overflow", overflow_value, emit("overflow", overflow_value, unit)),
            ("enums", enums_value, emit("enums", enums_value, unit)),
        ]
    )


def migrate_io(doc: YamlDoc, parts_present: list[str], notes: list[str]) -> None:
    """io lists input, data, meta and error (those the schema has); a v2.1 `output` entry becomes `data`."""
    unit = doc.indent_unit
    wanted = {p: f"./schema.json#/{p}" for p in ("input", "data", "meta", "error") if p in parts_present}
    io = doc.value.get("io") if isinstance(doc.value.get("io"), dict) else None
    if io is None:
        if not doc.has("io"):
            doc.set_block("io", wanted, emit("io", wanted, unit))
        return
    entries = doc.entries("io")
    block = doc.block("io")
    head = doc.lines[block.key_line] if block is not None else "io:"
    rows: list[tuple[str, Any, list[str]]] = []
    source = (
        entries if entries is not None else [Entry(str(k), v, tuple(emit(str(k), v, unit, 1))) for k, v in io.items()]
    )
    for entry in source:
        if entry.key == "output" and "data" not in io:
            new_ref = entry.value
            if isinstance(new_ref, str) and new_ref.replace("./", "", 1) == "schema.json#/output":
                new_ref = wanted.get("data", "./schema.json#/data")
            line = with_comment(f"{unit}data: {yaml_scalar(new_ref)}", entry.comment, entry.comment_column)
            rows.append(("data", new_ref, [unit + c.strip() for c in entry.leading] + [line]))
            notes.append("module.yaml: io.output is renamed io.data")
            continue
        rows.append((entry.key, entry.value, _indented(entry, unit, True)))
    canonical = list(wanted)
    for part, ref in wanted.items():
        if any(key == part for key, _, _ in rows):
            continue
        # After the last entry that comes before it in input, data, meta, error order.
        earlier = set(canonical[: canonical.index(part)])
        at = max((i + 1 for i, (key, _, _) in enumerate(rows) if key in earlier), default=len(rows))
        rows.insert(at, (part, ref, [f"{unit}{part}: {ref}"]))
    value = {key: v for key, v, _ in rows}
    if value != io or list(value) != list(io):
        doc.set_block("io", value, [head] + [line for _, _, lines in rows for line in lines])


def add_missing(doc: YamlDoc, key: str, value: Any) -> bool:
    if doc.has(key):
        return False
    doc.set_block(key, value, emit(key, value, doc.indent_unit))
    return True


def add_tests(doc: YamlDoc, entries: list[str], notes: list[str]) -> None:
    if not entries:
        return
    current = doc.value.get("tests")
    if isinstance(current, list):
        merged = current + [e for e in entries if e not in current]
        if merged != current:
            doc.set_block("tests", merged, emit("tests", merged, doc.indent_unit))
            notes.append("module.yaml: tests is rewritten with the new golden tests appended")
        return
    doc.set_block("tests", entries, emit("tests", entries, doc.indent_unit))


def add_v25(doc: YamlDoc, tier: str, notes: list[str]) -> None:
    """SPEC-v2.5 §10.1 / §5.2: response (the tier's mode) and modalities (text in, text out)."""
    mode = TIER_DEFAULTS[tier]["response.mode"]
    if add_missing(doc, "response", {"mode": mode}):
        notes.append(f"module.yaml: response.mode is {mode}, the {tier} tier's default (SPEC-v2.5 §5.2)")
    if add_missing(doc, "modalities", {"input": ["text"], "output": ["text"]}):
        notes.append(
            "module.yaml: modalities are text in, text out; add image, audio, video or document "
            "if the module takes or returns media (SPEC-v2.5 §4)"
        )
