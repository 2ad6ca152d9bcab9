"""`--format text|json|github|sarif|junit` of `cogn validate` and `cogn test`: what CI systems read (docs/ci.md).

- `github`: GitHub Actions workflow commands, one per problem (`::error file=…,line=…,col=…,title=CODE::message`),
  so each shows on its line in the pull request; then the usual summary line.
- `sarif`: one SARIF 2.1.0 log (code scanning), a rule per code with its documentation link when there is one.
- `junit`: JUnit XML, a testcase per module (validate) or per golden case (test).
- `json` is the one `--json` document (docs/cli.md); `--json` stays its alias. `text` is the default.

Paths are relative to the working directory when they are under it (a checkout's root, where CI runs), absolute
otherwise; columns are counted in characters (SARIF's `unicodeCodePoints`). Text from modules goes through the
same guards as every other output: workflow commands escape `%`, line breaks (and `:` and `,` in properties), XML
drops the characters XML cannot carry, and the terminal guard shows control characters visibly.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cogtui import __version__
from cogtui.core.diagnostics import CATALOGUE, Diagnostic, Severity
from cogtui.core.files.terminal_text import terminal_json, visible

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def shown_path(path: Path | str | None) -> str:
    """A path as CI shows it: relative to the working directory when under it, else absolute."""
    if path is None:
        return ""
    absolute = Path(path).absolute()
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return absolute.as_posix()


def write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


# ---------------------------------------------------------------- github


def _data(text: str) -> str:
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(level: str, message: str, title: str, file: Path | str | None = None, d: Any = None) -> str:
    props = []
    if file is not None:
        props.append(f"file={_property(shown_path(file))}")
        if d is not None and d.line is not None:
            props.append(f"line={d.line}")
            props.append(f"col={d.column or 1}")
    props.append(f"title={_property(title)}")
    return f"::{level} {','.join(props)}::{_data(message)}"


def github_diagnostic(d: Diagnostic) -> str:
    message = d.message + (f" ({d.hint})" if d.hint else "")
    return workflow_command(GITHUB_LEVEL[d.severity], message, d.code, d.file, d)


# ---------------------------------------------------------------- sarif


def _rule(code: str) -> dict[str, Any]:
    from cogtui.core.assist.links import code_href

    info = CATALOGUE.get(code)
    rule: dict[str, Any] = {"id": code}
    if info is not None:
        rule["shortDescription"] = {"text": info.summary}
        rule["defaultConfiguration"] = {"level": SARIF_LEVEL[info.severity]}
        href = code_href(code)
        if href is not None:
            rule["helpUri"] = href
    return rule


def _location(file: Path | str | None, line: int | None, column: int | None) -> list[dict[str, Any]]:
    if file is None:
        return []
    shown = shown_path(file)
    artifact: dict[str, Any] = (
        {"uri": Path(shown).as_uri()} if Path(shown).is_absolute() else {"uri": shown, "uriBaseId": "%SRCROOT%"}
    )
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if line is not None:
        physical["region"] = {"startLine": line, "startColumn": column or 1}
    return [{"physicalLocation": physical}]


def sarif_result(
    rule: str, level: str, message: str, file: Path | str | None = None, line: int | None = None, col: int | None = None
) -> dict[str, Any]:
    result: dict[str, Any] = {"ruleId": rule, "level": level, "message": {"text": message}}
    locations = _location(file, line, col)
    if locations:
        result["locations"] = locations
    return result


def diagnostic_result(d: Diagnostic) -> dict[str, Any]:
    message = d.message + (f"\n{d.hint}" if d.hint else "")
    return sarif_result(d.code, SARIF_LEVEL[d.severity], message, d.file, d.line, d.column)


def sarif_log(command: str, results: list[dict[str, Any]], extra_rules: Iterable[dict[str, Any]] = ()) -> str:
    codes = sorted({r["ruleId"] for r in results if r["ruleId"] in CATALOGUE})
    rules = [_rule(code) for code in codes] + list(extra_rules)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    for result in results:
        if result["ruleId"] in index:
            result["ruleIndex"] = index[result["ruleId"]]
    run = {
        "tool": {
            "driver": {
                "name": "cogn",
                "fullName": f"cogn {command} (cogtui)",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return terminal_json({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2)


# ---------------------------------------------------------------- junit


def xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def junit_document(name: str, suites: list[ET.Element]) -> str:
    root = ET.Element(
        "testsuites",
        name=name,
        tests=str(sum(int(s.get("tests", "0")) for s in suites)),
        failures=str(sum(int(s.get("failures", "0")) for s in suites)),
        errors=str(sum(int(s.get("errors", "0")) for s in suites)),
    )
    root.extend(suites)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def diagnostic_line(d: Diagnostic) -> str:
    where = d.location
    if d.file is not None:
        where = where.replace(str(d.file), shown_path(d.file), 1)
    return f"{where}: {d.severity.value} {d.code} {d.message}" + (f" ({d.hint})" if d.hint else "")


# ---------------------------------------------------------------- validate


def validate_output(fmt: str, reports: list[Any], summary_line: str) -> None:
    """`cogn validate --format github|sarif|junit` for `reports` (ModuleReports)."""
    if fmt == "github":
        for r in reports:
            for d in r.diagnostics:
                write(github_diagnostic(d))
        write(visible(summary_line))
    elif fmt == "sarif":
        write(sarif_log("validate", [diagnostic_result(d) for r in reports for d in r.diagnostics]))
    elif fmt == "junit":
        suite = ET.Element("testsuite", name="cogn validate", tests=str(len(reports)))
        failed = 0
        for r in reports:
            case = ET.SubElement(
                suite, "testcase", classname="cogn.validate", name=xml_text(r.name), file=xml_text(shown_path(r.path))
            )
            errors = [d for d in r.diagnostics if d.severity is Severity.ERROR]
            others = [d for d in r.diagnostics if d.severity is not Severity.ERROR]
            if errors:
                failed += 1
                failure = ET.SubElement(
                    case, "failure", type=errors[0].code, message=xml_text(f"{errors[0].code} {errors[0].message}")
                )
                failure.text = xml_text("\n".join(diagnostic_line(d) for d in errors))
            if others:
                ET.SubElement(case, "system-out").text = xml_text("\n".join(diagnostic_line(d) for d in others))
        suite.set("failures", str(failed))
        suite.set("errors", "0")
        write(junit_document("cogn validate", [suite]))


# ---------------------------------------------------------------- test


def _case_file(module: Any, case: Any) -> Path | None:
    """The golden's expected file (else its input): where a failed case shows."""
    for test in getattr(module, "tests", ()):
        if test.name == case.name:
            found: Path | None = test.expected_path or test.input_path
            return found
    return None


def _case_message(case: Any) -> str:
    return "\n".join(case.reasons) or "the envelope differs from the golden"


def test_output(fmt: str, results: list[tuple[Any, Any]], blocked: dict[str, dict[str, Any]], summary: str) -> None:
    """`cogn test --format github|sarif|junit`: `results` are (Module, CaseResult); `blocked` the modules that cannot
    run, by name, with their error (code, message, suggestion)."""
    if fmt == "github":
        for name, error in blocked.items():
            write(workflow_command("error", f"{name}: {error['message']} ({error['suggestion']})", error["code"]))
        for module, case in results:
            for d in case.diagnostics:
                write(github_diagnostic(d))
            if not case.passed:
                title = f"golden test {module.name}/{case.name} failed"
                write(workflow_command("error", _case_message(case), title, _case_file(module, case)))
        write(visible(summary))
    elif fmt == "sarif":
        out: list[dict[str, Any]] = []
        for name, error in blocked.items():
            out.append(sarif_result(error["code"], "error", f"{name}: {error['message']}\n{error['suggestion']}"))
        for module, case in results:
            out += [diagnostic_result(d) for d in case.diagnostics]
            if not case.passed:
                text = f"golden test {module.name}/{case.name} failed: {_case_message(case)}"
                out.append(sarif_result("golden-test", "error", text, _case_file(module, case)))
        golden = {
            "id": "golden-test",
            "shortDescription": {"text": "a golden test's envelope does not match its expected file"},
            "defaultConfiguration": {"level": "error"},
        }
        extra = [golden] + [{"id": e["code"]} for e in blocked.values() if e["code"] not in CATALOGUE]
        write(sarif_log("test", out, _unique(extra)))
    elif fmt == "junit":
        suites: dict[str, ET.Element] = {}
        for module, case in results:
            suite = suites.setdefault(module.name, ET.Element("testsuite", name=xml_text(module.name)))
            element = ET.SubElement(
                suite, "testcase", classname=xml_text(f"cogn.test.{module.name}"), name=xml_text(case.name)
            )
            where = _case_file(module, case)
            if where is not None:
                element.set("file", xml_text(shown_path(where)))
            if not case.passed:
                failure = ET.SubElement(
                    element, "failure", type="golden-test", message=xml_text(_case_message(case).split("\n")[0])
                )
                failure.text = xml_text(visible("\n".join([*case.reasons, case.diff])))
        for name, error in blocked.items():
            suite = suites.setdefault(name, ET.Element("testsuite", name=xml_text(name)))
            element = ET.SubElement(suite, "testcase", classname=xml_text(f"cogn.test.{name}"), name="cannot run")
            ET.SubElement(element, "error", type=error["code"], message=xml_text(error["message"])).text = xml_text(
                error["suggestion"]
            )
        for suite in suites.values():
            cases = list(suite)
            suite.set("tests", str(len(cases)))
            suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
            suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
        write(junit_document("cogn test", list(suites.values())))


def _unique(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for rule in rules:
        seen.setdefault(rule["id"], rule)
    return list(seen.values())
