"""Schema and legacy rules of `cogn validate`; the v2.2 rules are in contract_v22.py, goldens in golden_checks.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cogtui.core.files.json_pointer import array_at, resolve_pointer
from cogtui.core.files.sourcemap import ParseFailure, load_file
from cogtui.core.module.model import ModuleFormat
from cogtui.core.rules.contract_base import PathT
from cogtui.core.rules.contract_v22 import ENVELOPE_WORDS, V22Checks
from cogtui.core.rules.golden_checks import GoldenChecks
from cogtui.core.rules.schema_checks import check_schema_documents

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


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


class ContractRules(V22Checks, GoldenChecks):
    # ------------------------------------------------------------ run

    def run(self) -> None:
        schema_ok = self.check_schemas()
        if self.m.format.has_envelope_contract:
            self.check_v22()
        elif self.v22:
            self.add_at(
                "V000",
                f"the module is in {self.m.format.value} format, not v2.2",
                self.m.files.manifest if self.m.files else None,
                (),
                hint=f"Run `cogn migrate {self.m.name}` to upgrade it.",
            )
        if self.m.format in (ModuleFormat.V1, ModuleFormat.V0):
            self.check_legacy_output()
        if schema_ok:
            self.check_goldens()

    # ------------------------------------------------------------ schemas

    def check_schemas(self) -> bool:
        s = self.m.schemas
        ok = True
        files = self.m.files
        has_file = bool(files and (files.schema or files.input_schema or files.output_schema))
        has_file = has_file and not self.schema_file_unusable
        if s.input is None and files and has_file:
            self.add_at(
                "S004",
                "there is no input schema",
                files.schema or files.input_schema,
                hint='Add an "input" object schema to schema.json.',
            )
        if s.data is None and files and has_file:
            self.add_at(
                "S005",
                "there is no data (output) schema",
                files.schema or files.output_schema,
                hint='Add a "data" object schema (v2.2) or "output" (v1).',
            )
        if "data" in s.root and "output" in s.root:
            self.add_at(
                "S006",
                "schema.json has both data and output; output is ignored",
                files.schema if files else None,
                ("output",),
            )
        ok = check_schema_documents(self) and ok
        return self.check_refs() and ok

    def check_refs(self) -> bool:
        ok = True
        docs: dict[Path, Any] = {}
        for path, _ in self.m.schemas.locations.values():
            src = self.m.sources.get(path)
            if src is not None and path not in docs:
                docs[path] = src.value
        for path, doc in docs.items():
            own_id = doc.get("$id") if isinstance(doc, dict) else None
            for where, ref in walk_refs(doc):
                target, _, fragment = ref.partition("#")
                if own_id and target == str(own_id).split("#")[0]:
                    target = ""
                if _SCHEME.match(target) and not target.startswith("file:"):
                    ok = False
                    self.add_at(
                        "S007",
                        f"$ref {ref!r} is remote; remote references are never fetched",
                        path,
                        where,
                        hint="Copy the definition into $defs and refer to it as #/$defs/NAME.",
                    )
                    continue
                if target:
                    try:
                        file = (path.parent / target).resolve()
                    except (
                        OSError,
                        ValueError,
                        RuntimeError,
                    ):  # RuntimeError: a symlink loop  # e.g. a NUL byte: no file can have that name
                        ok = False
                        self.add_at("S002", f"$ref {ref!r} is not a usable file name", path, where)
                        continue
                    try:
                        file.relative_to(self.m.path.resolve())
                    except ValueError:
                        ok = False
                        self.add_at("S007", f"$ref {ref!r} points outside the module", path, where)
                        continue
                    try:
                        target_doc = load_file(file, "json", self.m.path).value  # P002, P008 as for schema.json
                    except ParseFailure as refused:
                        ok = False
                        self.add_at("S002", f"$ref {ref!r}: {refused.diagnostic.message}", path, where)
                        continue
                    except (OSError, ValueError, RecursionError):
                        ok = False
                        self.add_at("S002", f"$ref {ref!r}: {target} cannot be read as JSON", path, where)
                        continue
                else:
                    target_doc = doc
                found, _ = resolve_pointer(target_doc, fragment)
                chain = ref_cycle(target_doc, fragment) if found and not target else None
                if chain:
                    ok = False
                    self.add_at(
                        "S002",
                        f"$ref {ref!r} never reaches a schema: {' → '.join(chain)}",
                        path,
                        where,
                        hint="Each $ref in the loop only points at the next: give one of them the schema itself.",
                    )
                elif not found:
                    ok = False
                    self.add_at(
                        "S002",
                        f"$ref {ref!r} does not resolve",
                        path,
                        where,
                        hint="Root $defs are reachable from every part as #/$defs/NAME.",
                    )
        return ok

    # ------------------------------------------------------------ v1 / v0

    def check_legacy_output(self) -> None:
        s = self.m.schemas
        if s.data is None:
            return
        required = array_at(s.data, "required")
        for code, name in (("L001", "confidence"), ("L002", "rationale")):
            if name not in required:
                self.add_part(
                    code,
                    f"the output schema does not require {name}",
                    "data",
                    ("required",) if "required" in s.data else (),
                    hint=f"v1 outputs should carry {name}; add it to output.required.",
                )


# Keywords that constrain nothing: a schema holding only these besides `$ref` is the `$ref`'s schema.
_ANNOTATIONS = frozenset({"$ref", "$comment", "title", "description", "default", "examples", "deprecated"})


def ref_cycle(doc: Any, fragment: str, limit: int = 64) -> list[str] | None:
    """The loop of local `$ref`s starting at `#fragment`, when each schema on it is nothing but a `$ref` to the
    next (so no schema is ever reached and every value validates); None when the chain reaches a schema."""
    seen: list[str] = []
    while len(seen) < limit:
        pointer = "#" + fragment
        if pointer in seen:
            return [*seen, pointer]
        seen.append(pointer)
        found, node = resolve_pointer(doc, fragment)
        if not found or not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            return None
        if not set(node) <= _ANNOTATIONS or not node["$ref"].startswith("#"):
            return None
        fragment = node["$ref"][1:]
    return None


__all__ = ["ENVELOPE_WORDS", "ContractRules", "ref_cycle", "walk_refs"]
