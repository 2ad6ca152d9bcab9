"""One fact, one diagnostic (CODE-6): findings of several rules about one missing field or one wrong value at one
place are said once, under the code that judges the narrowest part; different facts at one place stay apart."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import cli_json
from modkit import clean_v1, clean_v22, make_module, mapping_in, run_cogn

from cogtui.core.diagnostics import Severity, diag, one_fact_each
from cogtui.core.module.loader import load_module
from cogtui.core.rules.document_checker import check_document
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.workspace import check_path

F = Path("/m/tests/case1.expected.json")


def test_one_fact_each_keeps_the_most_severe_then_the_narrowest_code_then_the_first() -> None:
    envelope = diag("T002", "data.rationale is required", F, 3, 11, fact="missing data.rationale")
    data = diag("T003", "data.rationale is required by the data schema", F, 3, 11, fact="missing data.rationale")
    assert one_fact_each([envelope, data]) == [data]  # T003 judges the data alone: narrower than the envelope
    rule = diag("T002", 'meta.risk "x" is not one of …', F, 5, 13, fact="enum meta.risk")
    schema = diag("T002", 'meta.risk: enum […] (found "x")', F, 5, 13, fact="enum meta.risk")
    assert one_fact_each([rule, schema]) == [rule]  # the same code: the first found, the spec's own rule
    strict = diag("T003", "x", F, 5, 13, severity=Severity.ERROR, fact="enum meta.risk")
    assert one_fact_each([rule, strict]) == [strict]  # an error is never hidden behind a warning
    elsewhere = diag("T002", "x", F, 6, 1, fact="enum meta.risk")
    other_kind = diag("T002", "x", F, 5, 13, fact="type meta.risk")
    plain = diag("T002", "x", F, 5, 13)
    kept = [rule, elsewhere, other_kind, plain, plain]
    assert one_fact_each(kept) == kept  # another place, another kind of finding, or no fact: all said


def _module(tmp_path: Path, expected: Any) -> Path:
    files = clean_v22()
    files["tests/case1.expected.json"] = expected
    return make_module(tmp_path, files)


def _findings(diagnostics: list[Any]) -> Counter[tuple[Any, ...]]:
    return Counter((d.file.name, d.line, d.column) for d in diagnostics if d.code[0] == "T")


def test_a_golden_missing_fields_and_with_wrong_values_reports_each_once(tmp_path: Path) -> None:
    """The issue's case: `meta.confidence: meta.confidence is required` and `meta: missing required confidence`
    (both T002) at one position, and `data.rationale` twice (T002 and T003)."""
    expected = {"ok": True, "meta": {"risk": "extreme", "explain": 5}, "data": {"label": "bug"}}
    found = validate_module(load_module(_module(tmp_path, expected)))
    stale = [d for d in found if d.code[0] == "T"]
    assert [(d.code, d.message) for d in stale] == [
        ("T002", "case1.expected.json: meta.confidence is required"),
        ("T002", 'case1.expected.json: meta.risk "extreme" is not one of none, low, medium, high'),
        ("T002", "case1.expected.json: meta.explain must be a string"),
        ("T003", "case1.expected.json: data.rationale is required"),
    ]
    # One field, one diagnostic: meta.confidence and meta.explain's positions are the meta object's and the
    # value's, so no position holds two findings about one field.
    assert len({(d.line, d.column, d.message.split(" ")[1]) for d in stale}) == len(stale)


def test_two_different_facts_about_one_value_are_both_said(tmp_path: Path) -> None:
    files = clean_v22()
    mapping_in(files, "schema.json")["data"]["properties"]["rationale"] = {
        "type": "string",
        "maxLength": 3,
        "pattern": "^z",
    }
    mapping_in(files, "tests/case1.expected.json")["data"]["rationale"] = "abcdef"
    found = validate_module(load_module(make_module(tmp_path, files)))
    about = [d.message for d in found if d.code == "T003"]
    assert len(about) == 2 and any("maxLength" in m for m in about) and any("pattern" in m for m in about)


def test_a_v1_example_names_its_fields_as_the_file_does(tmp_path: Path) -> None:
    files = clean_v1()
    files["examples/output.json"] = {"summary": 5, "rationale": "Because"}
    found = validate_module(load_module(make_module(tmp_path, files)))
    assert sorted(d.message for d in found if d.code == "L003") == [
        "output.json: confidence is required",  # not `data: missing required confidence`
        'output.json: summary: type ["string"] (found 5)',
    ]


def test_validate_the_tui_reports_and_json_count_each_fact_once(tmp_path: Path) -> None:
    expected = {"ok": True, "meta": {"risk": "low", "explain": "x"}, "data": {"label": "bug"}}
    root = _module(tmp_path, expected)
    report = check_path(root)  # what the TUI's browser and editor show
    assert report.warnings == 2 and max(_findings(report.diagnostics).values()) == 1
    proc = run_cogn(["validate", str(root), "--json"], cwd=tmp_path)
    out = cli_json.report(proc.stdout)
    assert out["warnings"] == 2
    assert all("fact" not in d for d in out["diagnostics"])  # the JSON shape is unchanged


def test_check_against_a_module_says_a_missing_field_once(tmp_path: Path) -> None:
    module = load_module(_module(tmp_path, clean_v22()["tests/case1.expected.json"]))
    envelope = {"ok": True, "meta": {"risk": "low", "explain": "x"}, "data": {"label": "bug"}}
    result = check_document(envelope, "envelope", module=module)
    assert [(v.rule, v.message) for v in result.violations] == [
        ("meta.confidence.required", "meta.confidence is required"),
        ("data.rationale.required", "data.rationale is required"),
    ]
