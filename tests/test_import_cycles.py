"""No module imports itself back, at any distance: every import in cogtui.core, cogtui.cli and cogtui.tui points one way.

import-linter's layers contract forbids upward imports between layers; this
catches cycles inside a layer too (the loader, goldens and schemas once shared
a private loader class through one; screens once imported the app to call
it, and now reach it through the `Workbench` protocol and `Navigate`). Imports inside functions and under
TYPE_CHECKING count: a cycle is a cycle to a reader even when Python copes.
"""

from __future__ import annotations

import grimp
import pytest

ACYCLIC = ("cogtui.core", "cogtui.cli", "cogtui.tui")


def cycles_through(graph: grimp.ImportGraph, package: str) -> list[tuple[str, ...]]:
    found: dict[frozenset[str], tuple[str, ...]] = {}
    for importer in sorted(m for m in graph.modules if m == package or m.startswith(package + ".")):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                found.setdefault(frozenset(back), (importer, *back))
    return list(found.values())


@pytest.mark.parametrize("package", ACYCLIC)
def test_no_import_cycles(package: str) -> None:
    graph = grimp.build_graph("cogtui", cache_dir=None)
    cycles = cycles_through(graph, package)
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)
