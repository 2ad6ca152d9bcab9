"""schema.json to v2.2 (SPEC-v2.2 §3): output → data, rationale required, confidence to meta, meta/error/extensions.

Works on a `JsonDoc`, so an existing schema.json keeps its formatting, key
order and unknown keys. v0's two schema files are first assembled into one
document: each part's `$defs`/`definitions` move to the root `$defs` and its
local `$ref`s are rewritten to keep pointing at the same schemas.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from cogtui.core.authoring.migration.jsondoc import JsonDoc, PathT
from cogtui.core.files.json_pointer import value_at
from cogtui.core.module.schema_engine import DRAFT7, DRAFT2020, DRAFT_URIS
from cogtui.core.module.standard_parts import V22_SCHEMA_URL, error_schema, extensions_schema, meta_schema
from cogtui.core.module.tiers import TIER_DEFAULTS
from cogtui.core.rules.schema_checks import foreign_keywords

JSON_SCHEMA_DRAFTS = (
    "json-schema.org/draft-04/",
    "json-schema.org/draft-06/",
    "json-schema.org/draft-07/",
    "json-schema.org/draft/2019-09/",
    "json-schema.org/draft/2020-12/",
)
META_SCHEMA = meta_schema()
ERROR_SCHEMA = error_schema()
RATIONALE_DESCRIPTION = "Detailed reasoning for audit and human review"


class SchemaUpgradeError(Exception):
    """The schema cannot be upgraded mechanically; `path` is where in schema.json."""

    def __init__(self, message: str, path: PathT = ()) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class OverflowSettings:
    enabled: bool
    max_items: int
    require_mapping: bool


def resolve_local(value: Any, path: PathT) -> PathT:
    """Follow local `#/...` refs from `path` to the schema object they name (bounded, for cycles)."""
    for _ in range(16):
        node = value_at(value, path)
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/")):
            return path
        target = tuple(_unescape(t) for t in ref[2:].split("/"))
        if value_at(value, target) is None:
            return path
        path = target
    return path


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def string_only(schema: Any, root: Any, depth: int = 0) -> bool:
    if depth > 16 or not isinstance(schema, dict):
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        return string_only(value_at(root, tuple(_unescape(t) for t in ref[2:].split("/"))), root, depth + 1)
    if schema.get("type") == "string" or schema.get("type") == ["string"]:
        return True
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            return all(string_only(b, root, depth + 1) for b in branches)
    return False


def upgrade_schema(doc: JsonDoc, data_path: PathT, tier: str, notes: list[str]) -> OverflowSettings:
    """Make `doc` a v2.2 schema.json; returns the overflow settings module.yaml must agree with (V006, V007)."""
    root = doc.value
    if data_path == ("output",) and "data" not in root:
        doc.rename(("output",), "data")
        data_path = ("data",)
        notes.append("schema.json: output is renamed data (SPEC-v2.2 §3.1)")
    target = resolve_local(doc.value, data_path)
    data = doc.get(target)
    if not isinstance(data, dict):
        raise SchemaUpgradeError("the data (output) schema is not an object", data_path)
    _require_rationale(doc, target, notes)
    settings = _overflow(doc, target, tier, notes)
    if "meta" not in doc.value:
        anchor = next((k for k in ("input", str(data_path[0])) if k in doc.value), None)
        doc.insert((), "meta", META_SCHEMA, before=anchor)
        notes.append("schema.json: a meta schema is added (confidence, risk, explain of at most 280 characters)")
    if "error" not in doc.value:
        doc.insert((), "error", ERROR_SCHEMA, after=str(data_path[0]) if len(data_path) == 1 else None)
        notes.append("schema.json: an error schema is added (code, message)")
    url = doc.value.get("$schema")
    if isinstance(url, str) and "cognitive-modules" in url and url != V22_SCHEMA_URL:
        doc.replace(("$schema",), V22_SCHEMA_URL)
        notes.append(f"schema.json: $schema {url} becomes {V22_SCHEMA_URL}")
    return settings


def _require_rationale(doc: JsonDoc, target: PathT, notes: list[str]) -> None:
    data = doc.get(target)
    required = data.get("required")
    old = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    new = [r for r in old if r != "confidence"]
    if "confidence" in old:
        notes.append(
            "schema.json: data no longer requires confidence; it moves to meta.confidence "
            "(data may still carry it, SPEC-v2.2 §6.1)"
        )
    if "rationale" not in new:
        new.append("rationale")
        notes.append("schema.json: data now requires rationale (SPEC-v2.2 §3.3)")
    if new != required:
        if isinstance(required, list):
            doc.replace((*target, "required"), new)
        else:
            doc.insert(target, "required", new, after="type" if "type" in data else None)
    props = data.get("properties")
    if not isinstance(props, dict):
        doc.insert(
            target,
            "properties",
            {"rationale": {"type": "string", "description": RATIONALE_DESCRIPTION}},
            after="required",
        )
        return
    rationale = props.get("rationale")
    if rationale is None:
        doc.insert((*target, "properties"), "rationale", {"type": "string", "description": RATIONALE_DESCRIPTION})
    elif not string_only(rationale, doc.value):
        replacement: dict[str, Any] = {"type": "string"}
        if isinstance(rationale, dict) and isinstance(rationale.get("description"), str):
            replacement["description"] = rationale["description"]
        doc.replace((*target, "properties", "rationale"), replacement)
        notes.append(
            "schema.json: data.rationale could be more than text; v2.2 requires a string (SPEC-v2.2 §3.3), "
            "so its other forms are dropped and structured example rationales become text"
        )


def _overflow(doc: JsonDoc, target: PathT, tier: str, notes: list[str]) -> OverflowSettings:
    defaults = TIER_DEFAULTS[tier]
    if not defaults["overflow.enabled"]:
        return OverflowSettings(False, 0, False)
    default_max = int(defaults["overflow.max_items"])
    props_path = (*target, "properties")
    if "extensions" not in doc.get(props_path):
        defs = doc.value.get("$defs")
        if not (isinstance(defs, dict) and "extensions" in defs):
            if isinstance(defs, dict):
                doc.insert(("$defs",), "extensions", extensions_schema(default_max))
            else:
                doc.insert((), "$defs", {"extensions": extensions_schema(default_max)})
            notes.append(
                f"schema.json: $defs.extensions is added (at most {default_max} insights, "
                "each with text and suggested_mapping)"
            )
        doc.insert(props_path, "extensions", {"$ref": "#/$defs/extensions"})
        notes.append("schema.json: data.extensions refers to #/$defs/extensions")
    ext_path = resolve_local(doc.value, (*props_path, "extensions"))
    ext = doc.get(ext_path)
    ins_path = resolve_local(doc.value, (*ext_path, "properties", "insights")) if isinstance(ext, dict) else ()
    insights = value_at(doc.value, ins_path) if ins_path else None
    if not isinstance(insights, dict):
        raise SchemaUpgradeError(
            "data.extensions exists but has no insights array schema; rename the field or "
            "give it properties.insights (SPEC-v2.2 §3.4)",
            ext_path,
        )
    max_items = insights.get("maxItems")
    if not isinstance(max_items, int) or isinstance(max_items, bool):
        doc.insert(ins_path, "maxItems", default_max, after="type" if "type" in insights else None)
        notes.append(f"schema.json: the insights array gets maxItems {default_max} ({tier} tier default)")
        max_items = default_max
    elif max_items != default_max:
        notes.append(
            f"overflow.max_items is {max_items}, the schema's insights maxItems ({tier} default: {default_max})"
        )
    items = value_at(doc.value, resolve_local(doc.value, (*ins_path, "items"))) if "items" in insights else None
    required = items.get("required") if isinstance(items, dict) else None
    requires_mapping = isinstance(required, list) and "suggested_mapping" in required
    if not requires_mapping:
        notes.append(
            "overflow.require_suggested_mapping is false: the schema's insights do not require suggested_mapping"
        )
    return OverflowSettings(True, max_items, requires_mapping)


# ---------------------------------------------------------------- v0: two files into one


def assemble_v0(
    input_schema: dict[str, Any],
    output_schema: dict[str, Any],
    notes: list[str],
    input_name: str = "input.schema.json",
    output_name: str = "output.schema.json",
) -> dict[str, Any]:
    """One schema.json document from v0's input and output schema files (before `upgrade_schema`)."""
    parts = {"input": copy.deepcopy(input_schema), "data": copy.deepcopy(output_schema)}
    files = {input_name: "input", output_name: "data"}
    root_url = created_schema_url(parts)
    defs: dict[str, Any] = {}
    renames: dict[str, dict[tuple[str, str], str]] = {}
    for name, schema in parts.items():
        schema.pop("$schema", None)
        if "$id" in schema:
            notes.append(
                f"schema.json: the {name} schema's $id {schema.pop('$id')!r} is dropped; "
                "its parts now live in one document"
            )
        renames[name] = {}
        for container in ("$defs", "definitions"):
            local = schema.pop(container, None)
            if not isinstance(local, dict):
                continue
            for def_name, content in local.items():
                new_name = def_name
                if new_name == "extensions" or (new_name in defs and defs[new_name] != content):
                    new_name = f"{name}_{def_name}"
                    notes.append(f"schema.json: {container}/{def_name} of the {name} schema is $defs/{new_name}")
                renames[name][(container, def_name)] = new_name
                defs[new_name] = content

    def rewrite(node: Any, owner: str) -> Any:
        if isinstance(node, dict):
            out = {k: rewrite(v, owner) for k, v in node.items()}
            ref = node.get("$ref")
            if isinstance(ref, str):
                out["$ref"] = _rewrite_ref(ref, owner, files, renames)
            return out
        if isinstance(node, list):
            return [rewrite(v, owner) for v in node]
        return node

    owners = {new: name for name, table in renames.items() for new in table.values()}
    root: dict[str, Any] = {"$schema": root_url}
    for name, schema in parts.items():
        root[name] = rewrite(schema, name)
    if defs:
        root["$defs"] = {k: rewrite(v, owners.get(k, "data")) for k, v in defs.items()}
        notes.append("schema.json: the schema files' definitions are gathered under $defs and their $refs rewritten")
    return root


def created_schema_url(parts: dict[str, Any]) -> str:
    """The `$schema` of a schema.json migration creates: always a JSON Schema draft (FMT-1).

    The parts' own draft when they agree on one; otherwise Draft-07, the spec's
    default, unless they use keywords only 2019-09/2020-12 define, which keep
    their meaning under 2020-12.
    """
    drafts = {p.get("$schema") for p in parts.values()}
    draft = next(iter(drafts)) if len(drafts) == 1 else None
    if isinstance(draft, str) and any(d in draft for d in JSON_SCHEMA_DRAFTS):
        return draft
    if any(foreign_keywords(p, DRAFT7) for p in parts.values()):
        return DRAFT_URIS[DRAFT2020]
    return DRAFT_URIS[DRAFT7]


def _rewrite_ref(ref: str, owner: str, files: dict[str, str], renames: dict[str, dict[tuple[str, str], str]]) -> str:
    file_part, hashmark, fragment = ref.partition("#")
    if file_part:
        name = file_part[2:] if file_part.startswith("./") else file_part
        if name not in files:
            return ref  # another file in the module: it stays where it is
        owner = files[name]
    elif not hashmark:
        return ref
    if fragment in ("", "/"):
        return f"#/{owner}"
    if not fragment.startswith("/"):
        return ref if not file_part else f"#{fragment}"  # an $anchor
    tokens = [_unescape(t) for t in fragment[1:].split("/")]
    if len(tokens) >= 2 and (tokens[0], tokens[1]) in renames.get(owner, {}):
        rest = tokens[2:]
        return "#/$defs/" + "/".join(_escape(t) for t in [renames[owner][(tokens[0], tokens[1])], *rest])
    return f"#/{owner}{fragment}"
