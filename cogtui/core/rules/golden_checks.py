"""Golden tests and examples against the module's schemas (`cogn validate`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogtui.core.module.model import UNPARSED
from cogtui.core.module.schemas import RefError, schemas_for
from cogtui.core.rules.contract_base import RuleBase
from cogtui.core.rules.envelope_rules import check_envelope


class GoldenChecks(RuleBase):
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
                            self.add_at(code, f"example output: {err.message}", e.output_path, tuple(err.absolute_path))
        except RefError as exc:
            self.add_at("S002", str(exc), self.m.files.schema if self.m.files else None)

    def check_input_doc(self, sch: Any, path: Path, value: Any) -> None:
        if value is UNPARSED or self.m.schemas.input is None:
            return
        for err in sch.iter_errors("input", value):
            self.add_at("T001", f"input does not match the input schema: {err.message}", path, tuple(err.absolute_path))

    def check_expected(self, path: Path, value: Any) -> None:
        for v in check_envelope(value, self.m):
            code = "T003" if v.rule.startswith("schema.data") else "T002"
            self.add_at(code, f"expected envelope: {v.message}", path, v.path)
