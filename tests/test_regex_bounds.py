"""Schema patterns never hang and never crash: validate, check, run and test through the real CLI.

Each command runs in a subprocess under a generous watchdog (subprocess
timeout): a catastrophic pattern on a near-miss value used to hang for hours;
here the command must finish with a diagnostic or an envelope, whatever the
machine's speed. No timing is asserted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_json import envelope as printed_envelope
from cli_json import report as validated
from modkit import GOOD_EXPECTED, clean_v22, make_module, run_cogn

WATCHDOG = 120  # seconds: only a hang gets anywhere near it
NEAR_MISS = "a" * 50_000 + "!"
RUNAWAY = "word " * 300 + "!"


def module_with(tmp_path: Path, pattern: str, text: str, pattern_properties: bool = False) -> Path:
    files = clean_v22()
    schema: Any = files["schema.json"]
    if pattern_properties:
        schema["input"]["patternProperties"] = {pattern: {"type": "string"}}
        schema["input"]["additionalProperties"] = True
    else:
        schema["input"]["properties"]["text"]["pattern"] = pattern
    files["tests/case1.input.json"] = {"text": text} if not pattern_properties else {"text": "t", text: "x"}
    files["tests/case1.expected.json"] = GOOD_EXPECTED
    return make_module(tmp_path, files)


def cogn(tmp_path: Path, *args: str) -> Any:
    proc = run_cogn(list(args), cwd=tmp_path, timeout=WATCHDOG, process=True)  # a hang must end at the watchdog
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc


@pytest.mark.parametrize(
    ("pattern", "value", "pp"),
    [("^(a+)+$", NEAR_MISS, False), ("^(\\w+\\s?)*(?=x)$", RUNAWAY, False), ("^(a+)+$", NEAR_MISS, True)],
    ids=["nested-quantifier", "backtracking-runaway", "patternProperties"],
)
def test_validate_reports_the_pattern_and_the_golden_without_hanging(
    tmp_path: Path, pattern: str, value: str, pp: bool
) -> None:
    root = module_with(tmp_path, pattern, value, pp)
    proc = cogn(tmp_path, "validate", str(root), "--json")
    report = validated(proc.stdout)
    diags = report["diagnostics"]
    codes = {d["code"] for d in diags}
    assert "S008" in codes  # the hazard, located in schema.json
    assert any(d["code"] == "S008" and d["file"].endswith("schema.json") and d["line"] for d in diags)
    if not pp:
        assert "T001" in codes  # the golden input does not match: judged, not hung


@pytest.mark.parametrize(("pattern", "value"), [("^(a+)+$", NEAR_MISS), ("^(\\w+\\s?)*(?=x)$", RUNAWAY)])
def test_run_check_and_test_answer_with_an_input_error(tmp_path: Path, pattern: str, value: str) -> None:
    root = module_with(tmp_path, pattern, value)
    inp = tmp_path / "input.json"
    inp.write_text(json.dumps({"text": value}), encoding="utf-8")
    run = cogn(tmp_path, "run", str(root), "--input", str(inp), "--provider", "replay", "--json", "--no-history")
    envelope = printed_envelope(run.stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "E1001"
    check = cogn(tmp_path, "check", str(inp), "--kind", "input", "--module", str(root), "--json")
    assert check.returncode != 0 and "E1001" in check.stdout
    test = cogn(tmp_path, "test", str(root), "--provider", "replay", "--json")
    assert test.returncode != 0 and "E1001" in test.stdout


def test_an_invalid_pattern_is_a_located_diagnostic_and_a_clear_envelope(tmp_path: Path) -> None:
    root = module_with(tmp_path, "([a-z]", "abc")
    proc = cogn(tmp_path, "validate", str(root), "--json")
    text = (root / "schema.json").read_text(encoding="utf-8")
    line = text[: text.index('"([a-z]"')].count("\n") + 1
    report = validated(proc.stdout)
    diags = report["diagnostics"]
    assert any(d["code"] == "S001" and d["line"] == line and "regular expression" in d["message"] for d in diags)
    run = cogn(
        tmp_path, "run", str(root), "--input", '{"text": "abc"}', "--provider", "replay", "--json", "--no-history"
    )
    envelope = printed_envelope(run.stdout)
    assert envelope["ok"] is False and "regular expression" in envelope["error"]["message"]
    assert envelope["error"]["code"] == "E1006"


def test_each_bad_pattern_of_a_schema_is_named_and_a_sound_one_keeps_its_hazard(tmp_path: Path) -> None:
    """Two bad patterns in one schema are two located S001s; a sound pattern keeps its S008 hazard warning."""
    from cogtui.core.module.loader import load_module
    from cogtui.core.rules.validate_module import validate_module

    files = clean_v22()
    schema: Any = files["schema.json"]
    props = schema["input"]["properties"]
    props["text"]["pattern"] = "([a-z]"  # bad
    props["code"] = {"type": "string", "pattern": "^[A-Z]{3}$"}  # sound
    props["slow"] = {"type": "string", "pattern": "^(a+)+$"}  # sound, but a backtracking hazard
    props["worse"] = {"type": "string", "pattern": "a{2,1}"}  # bad
    root = make_module(tmp_path, files)
    found = validate_module(load_module(root))
    bad = sorted(d.message for d in found if d.code == "S001")
    # Each named by its place in the file and why it is not a regular expression (CODE-8).
    assert bad == [
        'input.properties.text.pattern: "([a-z]" is not a valid regular expression: the ( at character 1 is never'
        " closed",
        'input.properties.worse.pattern: "a{2,1}" is not a valid regular expression: the repetition at character 3'
        " has its minimum above its maximum",
    ]
    text = (root / "schema.json").read_text(encoding="utf-8")
    lines = {text[: text.index(p)].count("\n") + 1 for p in ('"([a-z]"', '"a{2,1}"')}
    assert {d.line for d in found if d.code == "S001"} == lines
    assert [d.code for d in found if d.code == "S008"] == ["S008"]
    sound = clean_v22()
    sound_schema: Any = sound["schema.json"]
    sound_schema["input"]["properties"]["slow"] = {"type": "string", "pattern": "^(a+)+$"}
    (tmp_path / "sound").mkdir()
    codes = [d.code for d in validate_module(load_module(make_module(tmp_path / "sound", sound)))]
    assert "S001" not in codes and codes.count("S008") == 1
