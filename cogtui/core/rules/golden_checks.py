"""Golden tests and examples against the module's schemas (`cogn validate`).

An expected output that does not satisfy the module's contract is the author's
stale test data, not a broken module: in v2.x modules it is a warning, an error
only with `--strict` (D43). Messages name the file and the JSON path and show a
short excerpt of the value, never a dump of the object.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Severity
from cogtui.core.module.model import UNPARSED
from cogtui.core.module.schemas import RefError, schemas_for
from cogtui.core.rules.contract_base import PathT, RuleBase
from cogtui.core.rules.envelope_rules import check_envelope, dotted
from cogtui.core.rules.golden_contract import is_contract, schema_problems, short_message, unknown_parts


class GoldenChecks(RuleBase):
    @property
    def stale_severity(self) -> Severity:
        """How an expected output that breaks the contract counts: a warning in v2.x unless --strict."""
        return Severity.ERROR if self.strict or not self.m.format.is_v2 else Severity.WARNING

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
                    if isinstance(e.output, dict) and ("ok" in e.output or is_contract(e.output)):
                        self.check_expected(e.output_path, e.output)
                    else:
                        code = "L003" if not self.m.format.is_v2 else "T003"
                        for err in sch.iter_errors("data", e.output):
                            self.stale(code, e.output_path, ("data", *err.path), short_message(err), e.output)
        except RefError as exc:
            self.add_at("S002", str(exc), self.m.files.schema if self.m.files else None)

    def check_input_doc(self, sch: Any, path: Path, value: Any) -> None:
        if value is UNPARSED or self.m.schemas.input is None:
            return
        for err in sch.iter_errors("input", value):
            where = dotted(("input", *err.path))
            self.add_at(
                "T001",
                f"{path.name}: {where} does not match the input schema: {short_message(err)}",
                path,
                tuple(err.path),
            )

    def stale(self, code: str, path: Path, where: PathT, message: str, doc: Any) -> None:
        """One expected-output problem, located inside the file (a bare data file has no `data` key)."""
        inner = where if isinstance(doc, dict) and where[:1] and where[0] in doc else where[1:]
        self.add_at(
            code,
            f"{path.name}: {dotted(where)}: {message}",
            path,
            inner,
            hint="The test data may be stale: update the file, or the schema if the test is right.",
            severity=self.stale_severity,
        )

    def check_expected(self, path: Path, value: Any) -> None:
        if is_contract(value):
            for part, inner, message in schema_problems(self.m, value):
                self.add_at("T002", f"{path.name}: {message}", path, ("$validate", part, *inner))
            for part in unknown_parts(value):
                self.add_at(
                    "T002",
                    f"{path.name}: $validate.{part} is not a part of the envelope (ok, meta, data, error, partial_data)",
                    path,
                    ("$validate", part),
                    severity=Severity.WARNING,
                )
            return
        sch = schemas_for(self.m)
        for violation in check_envelope(value, self.m):
            if violation.rule.startswith(("schema.data", "schema.meta")):
                continue  # re-reported below with a short message
            if violation.rule == "envelope.meta.required" and not self.m.format.has_envelope_contract:
                continue  # a v2.1 envelope is {ok, data}: the runtime adds meta (SPEC-v2.2 §6.3)
            self.stale("T002", path, violation.path, violation.message, value)
        for part in ("meta", "data"):
            section = value.get(part) if isinstance(value, dict) else None
            if section is None or getattr(self.m.schemas, part, None) is None:
                continue
            if part == "data" and value.get("ok") is not True:
                continue
            for err in sch.iter_errors(part, section):
                self.stale("T003" if part == "data" else "T002", path, (part, *err.path), short_message(err), value)
