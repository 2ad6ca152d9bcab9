"""JSON Pointer, local `$ref` following and typed member access, shared by validation, repair, goldens and schema generation."""

from __future__ import annotations

from typing import Any

MAX_HOPS = 16  # refs that point at refs; more is a cycle


def object_at(parent: Any, key: str) -> dict[str, Any]:
    """`parent[key]` when parent is a JSON object and that member is an object too; otherwise an empty one."""
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, dict) else {}


def value_at(value: Any, path: tuple[str | int, ...]) -> Any:
    """The node at `path` (object keys and array indexes), or None when the path does not exist."""
    node = value
    for part in path:
        if isinstance(node, list):
            if not (isinstance(part, int) and part < len(node)):
                return None
            node = node[part]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def array_at(parent: Any, key: str) -> list[Any]:
    """`parent[key]` when parent is a JSON object and that member is an array; otherwise an empty one."""
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, list) else []


def _token(raw: str) -> str:
    return raw.replace("~1", "/").replace("~0", "~")


def _has_anchor(node: Any, name: str) -> bool:
    if isinstance(node, dict):
        return node.get("$anchor") == name or any(_has_anchor(v, name) for v in node.values())
    if isinstance(node, list):
        return any(_has_anchor(v, name) for v in node)
    return False


def resolve_pointer(doc: Any, fragment: str) -> tuple[bool, Any]:
    """(found, value) for a fragment such as `/$defs/x` (or a plain-name `$anchor`)."""
    if fragment not in ("", "/") and not fragment.startswith("/"):
        return _has_anchor(doc, fragment), None
    found = _walk(doc, fragment)
    return (False, None) if found is None else (True, found[1])


def pointer_path(doc: Any, fragment: str) -> tuple[str | int, ...] | None:
    """The path (object keys, array indexes) of what `resolve_pointer(doc, fragment)` finds, or None when it finds
    nothing (or the fragment is a plain-name anchor: found by its name, not at a path)."""
    found = _walk(doc, fragment)
    return None if found is None else found[0]


def _walk(doc: Any, fragment: str) -> tuple[tuple[str | int, ...], Any] | None:
    """(path, value) of what the JSON pointer `fragment` points at in `doc`; None when it points at nothing or is
    no pointer."""
    if fragment in ("", "/"):
        return (), doc
    if not fragment.startswith("/"):
        return None
    path: list[str | int] = []
    cur = doc
    for raw in fragment[1:].split("/"):
        token = _token(raw)
        if isinstance(cur, dict) and token in cur:
            path.append(token)
            cur = cur[token]
        elif isinstance(cur, list) and token.isdigit() and int(token) < len(cur):
            path.append(int(token))
            cur = cur[int(token)]
        else:
            return None
    return tuple(path), cur


def deref(node: Any, root: Any) -> Any:
    """Follow `#/...` refs from `node` within `root`; None when one does not resolve (or loops)."""
    for _ in range(MAX_HOPS):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#"):
            return node
        found, node = resolve_pointer(root, ref[1:])
        if not found:
            return None
    return None
