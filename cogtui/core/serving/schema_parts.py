"""A part of a module's schema document (its input, its data) as a schema that stands on its own.

A module's schema.json holds several parts whose `$ref`s point into the whole document (`#/$defs/x`,
sometimes `#/input/properties/y`). Handed out alone (an MCP tool's inputSchema, an OpenAPI component),
such a ref would point into whatever document it lands in. `standalone` copies the part and every
local target it reaches into the copy's own `$defs`, rewriting each ref to match; `rebased` moves the
refs of a standalone schema under the place it is embedded at (an OpenAPI component). Refs that leave
the document (a file or URL) are left as they are: the validator resolves them from the module folder,
and a client that cannot is no worse off than with the module's own schema.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from cogtui.core.files.json_pointer import resolve_pointer

MAX_TARGETS = 500  # distinct local refs copied into one standalone schema; a document with more is cut there
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def standalone(part: Any, root: Any) -> dict[str, Any] | None:
    """`part` (a node of `root`) with every local `#/...` target it reaches copied into its own `$defs`.
    None when the part is not a schema object (a boolean schema, nothing)."""
    if not isinstance(part, dict):
        return None
    own_defs: dict[str, Any] = part["$defs"] if isinstance(part.get("$defs"), dict) else {}
    names: dict[str, str] = {}  # a local ref's pointer -> its name under the copy's $defs
    pending: list[tuple[str, Any]] = []

    def name_for(pointer: str) -> str | None:
        if pointer in names:
            return names[pointer]
        if len(names) >= MAX_TARGETS:
            return None
        found, target = resolve_pointer(root, pointer)
        if not found or target is part:
            return None
        tail = pointer.rsplit("/", 1)[-1] or "root"
        name = _UNSAFE.sub("_", tail)
        taken = set(names.values()) | set(own_defs)
        base, n = name, 2
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        names[pointer] = name
        pending.append((name, target))
        return name

    def rewrite(node: Any) -> Any:
        if isinstance(node, dict):
            out = {k: rewrite(v) for k, v in node.items()}
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                pointer = ref[1:]
                if pointer in ("", "/"):
                    out["$ref"] = "#"
                elif pointer.startswith("/"):
                    found, target = resolve_pointer(root, pointer)
                    if found and target is part:
                        out["$ref"] = "#"
                    else:
                        name = name_for(pointer)
                        if name is not None:
                            out["$ref"] = f"#/$defs/{name}"
            return out
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        return node

    out: dict[str, Any] = rewrite({k: v for k, v in part.items() if k != "$defs"})
    defs: dict[str, Any] = {k: rewrite(v) for k, v in own_defs.items()}
    while pending:
        name, target = pending.pop()
        defs[name] = rewrite(target) if isinstance(target, (dict, list)) else copy.deepcopy(target)
    if defs:
        out["$defs"] = defs
    out.pop("$id", None)  # the part is no longer where its document said it was
    return out


def rebased(schema: Any, base: str) -> Any:
    """A standalone schema's local refs (`#`, `#/$defs/x`) moved under `base` (`#/components/schemas/Name`)."""
    if isinstance(schema, dict):
        out = {k: rebased(v, base) for k, v in schema.items()}
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            out["$ref"] = base + ref[1:]
        return out
    if isinstance(schema, list):
        return [rebased(v, base) for v in schema]
    return schema
