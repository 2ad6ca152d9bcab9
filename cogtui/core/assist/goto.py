"""Go to definition: a `$ref` to its target, an `@call:name` to that module's manifest, a `tests:` entry of
module.yaml to its files, a golden's field to the schema property that defines it."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

from cogtui.core.assist.documents import Doc, Point, Pointer, Span, parse, value_at
from cogtui.core.assist.hover import call_at, module_near
from cogtui.core.assist.refs import ref_target
from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.module_folder import MANIFEST_V0, MANIFEST_V1, MANIFEST_V2
from cogtui.core.files.sourcemap import read_text
from cogtui.core.records import record

TOP: Span = ((0, 0), (0, 0))


@record
class Target:
    path: Path
    span: Span


def definition(doc: Doc, point: Point, root: Path | None, paths: list[str] | None = None) -> list[Target]:
    if doc.role == "prompt" or (doc.role == "frontmatter" and doc.at(point) == ((), False)):
        return _call(doc, point, paths or [])
    pointer, _on_key = doc.at(point)
    if not pointer or doc.source is None:
        return []
    if doc.role in ("schema", "json") and pointer[-1] == "$ref":
        ref = value_at(doc.source.value, pointer)
        target = ref_target(doc, ref, root) if isinstance(ref, str) else None
        return [Target(target.path, target.span or TOP)] if target is not None else []
    if doc.role in ("manifest", "frontmatter") and pointer[0] == "tests" and root is not None:
        return _test_files(doc, pointer, root)
    if doc.role == "json" and root is not None and doc.path.parent.name in ("tests", "examples"):
        return _schema_property(doc, pointer, root)
    return []


def _call(doc: Doc, point: Point, paths: list[str]) -> list[Target]:
    found = call_at(doc.line(point[0]), point[1])
    if found is None:
        return []
    folder = module_near(found[0], doc.path.parent, paths)
    if folder is None:
        return []
    for name in (MANIFEST_V2, MANIFEST_V1, MANIFEST_V0):
        if (folder / name).is_file():
            return [Target(folder / name, TOP)]
    return []


def _test_files(doc: Doc, pointer: Pointer, root: Path) -> list[Target]:
    """The files a `tests:` entry names: `a -> b` or a mapping of input and expected."""
    entry = value_at(doc.source.value if doc.source else None, pointer[:2])
    names: list[Any] = []
    if isinstance(entry, str):
        names = [part.strip() for part in entry.split("->")]
    elif isinstance(entry, dict):
        names = [entry.get("input"), entry.get("expected")]
    out = []
    for name in names:
        if isinstance(name, str) and name:
            path = (root / name).absolute()
            if path.is_relative_to(root.absolute()) and path.is_file():
                out.append(Target(path, TOP))
    return out


def schema_pointer(pointer: Pointer, expected: bool) -> list[Pointer]:
    """Where a golden's field is defined in schema.json: `data.a.b` of an expected file is
    `data.properties.a.properties.b` (or under `output`); a field of an input file is under `input`; a list
    index walks into `items`."""
    heads: list[Hashable]
    if expected:
        if not pointer or pointer[0] not in ("data", "meta", "error", "partial_data"):
            return []
        first: Hashable = "data" if pointer[0] == "partial_data" else pointer[0]
        heads = [first, "output"] if first == "data" else [first]
        rest = pointer[1:]
    else:
        heads, rest = ["input"], pointer
    out = []
    for head in heads:
        walked: list[Hashable] = [head]
        for step in rest:
            walked += ["items"] if isinstance(step, int) else ["properties", step]
        out.append(tuple(walked))
    return out


def _schema_property(doc: Doc, pointer: Pointer, root: Path) -> list[Target]:
    schema_path = root / "schema.json"
    try:
        schema = parse(schema_path, read_text(schema_path, root.absolute()))
    except (ParseFailure, OSError, ValueError):
        return []
    expected = ".expected." in doc.path.name or doc.path.name.startswith("output")
    for candidate in schema_pointer(pointer, expected):
        for length in range(len(candidate), 0, -1):  # the deepest part of the path the schema has
            span = schema.span(candidate[:length], key=True) or schema.span(candidate[:length])
            if span is not None and length > 1:
                return [Target(schema_path.absolute(), span)]
    return []
