"""Where a module's `$ref`s lead, judged once for `validate` and for the run (FMT-3).

Every schema document of the module is walked (schema.json, the files `io`
points at, and every file inside the module their `$ref`s reach), and each
`$ref` is resolved the way the engine resolves it at run time: relative to
the file it is in, `%`-escapes decoded, a `file://` URI as the absolute path it
names. What it finds:

- S007: a remote reference, or one that leaves the module folder (a `file://`
  URI included). No file outside the module is ever read.
- S002: a reference that does not resolve, and a loop of `$ref`s that never
  reaches a schema (A → B → A, across files too), which lets every value through.
- S001: a schema document nested more than NESTING_SHOWN levels deep, which
  no engine compiles, located where the nesting passes that depth.

All but an unresolvable reference are `blockers`: the contract cannot be
known, so the module does not run (contract_status.py, E4000 naming the file
and position). An unresolvable reference is kept in `unresolved` by where it
is: one the output parts reach blocks the run too (output_refs.py, RUN-1), one
only the input reaches keeps E1006 (RUN-1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from cogtui.core.diagnostics import Diagnostic, diag
from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.json_pointer import resolve_pointer
from cogtui.core.files.nesting import NESTING_SHOWN, TOO_DEEP_HINT, too_deep_message, too_deep_position
from cogtui.core.files.sourcemap import SourceFile, parse_json, read_text
from cogtui.core.module.memo import memo
from cogtui.core.module.model import Module
from cogtui.core.module.schemas import local_file_of
from cogtui.core.records import field, record

PathT = tuple[str | int, ...]
Node = tuple[Path, str]  # a schema file and a JSON pointer (without '#') into it

__all__ = ["RefReport", "ref_cycle", "ref_problems", "ref_target", "walk_refs"]

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# Keywords that constrain nothing: a schema holding only these besides `$ref` is the `$ref`'s schema.
_ANNOTATIONS = frozenset({"$ref", "$comment", "title", "description", "default", "examples", "deprecated"})
_LOOP_LIMIT = 64


@record
class RefReport:
    """A module's `$ref` and nesting problems."""

    diagnostics: list[Diagnostic]  # everything found, in document order
    blockers: list[Diagnostic]  # those that keep the module from running
    # The $refs that do not resolve, by (their file, resolved; the path of the `$ref` key in it): (ref, diagnostic).
    unresolved: dict[tuple[Path, PathT], tuple[str, Diagnostic]] = field(default_factory=dict)
    documents: dict[Path, Any] = field(default_factory=dict)  # every schema document read, by resolved path


def ref_problems(module: Module) -> RefReport:
    """The module's `$ref` and nesting problems, computed once per loaded module."""
    return memo(module, "ref_problems", lambda: _RefWalk(module).run())


def walk_refs(node: Any, path: PathT = ()) -> Iterator[tuple[PathT, str]]:
    # Only containers are walked into (a scalar holds no $ref): a call per leaf was most of the walk's time.
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield (*path, "$ref"), ref
        for k, v in node.items():
            if k != "$ref" and isinstance(v, (dict, list)):
                yield from walk_refs(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, (dict, list)):
                yield from walk_refs(v, (*path, i))


def nested_deeper_than(value: Any, limit: int = NESTING_SHOWN) -> bool:
    """Whether `value` nests containers more than `limit` levels deep (the outermost counts as one)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


@record
class Target:
    """Where a `$ref` leads: `file` (None for a remote one), the pointer, and whether it leaves the module."""

    file: Path | None
    fragment: str
    outside: bool = False


def ref_target(ref: str, file: Path, own_id: Any, root: Path) -> Target:
    """Resolve `ref` written in `file` (whose `$id` is `own_id`) as the engine does; raises ValueError for a
    name no file can have. `root` is the module folder, resolved."""
    target, _, fragment = ref.partition("#")
    if not target.partition("?")[0] or (isinstance(own_id, str) and target == own_id.split("#")[0]):
        return Target(file, fragment)  # the same document (a bare `?query` keeps the path, as URIs resolve)
    if _SCHEME.match(target):
        local = local_file_of(target)
        if local is None:
            return Target(None, fragment, outside=True)
        name = str(local)
    else:
        name = unquote(target.partition("?")[0])
    try:
        resolved = (file.parent / name).resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        raise ValueError(str(exc)) from None
    return Target(resolved, fragment, outside=not resolved.is_relative_to(root))


def ref_cycle(doc: Any, fragment: str, limit: int = _LOOP_LIMIT) -> list[str] | None:
    """The loop of local `$ref`s starting at `#fragment`, when each schema on it is nothing but a `$ref` to the
    next (so no schema is ever reached and every value validates); None when the chain reaches a schema."""
    here = Path("/schema.json")
    chain = follow_bare_refs((here, fragment), lambda p: doc if p == here else None, Path("/"), limit)
    return ["#" + frag for _, frag in chain] if chain else None


def follow_bare_refs(
    start: Node, document: Callable[[Path], Any], root: Path, limit: int = _LOOP_LIMIT
) -> list[Node] | None:
    """The loop of `$ref`s from `start`, each schema on it nothing but a `$ref` to the next, across files that
    `document(path)` gives (None: not readable); None when the chain reaches a schema or nothing."""
    seen: list[Node] = []
    node_at = start
    while len(seen) < limit:
        if node_at in seen:
            return [*seen, node_at]
        seen.append(node_at)
        file, fragment = node_at
        doc = document(file)
        found, node = resolve_pointer(doc, fragment) if doc is not None else (False, None)
        if not found or not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            return None
        if not set(node) <= _ANNOTATIONS:
            return None
        own_id = doc.get("$id") if isinstance(doc, dict) else None
        try:
            target = ref_target(node["$ref"], file, own_id, root)
        except ValueError:
            return None
        if target.file is None or target.outside:
            return None
        node_at = (target.file, target.fragment)
    return None


class _RefWalk:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.root = module.path.resolve()
        self.out: list[Diagnostic] = []
        self.blockers: list[Diagnostic] = []
        self.sources: dict[Path, SourceFile | str] = {}  # by resolved path; a str: why it cannot be read as JSON
        self.walked: set[Path] = set()  # the documents whose $refs are (to be) checked
        self.unresolved: dict[tuple[Path, PathT], tuple[str, Diagnostic]] = {}

    def run(self) -> RefReport:
        queue: list[Path] = []
        for path in dict.fromkeys(path for path, _ in self.module.schemas.locations.values()):  # each file once
            src = self.module.sources.get(path)
            if src is None:
                continue
            real = path.resolve()
            if real not in self.walked:
                self.sources[real] = src
                self.walked.add(real)
                queue.append(real)
        while queue:
            self.check_document(queue.pop(0), queue)
        documents = {path: src.value for path, src in self.sources.items() if isinstance(src, SourceFile)}
        return RefReport(self.out, self.blockers, self.unresolved, documents)

    def source(self, path: Path) -> SourceFile | str:
        if path not in self.sources:
            try:
                self.sources[path] = parse_json(read_text(path, self.module.path), path)
            except ParseFailure as refused:  # missing, a FIFO, a symlink out, bad JSON: in its reader's words
                self.sources[path] = refused.diagnostic.message
            except (OSError, ValueError):
                self.sources[path] = f"{path.name} cannot be read as JSON"
        return self.sources[path]

    def document(self, path: Path) -> Any:
        src = self.source(path)
        return src.value if isinstance(src, SourceFile) else None

    def add(self, code: str, message: str, src: SourceFile, where: PathT, hint: str = "", block: bool = True) -> None:
        line, col = src.locate(where)
        found = diag(code, message, src.path, line, col, hint)
        self.out.append(found)
        if block:
            self.blockers.append(found)

    def unresolvable(self, src: SourceFile, path: Path, where: PathT, ref: str, message: str, hint: str = "") -> None:
        """A `$ref` that does not resolve: said, kept by where it is, and not (yet) a blocker."""
        self.add("S002", message, src, where, hint, block=False)
        self.unresolved[(path, where)] = (ref, self.out[-1])

    def check_document(self, path: Path, queue: list[Path]) -> None:
        src = self.sources[path]
        if not isinstance(src, SourceFile):
            return
        if nested_deeper_than(src.value):
            line, col = too_deep_position(src.text, yaml=False)
            found = diag("S001", f"{src.path.name}: {too_deep_message('JSON')}", src.path, line, col, TOO_DEEP_HINT)
            self.out.append(found)
            self.blockers.append(found)
            return  # its $refs are for after the nesting is mended
        doc = src.value
        own_id = doc.get("$id") if isinstance(doc, dict) else None
        for where, ref in walk_refs(doc):
            self.check_ref(src, path, own_id, where, ref, queue)

    def check_ref(self, src: SourceFile, path: Path, own_id: Any, where: PathT, ref: str, queue: list[Path]) -> None:
        try:
            target = ref_target(ref, path, own_id, self.root)
        except ValueError:
            self.unresolvable(src, path, where, ref, f"$ref {ref!r} is not a usable file name")
            return
        if target.file is None:
            self.add(
                "S007",
                f"$ref {ref!r} is remote; remote references are never fetched",
                src,
                where,
                hint="Copy the definition into $defs and refer to it as #/$defs/NAME.",
            )
            return
        if target.outside:
            absolute = ref.startswith("/") or ref.lower().startswith("file:")
            hint = "Refer to a file inside the module by a path relative to this file, e.g. defs.json#/NAME."
            self.add("S007", f"$ref {ref!r} points outside the module", src, where, hint=hint if absolute else "")
            return
        target_src = self.source(target.file)
        if target.file not in self.walked and isinstance(target_src, SourceFile):
            self.walked.add(target.file)
            queue.append(target.file)  # its own $refs and nesting are checked too
        if not isinstance(target_src, SourceFile):
            self.unresolvable(src, path, where, ref, f"$ref {ref!r}: {target_src}")
            return
        found, _ = resolve_pointer(target_src.value, target.fragment)
        chain = follow_bare_refs((target.file, target.fragment), self.document, self.root) if found else None
        if chain:
            shown = " → ".join(self.shown(node, path, all(file == path for file, _ in chain)) for node in chain)
            self.add(
                "S002",
                f"$ref {ref!r} never reaches a schema: {shown}",
                src,
                where,
                hint="Each $ref in the loop only points at the next: give one of them the schema itself.",
            )
        elif not found:
            hint = "Root $defs are reachable from every part as #/$defs/NAME."
            self.unresolvable(src, path, where, ref, f"$ref {ref!r} does not resolve", hint)

    def shown(self, node: Node, here: Path, local: bool) -> str:
        """`#/pointer` on a loop inside one file; `file#/pointer` (relative to the module) on one across files."""
        file, fragment = node
        if local:
            return "#" + fragment
        return file.relative_to(self.root).as_posix() + ("#" + fragment if fragment else "")
