"""Field paths into a data schema, as promotion walks them.

`issues[].category` is a dotted path into `data`: `[]` steps into an array's
items, and an array met without `[]` is stepped into implicitly. Schemas are
walked through local `$ref`s, `properties`, `items` and the branches of
`allOf` / `oneOf` / `anyOf`. Anything that cannot be followed is a
PromotionError that says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from cogtui.core.authoring.migration.schema_upgrade import resolve_local

PathT = tuple[str | int, ...]
Segment = tuple[str, int]  # a property name and how many `[]` follow it
COMBINATORS = ("allOf", "oneOf", "anyOf")
MAX_DEPTH = 16  # nested combinators or refs deeper than this are a cycle or not worth following


class PromotionError(Exception):
    """The promotion cannot be planned; the message says why and what to do."""


def parse_field(field: str) -> list[Segment]:
    """`issues[].category` -> [("issues", 1), ("category", 0)]."""
    segments: list[Segment] = []
    for raw in field.strip().split("."):
        name, arrays = raw, 0
        while name.endswith("[]"):
            name, arrays = name[:-2], arrays + 1
        if not name:
            raise PromotionError(
                f"{field!r} is not a field path: write names separated by dots, "
                "with [] after an array (e.g. issues[].category)"
            )
        segments.append((name, arrays))
    return segments


def pointer(path: PathT) -> str:
    """A schema path as a JSON Pointer fragment, as shown to authors: `#/data/properties/issues`."""
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def node_at(root: Any, path: PathT) -> Any:
    node = root
    for part in path:
        node = node[part]
    return node


def deref(root: Any, path: PathT) -> PathT:
    path = resolve_local(root, path)
    node = node_at(root, path)
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str):
        raise PromotionError(
            f"cannot follow $ref {ref!r} at {pointer(path)}: promotion edits one file and "
            "follows only local references (#/...) that resolve; edit this one by hand"
        )
    if not isinstance(node, dict):
        raise PromotionError(f"{pointer(path)} is not a schema object")
    return path


def branches(root: Any, path: PathT) -> Iterable[PathT]:
    node = node_at(root, path)
    for key in COMBINATORS:
        branches = node.get(key) if isinstance(node, dict) else None
        if isinstance(branches, list):
            for i, branch in enumerate(branches):
                if isinstance(branch, dict):
                    yield deref(root, (*path, key, i))


def child(root: Any, path: PathT, name: str, depth: int = 0) -> PathT | None:
    """The schema of property `name` of the object schema at `path` (or of one of its branches)."""
    node = node_at(root, path)
    props = node.get("properties") if isinstance(node, dict) else None
    if isinstance(props, dict) and isinstance(props.get(name), dict):
        return deref(root, (*path, "properties", name))
    if depth < MAX_DEPTH:
        for branch in branches(root, path):
            if (found := child(root, branch, name, depth + 1)) is not None:
                return found
    return None


def items_of(root: Any, path: PathT, depth: int = 0) -> PathT | None:
    """The item schema of the array schema at `path` (or of one of its branches)."""
    node = node_at(root, path)
    if isinstance(node, dict) and isinstance(node.get("items"), dict):
        return deref(root, (*path, "items"))
    if depth < MAX_DEPTH:
        for branch in branches(root, path):
            if (found := items_of(root, branch, depth + 1)) is not None:
                return found
    return None


def dotted(segments: Sequence[Segment]) -> str:
    return ".".join(name + "[]" * arrays for name, arrays in segments) or "data"


def resolve_field(root: Any, start: PathT, segments: Sequence[Segment]) -> PathT:
    """The schema path of a field; PromotionError naming the first part that is not there."""
    cur = deref(root, start)
    for i, (name, arrays) in enumerate(segments):
        found = child(root, cur, name)
        if found is None and (items := items_of(root, cur)) is not None:
            found = child(root, items, name)  # an array stepped into without []
        if found is None:
            where = f"in {dotted(segments[:i])}" if i else "in the data schema"
            raise PromotionError(f"there is no field {name!r} {where}")
        cur = found
        for _ in range(arrays):
            items = items_of(root, cur)
            if items is None:
                raise PromotionError(f"{dotted([*segments[:i], (name, 0)])} is not an array, so [] does not apply")
            cur = items
    return cur


def enum_at(root: Any, path: PathT, depth: int = 0) -> PathT | None:
    """The path of the `enum` list that governs the field at `path`: its own, a branch's, or its items'."""
    node = node_at(root, path)
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return None
    if isinstance(node.get("enum"), list):
        return (*path, "enum")
    for branch in branches(root, path):
        if (found := enum_at(root, branch, depth + 1)) is not None:
            return found
    items = items_of(root, path)
    return enum_at(root, items, depth + 1) if items is not None else None
