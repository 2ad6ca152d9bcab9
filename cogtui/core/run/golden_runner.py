"""Golden tests: run each input, compare the envelope with the expected one at the contract level.

A contract golden (`{"$validate": {part: schema}}`) is judged by its schemas
(rules/golden_contract.py). For a full envelope, the rule (docs/golden-tests.md):
- `ok` must match, and for failures `error.code` must match (legacy and
  numeric spellings of one code are equal);
- a success's data must validate against the data schema;
- exec tier: data must equal the expected data exactly;
- other tiers: every field present in the expected data must be present, and
  fields whose schema is an enum (extensible or not) or a boolean must be equal.
  Free text, numbers and arrays may differ: models word things differently.
"""

from __future__ import annotations

import json
from typing import Any

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.json_pointer import deref, object_at
from cogtui.core.module.model import UNPARSED, GoldenTest, Module
from cogtui.core.module.schemas import RefError, schemas_for
from cogtui.core.records import field, record, replace
from cogtui.core.rules.contract_status import golden_file_problems
from cogtui.core.rules.error_codes import normalize_code
from cogtui.core.rules.golden_contract import is_contract, judge
from cogtui.core.rules.judge_spec import judge_spec, without_judge
from cogtui.core.run.judge import Judgement, JudgeSetup, bad_rubric, judge_case, skipped
from cogtui.core.run.manifest_policy import TEST, without_runtime_meta
from cogtui.core.run.runner import RunOptions, RunResult, run_module


@record(frozen=False)
class CaseResult:
    """One golden case run: passed or not, why, and the diff against the expected envelope."""

    name: str
    passed: bool
    reasons: list[str] = field(default_factory=list)
    diff: str = ""
    result: RunResult | None = None
    expected: Any = None
    diagnostics: list[Diagnostic] = field(default_factory=list)  # why its files cannot be used (GOLD-4)
    judgement: Judgement | None = None  # a `$judge` golden's judging (run/judge.py); None without a rubric
    contract_ok: bool = False  # the envelope satisfies the golden at the contract level (a rubric may still fail it)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "reasons": self.reasons,
            "diff": self.diff,
            "envelope": self.result.envelope if self.result else None,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "judge": self.judgement.to_json() if self.judgement is not None else None,
        }


def _is_enum_or_bool(schema: Any, root: dict[str, Any]) -> bool:
    schema = deref(schema, root) if isinstance(schema, dict) else schema
    if not isinstance(schema, dict):
        return False
    if "enum" in schema or "const" in schema or schema.get("type") == "boolean":
        return True
    branches = schema.get("oneOf") or schema.get("anyOf")
    return isinstance(branches, list) and any(_is_enum_or_bool(b, root) for b in branches)


def compare(module: Module, expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Why `actual` does not satisfy `expected` (empty when it does); a contract golden is judged by its schemas."""
    if is_contract(expected):
        return judge(module, expected, actual)
    reasons: list[str] = []
    if expected.get("ok") != actual.get("ok"):
        err = actual.get("error") or {}
        return [
            f"ok is {json.dumps(actual.get('ok'))} but {json.dumps(expected.get('ok'))} was expected"  # JSON words
            + (f" ({err.get('code')}: {err.get('message')})" if err else "")
        ]
    if expected.get("ok") is False:
        want = normalize_code(str((expected.get("error") or {}).get("code")))
        got = normalize_code(str((actual.get("error") or {}).get("code")))
        if want != got:
            reasons.append(f"error.code is {got} but {want} was expected")
        return reasons
    data, want_data = actual.get("data"), expected.get("data")
    if not isinstance(data, dict) or not isinstance(want_data, dict):
        return ["data is missing"]
    try:
        for err in schemas_for(module).iter_errors("data", data):
            reasons.append(f"data does not match the schema at {'.'.join(map(str, err.path)) or '$'}: {err.message}")
    except RefError as exc:
        reasons.append(str(exc))
    if module.tier == "exec":
        if data != want_data:
            reasons.append("exec tier: data differs from the expected data")
        return reasons
    reasons.extend(_compare_fields(want_data, data, module.schemas.data, module.schemas.root, "data"))
    return reasons


def _compare_fields(
    want: dict[str, Any], got: dict[str, Any], schema: Any, root: dict[str, Any], where: str
) -> list[str]:
    out: list[str] = []
    schema = deref(schema, root) if isinstance(schema, dict) else {}
    props = object_at(schema, "properties")
    for key, value in want.items():
        path = f"{where}.{key}"
        if key not in got:
            out.append(f"{path} is missing")
            continue
        sub = props.get(key, {})
        if _is_enum_or_bool(sub, root) or isinstance(value, bool):
            if got[key] != value:
                out.append(
                    f"{path} is {json.dumps(got[key], ensure_ascii=False)} but {json.dumps(value, ensure_ascii=False)} was expected"
                )
        elif isinstance(value, dict) and isinstance(got[key], dict):
            out.extend(_compare_fields(value, got[key], sub, root, path))
    return out


def envelope_diff(expected: Any, actual: Any) -> str:
    """A unified diff of the two envelopes, runtime-filled meta left out."""

    def clean(env: Any) -> Any:
        return without_runtime_meta(env) if isinstance(env, dict) else env

    import difflib  # only for a failed case

    a = json.dumps(clean(expected), indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    b = json.dumps(clean(actual), indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    return "\n".join(difflib.unified_diff(a, b, "expected", "actual", lineterm=""))


def unrunnable(module: Module, test: GoldenTest) -> CaseResult | None:
    """The failure of a case whose files cannot be used, without running it (GOLD-4): a file that does not parse or
    that the confined reader refused is said with its located diagnostic, as `cogn validate` says it."""
    problems = golden_file_problems(module, test)
    reasons = [f"{d.code} {d.location}: {d.message}" for d in problems]
    said = {d.file for d in problems}
    if test.input is UNPARSED and test.input_path not in said:
        reasons.append(f"the input file {test.input_path.name} does not exist")
    if test.expected_path is None:  # a tests/NAME.input.json alone (T008)
        reasons.append(f"the expected envelope file {test.name}.expected.json does not exist")
    elif test.expected is UNPARSED and test.expected_path not in said:
        reasons.append(f"the expected envelope file {test.expected_path.name} does not exist")
    elif test.expected is not UNPARSED and not isinstance(test.expected, dict):
        reasons.append(f"the expected envelope file {test.expected_path.name} is not a JSON object")
    return CaseResult(test.name, False, reasons, diagnostics=problems) if reasons else None


async def run_case(
    module: Module, test: GoldenTest, options: RunOptions, judge: JudgeSetup | None = None
) -> CaseResult:
    """Run one golden case and judge it: the contract checks, then a `$judge` golden's rubric (run/judge.py)."""
    refused = unrunnable(module, test)
    if refused is not None:
        return refused
    # A golden test checks the module; it is not an invocation (invocation.user_invocable: false still tests).
    result = await run_module(module, test.input, replace(options, caller=TEST))
    expected = without_judge(test.expected)
    reasons = compare(module, expected, result.envelope)
    diff = envelope_diff(expected, result.envelope) if reasons and not is_contract(expected) else ""
    spec, problem = judge_spec(test.expected)
    judgement = None
    if problem:
        judgement = bad_rubric(problem)
    elif spec is not None:
        judgement = skipped(spec) if reasons else await judge_case(judge, spec, module, test.input, result)
    contract_ok = not reasons
    if judgement is not None and not judgement.passed and judgement.status != "skipped":
        reasons.append(judgement.reason)
    return CaseResult(
        test.name, not reasons, reasons, diff, result, test.expected, judgement=judgement, contract_ok=contract_ok
    )
