"""`cogn validate` and `cogn test --format github|sarif|junit|json` (issue 33 §3): SARIF checked against the official
SARIF 2.1.0 schema (tests/fixtures/sarif/, committed: tests never fetch), workflow commands that GitHub reads one
per problem with their text escaped, JUnit XML that parses and counts, and `--format json` the `--json` document."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from cogtui.cli.ci_formats import workflow_command

ROOT = Path(__file__).resolve().parents[1]
SARIF_SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))
WORKFLOW = re.compile(r"^::(error|warning|notice) (file=[^,:]+,)?(line=\d+,col=\d+,)?title=[^:]+::[^\n]*$")


def cogn(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "COGTUI_DOCS_URL")}
    env.update(HOME=str(cwd / "home"), COGTUI_DATA_DIR=str(cwd / "data"), NO_COLOR="1", COGTUI_REPLAY_INTERVAL="0")
    env.update(COGTUI_CONFIG_FILE=str(cwd / "config.yaml"), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "cogtui.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def sarif_errors(text: str) -> list[str]:
    validator = jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker())
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(json.loads(text))]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A checkout-like folder: modules/code-reviewer (valid) and modules/bad (broken three ways, a failing golden)."""
    modules = tmp_path / "modules"
    shutil.copytree(ROOT / "modules" / "code-reviewer", modules / "code-reviewer")
    bad = shutil.copytree(ROOT / "modules" / "code-reviewer", modules / "bad")
    manifest = (bad / "module.yaml").read_text(encoding="utf-8")
    manifest = manifest.replace("name: code-reviewer", 'name: "a,b:c%d\\e[31m\\nnext"').replace(
        "tier: decision", "tier: fast"
    )
    (bad / "module.yaml").write_text(manifest, encoding="utf-8")
    schema = (bad / "schema.json").read_text(encoding="utf-8").replace('"type": "string"', '"type": "strng"', 1)
    (bad / "schema.json").write_text(schema, encoding="utf-8")
    return tmp_path


def test_validate_sarif_is_valid_sarif_2_1_0_with_a_rule_per_code(work: Path) -> None:
    proc = cogn(work, "validate", "--all", "--path", "modules", "--format", "sarif")
    assert proc.returncode == 1, proc.stderr
    assert sarif_errors(proc.stdout) == []
    run = json.loads(proc.stdout)["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    found = {r["ruleId"] for r in run["results"]}
    assert {"M003", "M009", "S001"} <= found and sorted(found) == sorted(rules)
    m003 = next(r for r in run["results"] if r["ruleId"] == "M003")
    location = m003["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "modules/bad/module.yaml", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] >= 1 and m003["level"] == "error"
    assert rules[m003["ruleIndex"]] == "M003"
    assert all(rule["helpUri"].endswith("#" + rule["id"].lower()) for rule in run["tool"]["driver"]["rules"])


def test_a_clean_module_is_an_empty_valid_sarif_log(work: Path) -> None:
    proc = cogn(work, "validate", "modules/code-reviewer", "--format", "sarif")
    assert proc.returncode == 0
    assert sarif_errors(proc.stdout) == []
    assert json.loads(proc.stdout)["runs"][0]["results"] == []


def test_sarif_schema_refuses_a_broken_log() -> None:
    """The schema really checks: a result without its message is refused."""
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "cogn"}}, "results": [{"ruleId": "M003"}]}]}
    assert sarif_errors(json.dumps(log))


def test_validate_github_prints_one_escaped_workflow_command_per_problem(work: Path) -> None:
    proc = cogn(work, "validate", "modules/bad", "--format", "github")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    commands, summary = lines[:-1], lines[-1]
    assert commands and all(WORKFLOW.match(line) for line in commands), commands
    assert summary.startswith("1 module: 0 valid, 1 with errors")
    m003 = next(line for line in commands if "title=M003" in line)
    assert m003.startswith("::error file=modules/bad/module.yaml,line=")
    m009 = next(line for line in commands if "title=M009" in line)
    message = m009.split("::", 2)[2]
    assert "a,b:c%25d" in message  # % escaped (GitHub would read it as an escape); the message keeps , and :
    assert "\\nnext" in message  # quoted as the author wrote it: the command stays one line
    assert "\x1b" not in proc.stdout and "\\x1b" in message  # control characters shown, never sent


def test_workflow_command_text_cannot_end_the_command_or_add_a_property() -> None:
    line = workflow_command("error", "two\nlines 100% done\r", "T,1:x", Path("a,b:c.yaml"))
    assert line == "::error file=a%2Cb%3Ac.yaml,title=T%2C1%3Ax::two%0Alines 100%25 done\\r"  # \r shown, not sent


def test_validate_junit_is_a_testcase_per_module(work: Path) -> None:
    proc = cogn(work, "validate", "--all", "--path", "modules", "--format", "junit")
    assert proc.returncode == 1
    root = ET.fromstring(proc.stdout)
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"code-reviewer", "bad"}
    assert cases["bad"].find("failure") is not None and cases["code-reviewer"].find("failure") is None
    assert root.get("failures") == "1"


def test_format_json_is_the_json_document_and_two_formats_are_refused(work: Path) -> None:
    as_format = cogn(work, "validate", "modules/code-reviewer", "--format", "json")
    as_flag = cogn(work, "validate", "modules/code-reviewer", "--json")
    assert json.loads(as_format.stdout) == json.loads(as_flag.stdout)
    refused = cogn(work, "validate", "modules/code-reviewer", "--json", "--format", "sarif")
    assert refused.returncode == 2 and "two formats" in refused.stderr


def failing_golden(work: Path) -> None:
    expected = work / "modules" / "code-reviewer" / "tests" / "case1.expected.json"
    doc = json.loads(expected.read_text(encoding="utf-8"))
    doc["data"]["verdict"] = "maybe"  # replay answers with it; the contract refuses it (E3001), ok differs
    expected.write_text(json.dumps(doc), encoding="utf-8")


def test_test_formats_report_the_failing_case(work: Path) -> None:
    failing_golden(work)
    github = cogn(work, "test", "modules/code-reviewer", "--provider", "replay", "--format", "github")
    assert github.returncode == 1
    (command,) = [line for line in github.stdout.splitlines() if line.startswith("::")]
    assert WORKFLOW.match(command) and "file=modules/code-reviewer/tests/case1.expected.json" in command
    assert github.stdout.splitlines()[-1] == "3 cases: 2 passed, 1 failed"
    sarif = cogn(work, "test", "modules/code-reviewer", "--provider", "replay", "--format", "sarif")
    assert sarif.returncode == 1 and sarif_errors(sarif.stdout) == []
    (result,) = json.loads(sarif.stdout)["runs"][0]["results"]
    assert result["ruleId"] == "golden-test" and "case1" in result["message"]["text"]
    junit = ET.fromstring(
        cogn(work, "test", "modules/code-reviewer", "--provider", "replay", "--format", "junit").stdout
    )
    assert junit.get("tests") == "3" and junit.get("failures") == "1"


def test_test_sarif_of_a_module_that_cannot_run(work: Path) -> None:
    proc = cogn(work, "test", "modules/bad", "--provider", "replay", "--format", "sarif")
    assert proc.returncode == 1 and sarif_errors(proc.stdout) == []
    results = json.loads(proc.stdout)["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["E4000"]


def test_accept_with_a_ci_format_is_refused_and_writes_nothing(work: Path) -> None:
    failing_golden(work)
    expected = work / "modules" / "code-reviewer" / "tests" / "case1.expected.json"
    before = expected.read_bytes()
    proc = cogn(work, "test", "modules/code-reviewer", "--provider", "replay", "--accept", "--format", "github")
    assert proc.returncode == 2 and "--accept" in proc.stderr and "--format github" in proc.stderr
    assert expected.read_bytes() == before
    as_json = cogn(work, "test", "modules/code-reviewer", "--provider", "replay", "--accept", "--format", "json")
    assert as_json.returncode == 1 and "accepted" in json.loads(as_json.stdout)["summary"]  # json may accept
