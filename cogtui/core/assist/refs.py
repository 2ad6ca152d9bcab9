"""Where a `$ref` of a module's schema file points: resolved as the run resolves it (relative to its file, the
fragment a JSON pointer), confined to the module folder; remote references are never fetched."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

from cogtui.core.assist.documents import Doc, Pointer, Span, parse
from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.sourcemap import read_text
from cogtui.core.records import record


@record
class RefTarget:
    path: Path  # the file it points into
    fragment: str  # the JSON pointer, without `#`
    pointer: Pointer
    value: Any
    span: Span | None  # where the target is in its file


def pointer_parts(fragment: str) -> Pointer | None:
    """A JSON pointer's parts (`/a/b~1c/0` -> ("a", "b/c", "0")); None for a fragment that is not a pointer."""
    if fragment in ("", "/"):
        return ()
    if not fragment.startswith("/"):
        return None
    return tuple(unquote(p).replace("~1", "/").replace("~0", "~") for p in fragment[1:].split("/"))


def _walk(value: Any, parts: Pointer) -> tuple[bool, Any, Pointer]:
    out: list[Any] = []
    for part in parts:
        if isinstance(value, dict) and part in value:
            value = value[part]
            out.append(part)
        elif isinstance(value, list) and isinstance(part, str) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
            out.append(int(part))
        else:
            return False, None, ()
    return True, value, tuple(out)


def ref_target(doc: Doc, ref: str, root: Path | None = None) -> RefTarget | None:
    """What `ref` (written in `doc`) points at, or None (remote, outside the module, missing, unreadable)."""
    from cogtui.core.assist.checked import module_root

    address, _hash, fragment = ref.partition("#")
    parts = pointer_parts(unquote(fragment))
    if parts is None or "://" in address or address.startswith("//"):
        return None
    target_doc = doc
    if address:
        root = root or module_root(doc.path)
        path = (doc.path.parent / unquote(address)).absolute()
        if root is None or not path.is_relative_to(root.absolute()):
            return None
        try:
            target_doc = parse(path, read_text(path, root.absolute()))
        except (ParseFailure, OSError, ValueError):
            return None
    if target_doc.source is None:
        return None
    found, value, pointer = _walk(target_doc.source.value, parts)
    if not found:
        return None
    return RefTarget(target_doc.path, fragment, pointer, value, target_doc.span(pointer))


def local_targets(value: Any, limit: int = 500) -> list[str]:
    """The `#/...` pointers of every object in a schema document (breadth first, at most `limit`): what a `$ref`
    inside it may name."""
    out: list[str] = []
    queue: list[tuple[str, Any]] = [("", value)]
    while queue and len(out) < limit:
        prefix, node = queue.pop(0)
        if isinstance(node, dict):
            if prefix:
                out.append(f"#{prefix}")
            for key, child in node.items():
                if isinstance(child, (dict, list)):
                    escaped = str(key).replace("~", "~0").replace("/", "~1")
                    queue.append((f"{prefix}/{escaped}", child))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                if isinstance(child, (dict, list)):
                    queue.append((f"{prefix}/{index}", child))
    return out
