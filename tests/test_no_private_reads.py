"""Tests observe behaviour through public API: no test reads a `_private` attribute of an object it did not define.

An attribute `_name` read in a test file (`thing._name`) is allowed only when
the file itself defines `_name` (a helper class's own attribute or method, a
module-level helper): then it is the test's own code, not the code under
test. Dunder names (`__class__`) are public protocol and allowed, and so are
the standard library's documented functions whose names begin with `_`
(`os._exit`).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
DOCUMENTED = {("os", "_exit")}  # (module, name): public API despite the underscore


def defined_names(tree: ast.AST) -> set[str]:
    """Every name the file defines: functions, classes, assigned names and attributes (`self._x = ...`)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def private_reads(path: Path) -> list[str]:
    """`file:line: ._name` for each read of a single-underscore attribute the file does not define itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = defined_names(tree)
    return [
        f"{path.name}:{node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Load)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and node.attr not in own
        and not (isinstance(node.value, ast.Name) and (node.value.id, node.attr) in DOCUMENTED)
    ]


def test_no_test_reads_a_private_attribute_of_code_under_test() -> None:
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 50
    found = [hit for path in files for hit in private_reads(path)]
    assert not found, "private attributes read by tests:\n" + "\n".join(found)


def test_the_scan_catches_a_private_read_and_spares_the_files_own_helpers(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class Helper:\n    def __init__(self):\n        self._mine = 1\n"
        "def test(app, helper):\n    helper._mine\n    app._notifications\n    app.__class__\n",
        encoding="utf-8",
    )
    hits = [h.rsplit(": ", 1)[1] for h in private_reads(sample)]
    assert hits == ["._notifications"]
