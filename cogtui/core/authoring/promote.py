"""Promotion: how insights become structure.

A custom enum value that keeps coming back (`{"custom": "concurrency", ...}` in
`issues[].category`) becomes a member of that enum; an overflow insight's
`suggested_mapping` (`assumptions`, `issues[].owner`, `changes.type.add_type_hints`)
becomes a new optional field, or a new enum member when the path before its last
segment names an enum. Both build a `MigrationPlan` that modifies one file
(the file holding the data schema, normally schema.json) with a minimal text
edit, so the author reviews a diff in the migration preview before anything is
written; `apply_promotion` writes it atomically with a backup (undoable with
`undo_latest`) and re-validates the module.

Field paths are dotted paths into `data`: `[]` after a name steps into an
array's items (`issues[].category`), and an array met without `[]` is stepped
into implicitly, since suggested mappings are written by models that rarely
say `[]` (SPEC-v2.2 §7.3 writes `changes.type.add_type_hints` for an array of
changes). Schemas are walked through local `$ref`s, `properties`, `items` and
the branches of `allOf` / `oneOf` / `anyOf` (the extensible-enum pattern of
§3.5 keeps its enum in the string branch of a `oneOf`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogtui.core.authoring.migration.apply import ApplyResult, apply_plan
from cogtui.core.authoring.migration.jsondoc import JsonDoc, JsonEditError, Span, detect_style, scan
from cogtui.core.authoring.migration.plan import FileChange, MigrationPlan, to_confirm
from cogtui.core.authoring.promotion_place import SchemaFile, mapping_target, schema_file
from cogtui.core.authoring.schema_paths import (
    PathT,
    PromotionError,
    child,
    dotted,
    enum_at,
    node_at,
    parse_field,
    pointer,
    resolve_field,
)
from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.text_codec import unified_diff
from cogtui.core.module.model import Module

__all__ = [
    "PromotionError",
    "apply_promotion",
    "examples_look_like_lists",
    "looks_plural",
    "parse_field",
    "plan_enum_promotion",
    "plan_mapping_promotion",
]

# Catch-all members stay last: a promoted value goes in before them.
CATCH_ALL = ("other", "unknown")
# A new field goes before these standard trailing members of `data`, when present.
TRAILING_FIELDS = ("rationale", "extensions")
FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
# Words ending in s that are usually singular (status, analysis, address).
SINGULAR_ENDINGS = ("ss", "us", "is")
BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+", re.M)
MAX_DESCRIPTION = 160


# ---------------------------------------------------------------- the file


def _plan(sf: SchemaFile, new_lf: str, notes: list[str]) -> MigrationPlan:
    m = sf.module
    style = sf.source.style
    diff = unified_diff(sf.source.lf, new_lf, f"a/{sf.rel}", f"b/{sf.rel}")
    change = FileChange(
        sf.rel, "modify", sf.source.lf, new_lf, diff, style, None, (), sf.source.raw, style.encode(new_lf)
    )
    fmt = m.format.value
    return MigrationPlan(m.name, m.path, fmt, fmt, (change,), tuple(notes), (), m.tier)


def _same(text: str, value: Any) -> bool:
    """The text parses to exactly `value`, key order included."""
    try:
        return json.dumps(json.loads(text)) == json.dumps(value)
    except ValueError:
        return False


# ---------------------------------------------------------------- enum members


def _span_at(root: Span, path: PathT) -> Span:
    node = root
    for part in path:
        if node.kind == "object":
            found = [m for m in node.members if m[0] == part]
            if not found:
                raise JsonEditError(f"no member {part!r}")
            node = found[-1][3]  # json.loads keeps the last of duplicated keys
        elif node.kind == "array" and isinstance(part, int) and part < len(node.items):
            node = node.items[part]
        else:
            raise JsonEditError(f"cannot descend into {part!r}")
    return node


def _insert_item(text: str, array_path: PathT, index: int, value: Any) -> str:
    """`text` with `value` added to the array at `array_path`, touching nothing else: the new item is
    separated the way the array's own items are (one per line, or inline)."""
    root = scan(text)
    array = _span_at(root, array_path)
    if array.kind != "array":
        raise JsonEditError("not an array")
    item = detect_style(text, root).scalar(value)
    items = array.items
    if not items:
        return text[: array.start] + f"[{item}]" + text[array.end :]
    if len(items) > 1:
        sep = text[items[0].end : items[1].start]
    elif "\n" in text[array.start : items[0].start]:
        line_start = text.rfind("\n", 0, items[0].start) + 1
        sep = ",\n" + text[line_start : items[0].start]
    else:
        sep = ", "
    if index < len(items):
        at = items[index].start
        return text[:at] + item + sep + text[at:]
    at = items[-1].end
    return text[:at] + sep + item + text[at:]


def _enum_plan(sf: SchemaFile, enum_path: PathT, field: str, value: str, notes: list[str]) -> MigrationPlan:
    members = node_at(sf.root, enum_path)
    if value in members:
        raise PromotionError(f"{value!r} is already a member of the {field} enum")
    index = len(members)
    while index and members[index - 1] in CATCH_ALL:
        index -= 1
    new_members = [*members[:index], value, *members[index:]]
    expected = copy.deepcopy(sf.root)
    node_at(expected, enum_path[:-1])[enum_path[-1]] = new_members
    where = f"before {members[index]!r}" if index < len(members) else "at the end"
    notes.insert(0, f"{sf.rel}: {field} gains the enum member {value!r} ({where}, at {pointer(enum_path)})")
    try:
        new_lf = _insert_item(sf.source.lf, enum_path, index, value)
    except (JsonEditError, RecursionError):
        new_lf = ""
    if not _same(new_lf, expected):
        doc = JsonDoc(sf.source.lf, sf.root)
        doc.replace(enum_path, new_members)
        new_lf, reformatted = doc.finish()
        if reformatted:
            notes.append(
                to_confirm(f"{sf.rel} could not be edited in place, so it is written out again in its own style")
            )
    if "$defs" in enum_path or "definitions" in enum_path:
        notes.append(
            f"the enum is defined once at {pointer(enum_path[:-1])}: every field that refers to it gains {value!r}"
        )
    notes += [
        f"runs may now answer {value!r} directly; the custom form {{custom, reason}} stays valid for others",
        "if the prompt lists the allowed values, add it there too",
    ]
    return _plan(sf, new_lf, notes)


def plan_enum_promotion(module: Module, field: str, value: str) -> MigrationPlan:
    """A plan adding `value` to the enum of `field` (e.g. `issues[].category`) in the data schema."""
    if not isinstance(value, str) or not value.strip():
        raise PromotionError("a promoted enum value must be a non-empty string")
    sf = schema_file(module)
    segments = parse_field(field)
    path = resolve_field(sf.root, sf.data_path, segments)
    enum_path = enum_at(sf.root, path)
    if enum_path is None:
        raise PromotionError(
            f"{dotted(segments)} has no enum to extend (at {pointer(path)}); "
            "promote into a field declared with `enum` or the extensible {custom, reason} pattern"
        )
    return _enum_plan(sf, enum_path, dotted(segments), value, [])


# ---------------------------------------------------------------- new fields


def looks_plural(name: str) -> bool:
    """`assumptions`, `open_questions`, `riskFactors`: the last word ends in s (not ss/us/is)."""
    last = re.split(r"[_-]|(?<=[a-z])(?=[A-Z])", name)[-1].lower()
    return len(last) > 2 and last.endswith("s") and not last.endswith(SINGULAR_ENDINGS)


def examples_look_like_lists(examples: Sequence[Mapping[str, Any]]) -> bool:
    """An example whose text or evidence holds two or more bullet or numbered lines."""
    return any(
        isinstance(text := example.get(key), str) and len(BULLET.findall(text)) >= 2
        for example in examples
        for key in ("text", "evidence")
    )


def field_description(mapping: str, examples: Sequence[Mapping[str, Any]]) -> str:
    """The first sentence of the latest insight that asked for the field, as a starting point the author edits."""
    text = next((e.get("text") for e in examples if isinstance(e.get("text"), str) and e["text"].strip()), None)
    if text is None:
        return f"Promoted from overflow insights suggesting {mapping}."
    sentence = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
    if len(sentence) > MAX_DESCRIPTION:
        sentence = sentence[: MAX_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"
    return f'Promoted from overflow insights, e.g. "{sentence}"'


def new_field_schema(name: str, as_list: bool, mapping: str, examples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    description = field_description(mapping, examples)
    if as_list or looks_plural(name) or examples_look_like_lists(examples):
        return {"type": "array", "items": {"type": "string"}, "description": description}
    return {"type": "string", "description": description}


def plan_mapping_promotion(
    module: Module, suggested_mapping: str, examples: Sequence[Mapping[str, Any]] = ()
) -> MigrationPlan:
    """A plan adding what `suggested_mapping` names: an optional field, or an enum member when the path before
    its last segment is an enum field. `input.x` names the input schema, anything else the data schema.
    `examples` are the insights behind it (text, evidence)."""
    t = mapping_target(module, suggested_mapping)
    sf, part, mapping, parent, parent_name, name, arrays = (
        t.sf,
        t.part,
        t.mapping,
        t.parent,
        t.parent_name,
        t.name,
        t.arrays,
    )
    if t.enum_path is not None:
        note = f"suggested mapping {suggested_mapping!r} names a new value of the enum field {parent_name}"
        return _enum_plan(sf, t.enum_path, parent_name, name, [note])
    if (existing := child(sf.root, parent, name)) is not None:
        raise PromotionError(f"{mapping} is already a field of the {part} schema (at {pointer(existing)})")
    node = node_at(sf.root, parent)
    kind = node.get("type")
    if kind not in (None, "object") and not (isinstance(kind, list) and "object" in kind):
        raise PromotionError(f"cannot add {mapping}: {parent_name} is of type {kind}, not an object")
    if not FIELD_NAME.match(name):
        raise PromotionError(
            f"{name!r} is not a usable field name (letters, digits, _ and -, not starting with a digit)"
        )
    schema = new_field_schema(name, arrays > 0, suggested_mapping, examples)
    doc = JsonDoc(sf.source.lf, sf.root)
    props = node.get("properties")
    if isinstance(props, dict):
        before = next((k for k in TRAILING_FIELDS if k in props), None)
        doc.insert((*parent, "properties"), name, schema, before=before)
    else:
        doc.insert(parent, "properties", {name: schema}, after="required" if "required" in node else None)
    new_lf, reformatted = doc.finish()
    kind_text = "a list of strings" if schema["type"] == "array" else "a string"
    notes = [
        f"{sf.rel}: {parent_name} gains the optional field {name} ({kind_text}, at "
        f"{pointer((*parent, 'properties', name))})",
        "the type is a guess (a plural name, a trailing [] or list-like examples make it a list of strings) "
        "and the description is the first insight's text: adjust both if they are not right",
        "the field is optional, so existing outputs and golden tests stay valid; tell the prompt when to fill it"
        if part == "data"
        else "the field is optional, so existing inputs and golden tests stay valid; tell the prompt how to use it",
    ]
    if "$defs" in parent or "definitions" in parent:
        notes.append(f"the object is defined once at {pointer(parent)}: every field that refers to it gains {name}")
    if reformatted:
        notes.append(to_confirm(f"{sf.rel} could not be edited in place, so it is written out again in its own style"))
    return _plan(sf, new_lf, notes)


# ---------------------------------------------------------------- applying


def apply_promotion(plan: MigrationPlan) -> tuple[ApplyResult, list[Diagnostic]]:
    """Write the plan (atomic, backed up, undoable with `undo_latest`), then validate the module as it now is.
    The diagnostics are returned, not raised: a promotion that leaves a warning is still applied."""
    from cogtui.core.module.loader import load_module
    from cogtui.core.rules.validate_module import validate_module

    result = apply_plan(plan, backup=True, verify=False)
    return result, validate_module(load_module(Path(plan.path)))
