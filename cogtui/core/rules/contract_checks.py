"""Schema, v2.2-contract, golden-test and legacy rules of `cogn validate`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Diagnostic, Severity, diag
from cogtui.core.files.json_pointer import array_at, deref, resolve_pointer
from cogtui.core.files.module_folder import exists
from cogtui.core.files.sourcemap import SourceFile
from cogtui.core.module.model import UNPARSED, Module, ModuleFormat
from cogtui.core.module.schemas import RefError, schemas_for
from cogtui.core.module.tiers import EXPLAIN_MAX
from cogtui.core.rules.envelope_rules import check_envelope
from cogtui.core.rules.schema_checks import check_schema_documents

PathT = tuple[str | int, ...]
EXPECTED_STRICTNESS = {"exec": "high", "decision": "medium", "exploration": "low"}
ENVELOPE_WORDS = ("meta", "confidence", "risk", "explain", "rationale")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def walk_refs(node: Any, path: PathT = ()) -> Iterator[tuple[PathT, str]]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield (*path, "$ref"), ref
        for k, v in node.items():
            if k != "$ref":
                yield from walk_refs(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk_refs(v, (*path, i))


class ContractRules:
    def __init__(self, module: Module, out: list[Diagnostic], v22: bool) -> None:
        self.m = module
        self.out = out
        self.v22 = v22

    # ------------------------------------------------------------ locating

    def add_at(
        self,
        code: str,
        message: str,
        file: Path | None,
        parts: PathT = (),
        hint: str = "",
        severity: Severity | None = None,
    ) -> None:
        src = self.m.sources.get(file) if file is not None else None
        line: int | None
        col: int | None
        if src is not None:
            line, col = src.locate(parts)
        elif file is not None and exists(file):
            line, col = 1, 1
        else:
            line = col = None
        self.out.append(diag(code, message, file, line, col, hint, severity))

    def add_part(
        self, code: str, message: str, part: str, inner: PathT = (), hint: str = "", severity: Severity | None = None
    ) -> None:
        loc = self.m.schemas.locations.get(part)
        file = loc[0] if loc else (self.m.files.schema if self.m.files else None)
        base = loc[1] if loc else ()
        self.add_at(code, message, file, (*base, *inner), hint, severity)

    @property
    def v_severity(self) -> Severity | None:
        """--v22 makes the contract warnings errors."""
        return Severity.ERROR if self.v22 else None

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
                    except (OSError, ValueError):  # e.g. a NUL byte: no file can have that name
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
                        target_doc = json.loads(file.read_text(encoding="utf-8"))
                    except (OSError, ValueError):
                        ok = False
                        self.add_at("S002", f"$ref {ref!r}: {target} cannot be read as JSON", path, where)
                        continue
                else:
                    target_doc = doc
                found, _ = resolve_pointer(target_doc, fragment)
                if not found:
                    ok = False
                    self.add_at(
                        "S002",
                        f"$ref {ref!r} does not resolve",
                        path,
                        where,
                        hint="Root $defs are reachable from every part as #/$defs/NAME.",
                    )
        return ok

    # ------------------------------------------------------------ v2.2

    def check_v22(self) -> None:
        s = self.m.schemas
        schema_file = self.m.files.schema if self.m.files else None
        if s.meta is None:
            self.add_at(
                "V001",
                "schema.json has no meta schema",
                schema_file,
                hint='Add "meta" requiring confidence, risk and explain (SPEC-v2.2 §3.2).',
            )
        else:
            meta = deref(s.meta, s.root) or {}
            required = array_at(meta, "required")
            missing = [f for f in ("confidence", "risk", "explain") if f not in required]
            if missing:
                self.add_part(
                    "V002",
                    f"the meta schema does not require {', '.join(missing)}",
                    "meta",
                    ("required",) if "required" in meta else (),
                )
            explain = (
                deref(meta["properties"].get("explain"), s.root) if isinstance(meta.get("properties"), dict) else None
            )
            max_len = explain.get("maxLength") if isinstance(explain, dict) else None
            if not isinstance(max_len, int) or max_len > EXPLAIN_MAX:
                where = ("properties", "explain") if isinstance(explain, dict) else ()
                self.add_part("V003", f"meta.explain needs maxLength <= {EXPLAIN_MAX} (found {max_len})", "meta", where)
        if s.data is not None:
            data = deref(s.data, s.root) or {}
            required = array_at(data, "required")
            if "rationale" not in required:
                self.add_part(
                    "V004",
                    "the data schema does not require rationale",
                    "data",
                    ("required",) if "required" in data else (),
                )
        self.check_prompt()
        self.check_overflow_schema()
        self.check_tier_coherence()

    def check_prompt(self) -> None:
        prompt_file = self.m.files.prompt if self.m.files else None
        if prompt_file is None:
            return
        text = self.m.prompt.lower()
        missing = [w for w in ENVELOPE_WORDS if w not in text]
        if missing:
            self.add_at(
                "V005",
                f"prompt.md does not describe the envelope (no mention of {', '.join(missing)})",
                prompt_file,
                hint="Add a '## Response Format (Envelope v2.2)' section; `cogn migrate` can add it.",
                severity=self.v_severity,
            )

    def insights_schema(self) -> tuple[Any, PathT] | None:
        s = self.m.schemas
        data = deref(s.data, s.root)
        props = data.get("properties") if isinstance(data, dict) else None
        ext = deref(props.get("extensions"), s.root) if isinstance(props, dict) else None
        ext_props = ext.get("properties") if isinstance(ext, dict) else None
        ins = deref(ext_props.get("insights"), s.root) if isinstance(ext_props, dict) else None
        if not isinstance(ins, dict):
            return None
        return ins, ("properties", "extensions")

    def check_overflow_schema(self) -> None:
        c = self.m.contract
        found = self.insights_schema()
        sev = self.v_severity
        if found is None:
            if c.overflow_enabled.value and self.m.schemas.data is not None:
                self.add_part(
                    "V009",
                    "overflow is enabled but the data schema has no extensions.insights",
                    "data",
                    hint='Add "extensions": {"$ref": "#/$defs/extensions"} to data.properties.',
                    severity=sev,
                )
            return
        ins, where = found
        max_items = ins.get("maxItems")
        if c.overflow_enabled.value and max_items != c.overflow_max_items.value:
            self.add_part(
                "V006",
                f"insights maxItems is {max_items} but overflow.max_items is {c.overflow_max_items.value}",
                "data",
                where,
                hint="Make the schema and module.yaml agree.",
                severity=sev,
            )
        items = deref(ins.get("items"), self.m.schemas.root)
        required = items.get("required", []) if isinstance(items, dict) else []
        requires_mapping = isinstance(required, list) and "suggested_mapping" in required
        if c.overflow_enabled.value and requires_mapping != c.overflow_require_suggested_mapping.value:
            self.add_part(
                "V007",
                f"overflow.require_suggested_mapping is {c.overflow_require_suggested_mapping.value} "
                f"but the insights schema {'requires' if requires_mapping else 'does not require'} it",
                "data",
                where,
                severity=sev,
            )

    def check_tier_coherence(self) -> None:
        c = self.m.contract
        man_file = self.m.files.manifest if self.m.files else None
        sev = self.v_severity
        tier = c.tier.value
        if c.schema_strictness.explicit and c.schema_strictness.value != EXPECTED_STRICTNESS[tier]:
            self.add_at(
                "V008",
                f"tier {tier} expects schema_strictness {EXPECTED_STRICTNESS[tier]}, not {c.schema_strictness.value}",
                man_file,
                ("schema_strictness",),
                severity=sev,
            )
        if tier == "exec" and c.overflow_enabled.explicit and c.overflow_enabled.value:
            self.add_at(
                "V008", "the exec tier should keep overflow disabled", man_file, ("overflow", "enabled"), severity=sev
            )
        if tier == "exec" and c.enum_strategy.explicit and c.enum_strategy.value != "strict":
            self.add_at("V008", "the exec tier should use strict enums", man_file, ("enums", "strategy"), severity=sev)
        if c.enum_strategy.value == "strict" and self.m.schemas.data is not None:
            for path in _extensible_enum_paths(self.m.schemas.data):
                self.add_part(
                    "V010",
                    "enums are strict but the schema allows {custom, reason} values here",
                    "data",
                    path,
                    hint="Remove the custom branch, or set enums.strategy: extensible.",
                    severity=sev,
                )
                break

    # ------------------------------------------------------------ goldens

    def check_goldens(self) -> None:
        sch = schemas_for(self.m)
        if not self.m.tests and not self.m.examples:
            self.add_at(
                "T007",
                "the module has no golden tests or examples",
                self.m.files.manifest if self.m.files else None,
                hint="Add tests/case1.input.json and tests/case1.expected.json.",
            )
        try:
            for t in self.m.tests:
                self.check_input_doc(sch, t.input_path, t.input)
                if t.expected_path is not None and t.expected is not UNPARSED:
                    self.check_expected(t.expected_path, t.expected)
            for e in self.m.examples:
                if e.input_path is not None:
                    self.check_input_doc(sch, e.input_path, e.input)
                if e.output_path is not None and e.output is not UNPARSED:
                    if isinstance(e.output, dict) and "ok" in e.output:
                        self.check_expected(e.output_path, e.output)
                    else:
                        for err in sch.iter_errors("data", e.output):
                            code = "L003" if not self.m.format.is_v2 else "T003"
                            self.add_at(code, f"example output: {err.message}", e.output_path, err.path)
        except RefError as exc:
            self.add_at("S002", str(exc), self.m.files.schema if self.m.files else None)

    def check_input_doc(self, sch: Any, path: Path, value: Any) -> None:
        if value is UNPARSED or self.m.schemas.input is None:
            return
        for err in sch.iter_errors("input", value):
            self.add_at("T001", f"input does not match the input schema: {err.message}", path, err.path)

    def check_expected(self, path: Path, value: Any) -> None:
        for v in check_envelope(value, self.m):
            code = "T003" if v.rule.startswith("schema.data") else "T002"
            self.add_at(code, f"expected envelope: {v.message}", path, v.path)

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


def _extensible_enum_paths(node: Any, path: PathT = ()) -> Iterator[PathT]:
    if isinstance(node, dict):
        for key in ("oneOf", "anyOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                for i, b in enumerate(branches):
                    if isinstance(b, dict) and isinstance(b.get("properties"), dict) and "custom" in b["properties"]:
                        yield (*path, key, i)
        for k, v in node.items():
            yield from _extensible_enum_paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _extensible_enum_paths(v, (*path, i))


__all__ = ["ContractRules", "SourceFile", "walk_refs"]
