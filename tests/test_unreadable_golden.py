"""A golden test's file that cannot be used fails its own case only (GOLD-4).

A golden file that does not parse (P002 and the other P codes) or that the confined reader refuses (F codes) is
no longer a load error that blocks the module (`run_blockers`): its case fails with the located diagnostic
`cogn validate` gives for the same file, and the module's other cases run and pass or fail on their own. The eval
(tests/test_eval.py) and the TUI's golden tests (tests/tui/test_goldens_state.py) show the same.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document, envelope, report
from modkit import GOOD_EXPECTED, GOOD_INPUT, clean_v22, make_module, pos
from rtkit import MODULES, cogn, options, replay

from cogtui.core.module.loader import load_module
from cogtui.core.rules.contract_status import golden_file_problems, run_blockers
from cogtui.core.run.golden_runner import run_case, unrunnable

BROKEN = '{\n  "ok": true,\n  meta: {}\n}\n'  # P002 at 3:3: a key without quotes


def _module(tmp_path: Path, **files: object) -> Path:
    base = clean_v22()
    base.update({"tests/case2.input.json": GOOD_INPUT, "tests/case2.expected.json": GOOD_EXPECTED})
    base.update(files)  # type: ignore[arg-type]
    return make_module(tmp_path, base)


def test_a_golden_that_does_not_parse_blocks_nothing_and_is_its_cases_located_failure(tmp_path: Path) -> None:
    module = load_module(_module(tmp_path, **{"tests/case2.expected.json": BROKEN}))
    path = module.path / "tests" / "case2.expected.json"
    assert run_blockers(module) == []  # the module runs
    [problem] = golden_file_problems(module, module.tests[1])
    assert (problem.code, problem.file, problem.line, problem.column) == ("P002", path, *pos(BROKEN, "meta"))
    assert golden_file_problems(module, module.tests[0]) == [] and unrunnable(module, module.tests[0]) is None
    refused = unrunnable(module, module.tests[1])
    assert refused is not None and not refused.passed and refused.result is None
    assert refused.reasons == [f"P002 {path}:3:3: {problem.message}"] and refused.diagnostics == [problem]


def test_a_case_whose_input_does_not_parse_keeps_the_name_of_its_file(tmp_path: Path) -> None:
    """GOLD-4: a case's name comes from its input file's name, never its content, so it is known unparsed too."""
    module = load_module(_module(tmp_path, **{"tests/case2.input.json": "{not json", "tests/case2.expected.json": "["}))
    assert [t.name for t in module.tests] == ["case1", "case2"]
    refused = unrunnable(module, module.tests[1])
    assert refused is not None and refused.name == "case2"
    assert [d.file.name for d in refused.diagnostics if d.file] == ["case2.input.json", "case2.expected.json"]
    assert [r.split(" ", 2)[:2] for r in refused.reasons] == [
        ["P002", f"{module.path / 'tests' / 'case2.input.json'}:1:2:"],
        ["P002", f"{module.path / 'tests' / 'case2.expected.json'}:1:2:"],
    ]


def test_missing_and_not_an_object_are_said_without_a_diagnostic(tmp_path: Path) -> None:
    folder = _module(tmp_path, **{"tests/case2.expected.json": "[1, 2]", "tests/case3.input.json": GOOD_INPUT})
    module = load_module(folder)
    by_name = {t.name: t for t in module.tests}
    listed = unrunnable(module, by_name["case2"])
    assert listed is not None and listed.reasons == [
        "the expected envelope file case2.expected.json is not a JSON object"
    ]
    alone = unrunnable(module, by_name["case3"])
    assert alone is not None and alone.reasons == ["the expected envelope file case3.expected.json does not exist"]
    assert listed.diagnostics == [] and alone.diagnostics == []


async def test_the_other_cases_run_and_the_schema_still_blocks(tmp_path: Path) -> None:
    module = load_module(_module(tmp_path, **{"tests/case2.expected.json": BROKEN}))
    results = [await run_case(module, t, options(replay())) for t in module.tests]
    assert [(r.name, r.passed) for r in results] == [("case1", True), ("case2", False)]
    blocked = load_module(_module(tmp_path / "b", **{"schema.json": "{ not json", "tests/case2.expected.json": BROKEN}))
    assert [d.code for d in run_blockers(blocked)] == ["P002"]  # schema.json's: a contract that cannot be known
    assert run_blockers(blocked)[0].file == blocked.path / "schema.json"


def test_a_golden_linked_outside_the_folder_fails_its_case_with_its_f_code(tmp_path: Path) -> None:
    folder = _module(tmp_path)
    outside = tmp_path / "secret.json"
    outside.write_text('{"text": "never read"}', encoding="utf-8")
    (folder / "tests" / "case2.input.json").unlink()
    (folder / "tests" / "case2.input.json").symlink_to(outside)
    module = load_module(folder)
    assert run_blockers(module) == []
    refused = unrunnable(module, module.tests[1])
    assert refused is not None and [d.code for d in refused.diagnostics] == ["F001"]
    assert "never read" not in json.dumps(refused.to_json())


def test_an_expected_file_found_by_name_that_is_not_a_regular_file_is_said_as_it_is(tmp_path: Path) -> None:
    """tests/case2.* found by their names (not listed in module.yaml): an expected file that is a FIFO, a link to a
    device or a symlink loop exists, so it is refused with its F code, never reported as missing (T008)."""
    for expected, code in (("fifo", "F002"), ("/dev/zero", "F001"), ("loop", "F004")):
        folder = _module(tmp_path / expected.strip("/"))
        path = folder / "tests" / "case2.expected.json"
        path.unlink()
        if expected == "fifo":
            os.mkfifo(path)
        elif expected == "loop":
            path.symlink_to(path.with_name("again.json"))
            path.with_name("again.json").symlink_to(path)
        else:
            path.symlink_to(expected)
        module = load_module(folder)
        assert [(d.code, d.file) for d in module.load_diagnostics] == [(code, path)], expected
        refused = unrunnable(module, module.tests[1])
        assert refused is not None and [d.code for d in refused.diagnostics] == [code], expected


def _copy(tmp_path: Path) -> Path:
    mods = tmp_path / "mods"
    shutil.copytree(MODULES / "code-reviewer", mods / "code-reviewer")
    (mods / "code-reviewer" / "tests" / "case2.expected.json").write_text(BROKEN, encoding="utf-8")
    return mods


def test_cogn_test_runs_the_other_cases_and_exits_1(tmp_path: Path) -> None:
    """GOLD-4: exit 1, as for any failed case; the broken file is the case's reason, located."""
    mods = _copy(tmp_path)
    where = f"{mods / 'code-reviewer' / 'tests' / 'case2.expected.json'}:3:3"
    proc = cogn(tmp_path, "test", "code-reviewer", path=mods)
    assert proc.returncode == 1, proc.stdout
    lines = proc.stdout.splitlines()
    assert "CANNOT RUN" not in proc.stdout and "E4000" not in proc.stdout
    assert "✓ pass  code-reviewer/case1" in lines and "✓ pass  code-reviewer/case3" in lines
    assert "✗ FAIL  code-reviewer/case2" in lines
    assert f"    - P002 {where}: JSON syntax error: Expecting property name enclosed in double quotes" in lines
    assert lines[-1] == "3 cases: 2 passed, 1 failed"
    proc = cogn(tmp_path, "test", "code-reviewer", "--json", path=mods)
    doc = document(proc.stdout, "test")
    assert proc.returncode == 1 and (doc["summary"]["passed"], doc["summary"]["failed"]) == (2, 1)
    cases = {c["name"]: c for c in doc["modules"][0]["cases"]}
    [diagnostic] = cases["case2"]["diagnostics"]
    assert (diagnostic["code"], diagnostic["line"], diagnostic["column"]) == ("P002", 3, 3)
    assert cases["case2"]["envelope"] is None and cases["case1"]["diagnostics"] == []


def test_cogn_validate_still_reports_the_file_and_cogn_run_runs(tmp_path: Path) -> None:
    mods = _copy(tmp_path)
    proc = cogn(tmp_path, "validate", "code-reviewer", "--json", path=mods)
    assert proc.returncode == 1
    found = [d for d in report(proc.stdout)["diagnostics"] if d["code"] == "P002"]
    assert [(Path(d["file"]).name, d["line"], d["column"]) for d in found] == [("case2.expected.json", 3, 3)]
    given = (MODULES / "code-reviewer" / "tests" / "case1.input.json").read_text(encoding="utf-8")
    proc = cogn(tmp_path, "run", "code-reviewer", "--provider", "replay", "--input", given, "--json", path=mods)
    assert proc.returncode == 0 and envelope(proc.stdout)["ok"] is True, proc.stdout


def test_an_example_that_does_not_parse_blocks_nothing(tmp_path: Path) -> None:
    """GOLD-5: examples are validated and offered, never sent; a broken one is validate's finding, not a blocker."""
    mods = tmp_path / "mods"
    shutil.copytree(MODULES / "code-reviewer", mods / "code-reviewer")
    examples = mods / "code-reviewer" / "examples"
    examples.mkdir(exist_ok=True)
    (examples / "broken.input.json").write_text(BROKEN, encoding="utf-8")
    (examples / "broken.output.json").write_text("{}", encoding="utf-8")
    module = load_module(mods / "code-reviewer")
    assert run_blockers(module) == []
    assert [d.code for d in module.load_diagnostics if d.file == examples / "broken.input.json"] == ["P002"]
    proc = cogn(tmp_path, "validate", "code-reviewer", "--json", path=mods)
    found = [d for d in report(proc.stdout)["diagnostics"] if d["code"] == "P002"]
    assert proc.returncode == 1 and [(Path(d["file"]).name, d["line"], d["column"]) for d in found] == [
        ("broken.input.json", 3, 3)
    ]
    given = (MODULES / "code-reviewer" / "tests" / "case1.input.json").read_text(encoding="utf-8")
    proc = cogn(tmp_path, "run", "code-reviewer", "--provider", "replay", "--input", given, "--json", path=mods)
    assert proc.returncode == 0 and envelope(proc.stdout)["ok"] is True, proc.stdout
    proc = cogn(tmp_path, "test", "code-reviewer", path=mods)
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "3 cases: 3 passed, 0 failed", proc.stdout
