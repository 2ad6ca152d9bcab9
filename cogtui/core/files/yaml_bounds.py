"""Bounds on YAML (docs/security.md): document size, and alias expansion checked on the node graph.

A "billion laughs" bomb composes to a small graph of shared nodes; whatever
walks the constructed value (validation, JSON, migration) would pay the
expanded size, so it is refused before anything is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import diag
from cogtui.core.files.confined import ParseFailure

MAX_YAML_CHARS = 1024 * 1024
MAX_ALIAS_EXPANSION = 100_000


def check_expansion(top: Any, path: Path, line_offset: int) -> None:
    """P007 when aliases expand the node graph by more than MAX_ALIAS_EXPANSION nodes, or into a cycle.

    Linear in the distinct nodes: each node's expanded size is computed once (iteratively, no recursion).
    """
    size: dict[int, int] = {}
    distinct = 0
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(top, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            total = 1 + sum(size[id(c)] for c in _children(node))
            size[key] = total
            if total - distinct > MAX_ALIAS_EXPANSION:
                raise _bomb(
                    node,
                    path,
                    line_offset,
                    f"aliases expand it to {total:,} nodes or more (at most {MAX_ALIAS_EXPANSION:,})",
                )
            continue
        if key in size:
            continue
        if key in on_path:
            raise _bomb(node, path, line_offset, "an alias refers to itself (a recursive structure)")
        on_path.add(key)
        distinct += 1
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)
    return None


def _children(node: Any) -> list[Any]:
    import yaml  # already imported by whoever composed the node

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _bomb(node: Any, path: Path, line_offset: int, why: str) -> ParseFailure:
    mark = node.start_mark
    return ParseFailure(
        diag(
            "P007",
            f"YAML document refused: {why}",
            path,
            mark.line + 1 + line_offset,
            mark.column + 1,
            hint="Remove the anchors (&) and aliases (*) that multiply this structure.",
        )
    )
