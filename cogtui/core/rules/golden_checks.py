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
from cogtui.core.rules.judge_spec import KEY as JUDGE_KEY
from cogtui.core.rules.judge_spec import spec_problems, unknown_keys, without_judge
from cogtui.core.rules.violation import schema_error_fact, violation_fact


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
                            self.schema_finding(code, e.output_path, ("data",), err, e.output, bare=True)
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

    def stale(
        self, code: str, path: Path, where: PathT, sentence: str, doc: Any, fact: str = "", bare: bool = False
    ) -> None:
        """One expected-output problem, located inside the file: `where` is the envelope path, and a `bare` file
        (an example output holding the data itself) has no `data` key to find."""
        inner = where[1:] if bare or not (isinstance(doc, dict) and where[:1] and where[0] in doc) else where
        self.add_at(
            code,
            f"{path.name}: {sentence}",
            path,
            inner,
            hint="The test data may be stale: update the file, or the schema if the test is right.",
            severity=self.stale_severity,
            fact=fact,
        )

    def schema_finding(self, code: str, path: Path, at: PathT, err: Any, doc: Any, bare: bool = False) -> None:
        """A schema error about the part at `at` of an expected output, named as the file has it (a bare file's
        fields without `data.`): a missing property by its own path (`data.rationale is required`)."""
        if err.keyword == "required" and err.missing is not None:
            where: PathT = (*at, *err.path, err.missing)
            sentence = f"{_named(where, bare)} is required"
        else:
            where = (*at, *err.path)
            sentence = f"{_named(where, bare)}: {short_message(err)}"
        self.stale(code, path, where, sentence, doc, schema_error_fact(err, at), bare)

    def check_expected(self, path: Path, value: Any) -> None:
        if isinstance(value, dict) and JUDGE_KEY in value:
            self.check_judge(path, value[JUDGE_KEY])
            value = without_judge(value)
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
            named = dotted(violation.path)
            sentence = violation.message if violation.message.startswith(named) else f"{named}: {violation.message}"
            self.stale("T002", path, violation.path, sentence, value, violation_fact(violation))
        for part in ("meta", "data"):
            section = value.get(part) if isinstance(value, dict) else None
            if section is None or getattr(self.m.schemas, part, None) is None:
                continue
            if part == "data" and value.get("ok") is not True:
                continue
            for err in sch.iter_errors(part, section):
                self.schema_finding("T003" if part == "data" else "T002", path, (part,), err, value)

    def check_judge(self, path: Path, value: Any) -> None:
        """A golden's `$judge` rubric (run/judge.py): usable, and nothing in it that the judge would not read."""
        for where, message in spec_problems(value):
            self.add_at("T009", f"{path.name}: {message}", path, (JUDGE_KEY, *where), severity=self.stale_severity)
        for key in unknown_keys(value):
            self.add_at(
                "T009",
                f"{path.name}: $judge.{key} is not read (a $judge has rubric and pass_score)",
                path,
                (JUDGE_KEY, key),
                severity=Severity.WARNING,
            )


def _named(where: PathT, bare: bool) -> str:
    """A field of an expected output as its file names it: `data.x` in an envelope, `x` in a bare data file."""
    return (dotted(where[1:]) if where[1:] else "the output") if bare else dotted(where)
