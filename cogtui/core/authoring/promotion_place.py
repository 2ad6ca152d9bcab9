"""Where a promotion lands: the file holding a module's data (or input) schema, and the place in it a
suggested mapping or an enum value names; whether that place already holds it (the insights dashboard
marks such rows as promoted). Used by promote.py, which plans the edit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cogtui.core.authoring.schema_paths import (
    PathT,
    PromotionError,
    Segment,
    child,
    deref,
    dotted,
    enum_at,
    items_of,
    node_at,
    parse_field,
    pointer,
    resolve_field,
)
from cogtui.core.files.sourcemap import ParseFailure
from cogtui.core.files.text_codec import SourceText, read_source
from cogtui.core.module.model import Module


@dataclass(frozen=True)
class SchemaFile:
    module: Module
    rel: str  # relative to the module folder
    source: SourceText
    root: Any  # the whole parsed file
    data_path: PathT  # where the data schema is in it


def schema_file(module: Module, part: str = "data") -> SchemaFile:
    location = module.schemas.locations.get(part)
    if location is None or getattr(module.schemas, part) is None:
        raise PromotionError(f"{module.name} has no {part} schema to promote into (fix `cogn validate` errors first)")
    path, data_path = location
    try:
        source = read_source(path)
        root = json.loads(source.lf)
    except ParseFailure as failure:
        raise PromotionError(f"{failure.diagnostic.location}: {failure.diagnostic.message}") from None
    except ValueError as exc:
        raise PromotionError(f"{path.name} does not parse as JSON ({exc}); fix it first") from None
    try:
        data = node_at(root, data_path)
    except (KeyError, IndexError, TypeError):
        data = None
    if not isinstance(data, dict):
        raise PromotionError(f"{path.name} changed on disk: {pointer(data_path)} is no longer a schema; reload")
    return SchemaFile(module, path.relative_to(module.path).as_posix(), source, root, tuple(data_path))


def promotion_part(mapping: str) -> str:
    """Which schema a suggested mapping names: `input.x` the input schema, anything else (`data.x`, `x`) the data
    schema."""
    segments = parse_field(mapping)
    return "input" if segments[0] == ("input", 0) and len(segments) > 1 else "data"


def mapping_segments(mapping: str, root: Any, data_path: PathT, part: str = "data") -> list[Segment]:
    """The mapping as field segments, without its leading `data.` or `input.` (unless that schema has a field of
    that very name)."""
    segments = parse_field(mapping)
    if segments[0] == (part, 0) and len(segments) > 1 and child(root, deref(root, data_path), part) is None:
        segments = segments[1:]
    return segments


@dataclass(frozen=True)
class MappingTarget:
    """Where a suggested mapping lands: a member `name` of the enum at `enum_path`, or else a field `name`
    of the object schema at `parent` (`arrays`: how many `[]` followed the name)."""

    sf: SchemaFile
    part: str
    mapping: str  # dotted, without a leading data./input.
    parent: PathT
    parent_name: str
    name: str
    arrays: int
    enum_path: PathT | None


def mapping_target(module: Module, suggested_mapping: str) -> MappingTarget:
    part = promotion_part(suggested_mapping)
    sf = schema_file(module, part)
    segments = mapping_segments(suggested_mapping, sf.root, sf.data_path, part)
    mapping = dotted(segments)
    *parent_segments, (name, arrays) = segments
    try:
        parent = resolve_field(sf.root, sf.data_path, parent_segments)
    except PromotionError as exc:
        raise PromotionError(f"cannot add {mapping}: {exc}") from None
    parent_name = dotted(parent_segments)
    if parent_segments and arrays == 0 and (enum_path := enum_at(sf.root, parent)) is not None:
        return MappingTarget(sf, part, mapping, parent, parent_name, name, arrays, enum_path)
    if (items := items_of(sf.root, parent)) is not None and not isinstance(
        node_at(sf.root, parent).get("properties"), dict
    ):
        parent, parent_name = items, parent_name + "[]"  # `issues.owner`: the field goes on each issue
    return MappingTarget(sf, part, mapping, parent, parent_name, name, arrays, None)


def mapping_in_schema(module: Module, suggested_mapping: str) -> bool:
    """The schema already has what the mapping names (promoted, or there from the start)."""
    try:
        t = mapping_target(module, suggested_mapping)
        if t.enum_path is not None:
            return t.name in node_at(t.sf.root, t.enum_path)
        return child(t.sf.root, t.parent, t.name) is not None
    except (PromotionError, KeyError, IndexError, TypeError, ValueError, RecursionError):
        return False


def enum_value_in_schema(module: Module, field: str, value: str) -> bool:
    """The enum of `field` already has `value` as a member."""
    try:
        sf = schema_file(module)
        enum_path = enum_at(sf.root, resolve_field(sf.root, sf.data_path, parse_field(field)))
        return enum_path is not None and value in node_at(sf.root, enum_path)
    except (PromotionError, KeyError, IndexError, TypeError, ValueError, RecursionError):
        return False
