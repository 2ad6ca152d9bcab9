"""Schema and legacy rules of `cogn validate`; the v2.2 rules are in contract_v22.py, goldens in golden_checks.py."""

from __future__ import annotations

from cogtui.core.files.json_pointer import array_at
from cogtui.core.module.model import ModuleFormat
from cogtui.core.rules.contract_v22 import ENVELOPE_WORDS, V22Checks
from cogtui.core.rules.golden_checks import GoldenChecks
from cogtui.core.rules.ref_checks import ref_cycle, ref_problems, walk_refs
from cogtui.core.rules.schema_checks import check_schema_documents


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
        """S001 (nested too deeply), S002, S007 for the module's `$ref`s (ref_checks.py, FMT-3)."""
        found = ref_problems(self.m).diagnostics
        self.out.extend(found)
        return not found

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


__all__ = ["ENVELOPE_WORDS", "ContractRules", "ref_cycle", "walk_refs"]
