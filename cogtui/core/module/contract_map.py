"""A module's contract as a tree of fields, with the golden tests that exercise each one.

`contract_map(module)` walks the input, data, meta and error schemas (local
`$ref`s followed, `allOf`/`anyOf`/`oneOf` object variants merged; a field
required by its variant shows as required) into one
`FieldNode` per field: its type, whether it is required, its enum and
description. `golden_coverage` says, for each field, which golden tests put a
value there: an input field is exercised by a test whose input has it, an
output field by a test whose expected envelope has it (under `data`/`meta`/
`error`; a bare expected object counts as `data`). For enum fields the values
the goldens use are listed too, so an enum value no test covers stands out.

The walk is bounded (depth and node count), so a huge or self-referencing
schema yields a truncated tree, never a hang.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from cogtui.core.module.model import UNPARSED, GoldenTest, Module
from cogtui.core.module.schema_merge import merged_schema, resolve_local, type_text

SECTIONS = ("input", "data", "meta", "error")
MAX_DEPTH = 12
MAX_NODES = 2000
ITEMS = "[]"  # the path segment for "every item of an array"


@dataclass(frozen=True)
class FieldNode:
    section: str  # input, data, meta or error
    path: tuple[str, ...]  # property names, ITEMS for array items
    type: str  # "string", "array", "string | null", "" when the schema does not say
    required: bool
    enum: tuple[Any, ...] = ()
    description: str = ""
    goldens: tuple[str, ...] = ()  # names of the golden tests that put a value here
    enum_values_used: tuple[Any, ...] = ()  # enum values the goldens use, in enum order

    @property
    def depth(self) -> int:
        return len(self.path)

    @property
    def name(self) -> str:
        return self.path[-1] if self.path else self.section

    @property
    def dotted(self) -> str:
        """`data.issues[].severity`"""
        out = self.section
        for part in self.path:
            out += ITEMS if part == ITEMS else f".{part}"
        return out


@dataclass(frozen=True)
class ContractMap:
    nodes: tuple[FieldNode, ...]
    goldens: tuple[str, ...]  # every golden test's name, in module order
    overflow: dict[str, Any] = field(default_factory=dict)
    enums: dict[str, Any] = field(default_factory=dict)
    truncated: bool = False  # the schema was larger or deeper than the walk goes

    def section(self, name: str) -> list[FieldNode]:
        return [n for n in self.nodes if n.section == name]

    def untested(self) -> list[FieldNode]:
        return [n for n in self.nodes if n.path and not n.goldens]


# ------------------------------------------------------------------ schema walk


class _Walk:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.count = 0
        self.truncated = False

    def resolve(self, schema: Any, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Follow a local `$ref` (within this document); anything else unresolvable is an empty schema."""
        return resolve_local(self.root, schema, seen)

    def merged(self, schema: Any) -> dict[str, Any]:
        """The schema with its combinators' object variants folded in (properties and required)."""
        return merged_schema(self.root, schema)

    def fields(self, section: str, schema: Any, path: tuple[str, ...], required: bool) -> Iterator[FieldNode]:
        if self.count >= MAX_NODES or len(path) > MAX_DEPTH:
            self.truncated = True
            return
        self.count += 1
        node = self.merged(schema)
        enum = node.get("enum")
        if not isinstance(enum, list) and "const" in node:
            enum = [node["const"]]
        description = node.get("description")
        yield FieldNode(
            section,
            path,
            type_text(node),
            required,
            tuple(enum) if isinstance(enum, list) else (),
            description.strip() if isinstance(description, str) else "",
        )
        for name, sub in node["properties"].items():
            yield from self.fields(section, sub, (*path, str(name)), name in node["required"])
        items = node.get("items")
        if isinstance(items, dict):
            yield from self.fields(section, items, (*path, ITEMS), True)


# ------------------------------------------------------------------ goldens


def values_at(value: Any, path: tuple[str, ...]) -> list[Any]:
    """Every value found at `path` in `value` (ITEMS fans out over list items)."""
    found = [value]
    for part in path:
        step: list[Any] = []
        for item in found:
            if part == ITEMS:
                if isinstance(item, list):
                    step.extend(item)
            elif isinstance(item, dict) and part in item:
                step.append(item[part])
        found = step
        if not found:
            break
    return found


def golden_sections(test: GoldenTest) -> dict[str, Any]:
    """What a golden test holds for each section: its input, and the parts of its expected envelope."""
    out: dict[str, Any] = {}
    if test.input is not UNPARSED:
        out["input"] = test.input
    expected = test.expected
    if isinstance(expected, dict) and any(k in expected for k in ("ok", "meta", "data", "error")):
        for key in ("data", "meta", "error"):
            if key in expected:
                out[key] = expected[key]
        if "partial_data" in expected and "data" not in out:
            out["data"] = expected["partial_data"]
    elif expected is not UNPARSED and expected is not None:
        out["data"] = expected
    return out


def golden_coverage(node: FieldNode, tests: tuple[GoldenTest, ...]) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """The goldens that put a value at `node`, and the enum values they use there."""
    names: list[str] = []
    used: list[Any] = []
    for test in tests:
        section = golden_sections(test).get(node.section)
        if section is None:
            continue
        values = values_at(section, node.path)
        if values:
            names.append(test.name)
            used.extend(v for v in values if v in node.enum and v not in used)
    ordered = tuple(v for v in node.enum if v in used)
    return tuple(names), ordered


def contract_map(module: Module) -> ContractMap:
    schemas = module.schemas
    walk = _Walk(schemas.root)
    nodes: list[FieldNode] = []
    for section in SECTIONS:
        schema = getattr(schemas, section)
        if not isinstance(schema, dict):
            continue
        for node in walk.fields(section, schema, (), True):
            goldens, used = golden_coverage(node, module.tests)
            nodes.append(
                FieldNode(node.section, node.path, node.type, node.required, node.enum, node.description, goldens, used)
            )
    return ContractMap(
        tuple(nodes), tuple(t.name for t in module.tests), dict(module.overflow), dict(module.enums), walk.truncated
    )
