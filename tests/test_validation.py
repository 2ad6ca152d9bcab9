"""`validate_module`: one builder per diagnostic code, each checking code, severity, file and position.

Every builder writes a small module and names the diagnostic it must produce,
with the position computed from the text it wrote. A meta-test checks that
the table covers every code in CATALOGUE.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from modkit import MANIFEST_V22, SCHEMA_V22, clean_v0, clean_v1, clean_v22, make_module, mapping_in, pos, text_in

from cogtui.core.diagnostics import CATALOGUE, Diagnostic, Severity
from cogtui.core.files.confined import MAX_MODULE_FILE_BYTES
from cogtui.core.module.loader import load_module
from cogtui.core.rules.validate_module import validate_module, validate_path
from cogtui.core.workspace import check_path


@dataclass(frozen=True)
class Case:
    root: Path
    code: str
    file: str  # relative to the module folder
    line: int | None
    column: int | None
    v22: bool = False
    severity: Severity | None = None  # None: the catalogue's default
    provider: Any = None  # (name, capability declaration) for the runtime_requirements checks (M021)


def manifest(drop: tuple[str, ...] = (), extra: str = "", **changes: Any) -> str:
    """module.yaml text: a comment line, the clean manifest with changes, then raw extra YAML."""
    man = copy.deepcopy(MANIFEST_V22)
    for key in drop:
        man.pop(key, None)
    man.update(changes)
    return "# Cognitive Module Manifest v2.2\n" + yaml.safe_dump(man, sort_keys=False) + extra


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2) + "\n"


def schema(**changes: Any) -> dict[str, Any]:
    s = copy.deepcopy(SCHEMA_V22)
    s.update(changes)
    return s


def build(tmp: Path, files: dict[str, Any], base: Callable[[], dict[str, Any]] = clean_v22) -> Path:
    f = base()
    f.update(files)
    return make_module(tmp, f)


# ---------------------------------------------------------------- parsing and files


def p001(tmp: Path) -> Case:
    text = manifest() + "\tbroken: 1\n"
    return Case(build(tmp, {"module.yaml": text}), "P001", "module.yaml", *pos(text, "\tbroken"))


def p001_frontmatter(tmp: Path) -> Case:
    text = "---\nname: mod\nversion: 1.0.0\nbad: : :\n---\nbody\n"
    root = build(tmp, {"MODULE.md": text}, clean_v1)
    # ": :" -- the parser stops at the second ':' of line 4 of the file (frontmatter line 3).
    err = _yaml_error_position("name: mod\nversion: 1.0.0\nbad: : :\n")
    return Case(root, "P001", "MODULE.md", err[0] + 1, err[1])


def _yaml_error_position(text: str) -> tuple[int, int]:
    try:
        yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        assert exc.problem_mark is not None
        return exc.problem_mark.line + 1, exc.problem_mark.column + 1
    raise AssertionError("expected a YAML error")


def p002(tmp: Path) -> Case:
    text = '{\n  "input": {"type": "object",},\n  "data": {}\n}\n'
    return Case(build(tmp, {"schema.json": text}), "P002", "schema.json", *pos(text, "}", '"object",'))


def p003(tmp: Path) -> Case:
    return Case(build(tmp, {"prompt.md": None}), "P003", "prompt.md", None, None)


def p003_v0(tmp: Path) -> Case:
    files = clean_v0()
    files["prompt.txt"] = None
    return Case(make_module(tmp, files), "P003", "prompt.txt", None, None)


def p004(tmp: Path) -> Case:
    text = "\n[1, 2]\n"
    return Case(build(tmp, {"schema.json": text}), "P004", "schema.json", 2, 1)


def p004_manifest(tmp: Path) -> Case:
    return Case(build(tmp, {"module.yaml": "# a list\n- name\n- version\n"}), "P004", "module.yaml", 2, 1)


def p005(tmp: Path) -> Case:
    raw = "# Prompt\nmeta confidence risk explain rationale é".encode() + b"\xff\n"
    # Columns count characters, not bytes: 'é' is one column.
    col = len("meta confidence risk explain rationale é") + 1
    return Case(build(tmp, {"prompt.md": raw}), "P005", "prompt.md", 2, col)


def p006(tmp: Path) -> Case:
    return Case(build(tmp, {"MODULE.md": "# Title\n\nno frontmatter here\n"}, clean_v1), "P006", "MODULE.md", 1, 1)


def p007(tmp: Path) -> Case:
    # A "billion laughs" alias bomb in the manifest: refused at the node that crosses the limit.
    rows = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 9)]
    text = manifest() + "\n".join(rows) + "\n"
    return Case(build(tmp, {"module.yaml": text}), "P007", "module.yaml", *pos(text, "&l4"))


def p007_frontmatter(tmp: Path) -> Case:
    rows = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 9)]
    text = "---\nname: mod\n" + "\n".join(rows) + "\n---\nbody\n"
    return Case(build(tmp, {"MODULE.md": text}, clean_v1), "P007", "MODULE.md", *pos(text, "&l4"))


def p008(tmp: Path) -> Case:
    text = manifest(extra="tier: exec\n")  # a second tier: the repetition is located, not the first
    return Case(build(tmp, {"module.yaml": text}), "P008", "module.yaml", *pos(text, "tier: exec"))


def p008_schema(tmp: Path) -> Case:
    text = '{\n  "input": {"type": "object", "required": ["text"],\n    "required": []},\n  "data": {}\n}\n'
    return Case(build(tmp, {"schema.json": text}), "P008", "schema.json", *pos(text, '"required": []'))


# ---------------------------------------------------------------- confined files (docs/security.md)


def f001(tmp: Path) -> Case:
    secret = tmp / "secret.txt"
    secret.write_text("TRIPWIRE\n")
    root = build(tmp / "m", {"prompt.md": None})
    (root / "prompt.md").symlink_to(secret)
    return Case(root, "F001", "prompt.md", 1, 1)


def f001_golden(tmp: Path) -> Case:
    secret = tmp / "secret.json"
    secret.write_text("{}")
    root = build(tmp / "m", {})
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "leak.input.json").symlink_to(secret)
    (root / "tests" / "leak.expected.json").write_text("{}")
    return Case(root, "F001", "tests/leak.input.json", 1, 1)


def f002(tmp: Path) -> Case:
    root = build(tmp, {"schema.json": None})
    os.mkfifo(root / "schema.json")
    return Case(root, "F002", "schema.json", 1, 1)


def f003(tmp: Path) -> Case:
    root = build(tmp, {})
    with open(root / "prompt.md", "ab") as fh:  # sparse: large on paper only
        fh.truncate(MAX_MODULE_FILE_BYTES + 1)
    return Case(root, "F003", "prompt.md", 1, 1)


def f004(tmp: Path) -> Case:
    root = build(tmp, {"prompt.md": None})
    (root / "prompt.md").symlink_to(root / "loop.md")
    (root / "loop.md").symlink_to(root / "prompt.md")
    return Case(root, "F004", "prompt.md", None, None)


# ---------------------------------------------------------------- manifest


def m001(tmp: Path) -> Case:
    text = manifest(drop=("responsibility",))
    return Case(build(tmp, {"module.yaml": text}), "M001", "module.yaml", *pos(text, "name:"))


def m001_tier(tmp: Path) -> Case:
    # A v2.2 module (it has a meta schema) without tier.
    text = manifest(drop=("tier", "schema_strictness", "overflow", "enums"))
    return Case(build(tmp, {"module.yaml": text}), "M001", "module.yaml", *pos(text, "name:"))


def m002(tmp: Path) -> Case:
    text = manifest(version="1.0")
    return Case(build(tmp, {"module.yaml": text}), "M002", "module.yaml", *pos(text, "'1.0'"))


def m002_number(tmp: Path) -> Case:
    text = manifest(drop=("version",), extra="version: 1.0\n")
    return Case(build(tmp, {"module.yaml": text}), "M002", "module.yaml", *pos(text, "1.0", "version: "))


def m003(tmp: Path) -> Case:
    text = manifest(tier="bogus")
    return Case(build(tmp, {"module.yaml": text}), "M003", "module.yaml", *pos(text, "bogus"))


def m004(tmp: Path) -> Case:
    text = manifest(schema_strictness="extreme")
    return Case(build(tmp, {"module.yaml": text}), "M004", "module.yaml", *pos(text, "extreme"))


def m005(tmp: Path) -> Case:
    text = manifest(enums={"strategy": "loose"})
    return Case(build(tmp, {"module.yaml": text}), "M005", "module.yaml", *pos(text, "loose"))


def m006(tmp: Path) -> Case:
    text = manifest(excludes=[])
    return Case(build(tmp, {"module.yaml": text}), "M006", "module.yaml", *pos(text, "[]", "excludes:"))


def m007(tmp: Path) -> Case:
    text = manifest(name=12345)
    return Case(build(tmp, {"module.yaml": text}), "M007", "module.yaml", *pos(text, "12345"))


def m007_mapping(tmp: Path) -> Case:
    text = manifest(policies=["network"])
    return Case(build(tmp, {"module.yaml": text}), "M007", "module.yaml", *pos(text, "- network", "policies:"))


def m008(tmp: Path) -> Case:
    text = manifest(extra="colour: blue\n")
    return Case(build(tmp, {"module.yaml": text}), "M008", "module.yaml", *pos(text, "colour"))


def m009(tmp: Path) -> Case:
    text = manifest(name="other-name")
    return Case(build(tmp, {"module.yaml": text}), "M009", "module.yaml", *pos(text, "other-name"))


def m010(tmp: Path) -> Case:
    text = manifest(response={"mode": "turbo"})
    return Case(build(tmp, {"module.yaml": text}), "M010", "module.yaml", *pos(text, "turbo"))


def m010_chunk(tmp: Path) -> Case:
    text = manifest(response={"mode": "streaming", "chunk_type": "blob"})
    return Case(build(tmp, {"module.yaml": text}), "M010", "module.yaml", *pos(text, "blob"))


def m011(tmp: Path) -> Case:
    text = manifest(modalities={"input": ["text", "smell"]})
    return Case(build(tmp, {"module.yaml": text}), "M011", "module.yaml", *pos(text, "smell"))


def m012(tmp: Path) -> Case:
    text = manifest(context="sideways")
    return Case(build(tmp, {"module.yaml": text}), "M012", "module.yaml", *pos(text, "sideways"))


def m013(tmp: Path) -> Case:
    text = manifest(error_codes={"E5001": "fine", "E1001": "taken by the spec"})
    return Case(build(tmp, {"module.yaml": text}), "M013", "module.yaml", *pos(text, "E1001"))


def m014(tmp: Path) -> Case:
    return Case(make_module(tmp, clean_v0()), "M014", "module.md", 1, 1)


def m015(tmp: Path) -> Case:
    text = manifest(overflow={"enabled": True, "max_items": -1})
    return Case(build(tmp, {"module.yaml": text}), "M015", "module.yaml", *pos(text, "-1"))


def m016(tmp: Path) -> Case:
    text = manifest(policies={"network": "maybe"})
    return Case(build(tmp, {"module.yaml": text}), "M016", "module.yaml", *pos(text, "maybe"))


def m020(tmp: Path) -> Case:
    text = manifest(failure={"contract": "exceptions"})
    return Case(build(tmp, {"module.yaml": text}), "M020", "module.yaml", *pos(text, "exceptions"))


def m021(tmp: Path) -> Case:
    text = manifest(runtime_requirements={"structured_output": True})
    plain = ("plain", {"capabilities": {"streaming": True, "structured_output": False, "features": ["streaming"]}})
    return Case(
        build(tmp, {"module.yaml": text}),
        "M021",
        "module.yaml",
        *pos(text, "true", "structured_output"),
        provider=plain,
    )


# ---------------------------------------------------------------- schemas


def s001(tmp: Path) -> Case:
    s = schema()
    s["data"]["properties"]["rationale"] = {"type": "strin"}
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S001", "schema.json", *pos(text, '"strin"'))


def s002(tmp: Path) -> Case:
    s = schema()
    s["data"]["properties"]["extensions"] = {"$ref": "#/$defs/nope"}
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S002", "schema.json", *pos(text, '"#/$defs/nope"'))


def s003(tmp: Path) -> Case:
    text = manifest(extra="io:\n  input: ./schema.json#/nothing\n")
    return Case(build(tmp, {"module.yaml": text}), "S003", "module.yaml", *pos(text, "./schema.json#/nothing"))


def s003_missing_file(tmp: Path) -> Case:
    text = manifest(extra="io:\n  data: ./data.schema.json\n")
    return Case(build(tmp, {"module.yaml": text}), "S003", "module.yaml", *pos(text, "./data.schema.json"))


def s004(tmp: Path) -> Case:
    s = schema()
    del s["input"]
    return Case(build(tmp, {"schema.json": schema_text(s)}), "S004", "schema.json", 1, 1)


def s005(tmp: Path) -> Case:
    s = schema()
    del s["data"]
    return Case(build(tmp, {"schema.json": schema_text(s)}), "S005", "schema.json", 1, 1)


def s006(tmp: Path) -> Case:
    s = schema(output={"type": "object"})
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S006", "schema.json", *pos(text, "{", '"output": '))


def s007(tmp: Path) -> Case:
    s = schema()
    s["data"]["properties"]["extensions"] = {"$ref": "https://example.com/ext.json"}
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S007", "schema.json", *pos(text, '"https://example.com/ext.json"'))


def s007_outside(tmp: Path) -> Case:
    s = schema()
    s["data"]["properties"]["extensions"] = {"$ref": "../outside.json#/x"}
    (tmp / "outside.json").write_text('{"x": {}}')
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S007", "schema.json", *pos(text, '"../outside.json#/x"'))


def s001_regex(tmp: Path) -> Case:
    s = schema()
    s["input"]["properties"]["code"] = {"type": "string", "pattern": "([a-z]"}
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S001", "schema.json", *pos(text, '"([a-z]"'))


def s008(tmp: Path) -> Case:
    s = schema()
    s["input"]["properties"]["code"] = {"type": "string", "pattern": "(a+)+$"}
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S008", "schema.json", *pos(text, '"(a+)+$"'))


def s008_pattern_properties(tmp: Path) -> Case:
    s = schema()
    s["input"]["patternProperties"] = {"^(\\w+\\s?)*$": {"type": "string"}}
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S008", "schema.json", *pos(text, "{", '"^(\\\\w+\\\\s?)*$": '))


def s009(tmp: Path) -> Case:
    s = schema()
    s.pop("$schema", None)
    s["input"]["properties"]["box"] = {"type": "array", "prefixItems": [{"type": "integer"}]}
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "S009", "schema.json", *pos(text, "[", '"prefixItems": '))


def s010(tmp: Path) -> Case:
    # Located at the missing file itself, like a missing prompt.md (P003): no line, no column (FMT-17).
    text = manifest(drop=("io",))
    return Case(build(tmp, {"module.yaml": text, "schema.json": None}), "S010", "schema.json", None, None)


# ---------------------------------------------------------------- the v2.2 contract


def v000(tmp: Path) -> Case:
    text = manifest(drop=("tier", "schema_strictness", "overflow", "enums"))
    s = schema()
    del s["meta"]
    root = build(tmp, {"module.yaml": text, "schema.json": schema_text(s)})
    return Case(root, "V000", "module.yaml", *pos(text, "name:"), v22=True)


def v001(tmp: Path) -> Case:
    s = schema()
    del s["meta"]
    return Case(build(tmp, {"schema.json": schema_text(s)}), "V001", "schema.json", 1, 1)


def v002(tmp: Path) -> Case:
    s = schema()
    s["meta"]["required"] = ["confidence", "risk"]
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "V002", "schema.json", *pos(text, "[", '"meta": {', '"required": '))


def v003(tmp: Path) -> Case:
    s = schema()
    s["meta"]["properties"]["explain"]["maxLength"] = 500
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "V003", "schema.json", *pos(text, "{", '"meta": {', '"explain": '))


def v004(tmp: Path) -> Case:
    s = schema()
    s["data"]["required"] = ["label"]
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "V004", "schema.json", *pos(text, "[", '"data": {', '"required": '))


def v005(tmp: Path) -> Case:
    return Case(build(tmp, {"prompt.md": "# Classify\n\nReturn the label.\n"}), "V005", "prompt.md", 1, 1)


def v006(tmp: Path) -> Case:
    text = manifest(overflow={"enabled": True, "recoverable": True, "max_items": 3, "require_suggested_mapping": True})
    sch = schema_text(SCHEMA_V22)
    root = build(tmp, {"module.yaml": text, "schema.json": sch})
    return Case(root, "V006", "schema.json", *pos(sch, "{", '"data": {', '"extensions": '))


def v007(tmp: Path) -> Case:
    text = manifest(overflow={"enabled": True, "recoverable": True, "max_items": 5, "require_suggested_mapping": False})
    sch = schema_text(SCHEMA_V22)
    root = build(tmp, {"module.yaml": text, "schema.json": sch})
    return Case(root, "V007", "schema.json", *pos(sch, "{", '"data": {', '"extensions": '))


def v008(tmp: Path) -> Case:
    text = manifest(schema_strictness="low")
    return Case(build(tmp, {"module.yaml": text}), "V008", "module.yaml", *pos(text, "low", "schema_strictness: "))


def v009(tmp: Path) -> Case:
    s = schema()
    del s["data"]["properties"]["extensions"]
    text = schema_text(s)
    return Case(build(tmp, {"schema.json": text}), "V009", "schema.json", *pos(text, "{", '"data": '))


def v010(tmp: Path) -> Case:
    text = manifest(enums={"strategy": "strict"})
    sch = schema_text(SCHEMA_V22)
    root = build(tmp, {"module.yaml": text, "schema.json": sch})
    return Case(root, "V010", "schema.json", *pos(sch, "{", '"data": {', '"oneOf": [', "},"))


def v011(tmp: Path) -> Case:
    text = manifest(drop=("overflow", "enums"))
    return Case(
        build(tmp, {"module.yaml": text}), "V011", "module.yaml", 2, 1, v22=True
    )  # the mapping starts on line 2


# ---------------------------------------------------------------- golden tests and examples


def t001(tmp: Path) -> Case:
    text = '{\n  "text": 31337\n}\n'
    return Case(build(tmp, {"tests/case1.input.json": text}), "T001", "tests/case1.input.json", *pos(text, "31337"))


def t002(tmp: Path) -> Case:
    exp = copy.deepcopy(mapping_in(clean_v22(), "tests/case1.expected.json"))
    exp["meta"]["confidence"] = 1.5
    text = json.dumps(exp, indent=2)
    # Stale test data in a v2.x module: a warning (an error with --strict, tests/test_realworld_modules.py).
    return Case(
        build(tmp, {"tests/case1.expected.json": text}),
        "T002",
        "tests/case1.expected.json",
        *pos(text, "1.5"),
        severity=Severity.WARNING,
    )


def t003(tmp: Path) -> Case:
    exp = copy.deepcopy(mapping_in(clean_v22(), "tests/case1.expected.json"))
    exp["data"]["label"] = 12345
    text = json.dumps(exp, indent=2)
    return Case(
        build(tmp, {"tests/case1.expected.json": text}),
        "T003",
        "tests/case1.expected.json",
        *pos(text, "12345"),
        severity=Severity.WARNING,
    )


def t004(tmp: Path) -> Case:
    entry = "tests/case1.input.json -> tests/missing.expected.json"
    text = manifest(tests=[entry])
    return Case(build(tmp, {"module.yaml": text}), "T004", "module.yaml", *pos(text, entry))


def t005(tmp: Path) -> Case:
    entry = "../evil.input.json -> tests/case1.expected.json"
    (tmp / "evil.input.json").write_text("{}")
    text = manifest(tests=[entry])
    return Case(build(tmp, {"module.yaml": text}), "T005", "module.yaml", *pos(text, entry))


def t006(tmp: Path) -> Case:
    text = manifest(tests=["tests/case1.input.json -> tests/case1.expected.json", "just one file"])
    return Case(build(tmp, {"module.yaml": text}), "T006", "module.yaml", *pos(text, "just one file"))


def t007(tmp: Path) -> Case:
    text = manifest(drop=("tests",))
    files = {"module.yaml": text, "tests/case1.input.json": None, "tests/case1.expected.json": None}
    return Case(build(tmp, files), "T007", "module.yaml", *pos(text, "name:"))


def t008(tmp: Path) -> Case:
    return Case(build(tmp, {"tests/extra.input.json": {"text": "x"}}), "T008", "tests/extra.input.json", 1, 1)


def t009(tmp: Path) -> Case:
    exp = copy.deepcopy(mapping_in(clean_v22(), "tests/case1.expected.json"))
    exp["$judge"] = {"rubric": "Calls the ticket a bug.", "pass_score": 7}
    text = json.dumps(exp, indent=2)
    return Case(build(tmp, {"tests/case1.expected.json": text}), "T009", "tests/case1.expected.json", *pos(text, "7"))


# ---------------------------------------------------------------- the prompt (run/prompt_lint.py, through check_path)

PROMPT = text_in(clean_v22(), "prompt.md")


def r001(tmp: Path) -> Case:
    text = PROMPT + "\n## Input\n\n- `text`: the ticket.\n- `ticket_text` (optional): renamed since.\n"
    return Case(build(tmp, {"prompt.md": text}), "R001", "prompt.md", *pos(text, "ticket_text"))


def r002(tmp: Path) -> Case:
    text = PROMPT.replace("Classify the ticket in `text`.", "Classify the ticket.")
    sch = schema_text(SCHEMA_V22)
    root = build(tmp, {"prompt.md": text, "schema.json": sch})
    return Case(root, "R002", "schema.json", *pos(sch, '"text"', '"input": {', '"properties": '))


def r003(tmp: Path) -> Case:
    text = PROMPT + "\nAsk the expert first: @call:no-such-module($ARGUMENTS)\n"
    return Case(build(tmp, {"prompt.md": text}), "R003", "prompt.md", *pos(text, "@call:no-such-module"))


def r004(tmp: Path) -> Case:
    text = manifest(runtime_requirements={"max_input_tokens": 12})
    return Case(build(tmp, {"module.yaml": text}), "R004", "module.yaml", *pos(text, "12", "max_input_tokens"))


def l001(tmp: Path) -> Case:
    files = clean_v1()
    mapping_in(files, "schema.json")["output"]["required"] = ["summary", "rationale"]
    text = schema_text(mapping_in(files, "schema.json"))
    files["schema.json"] = text
    files["examples/output.json"] = {"summary": "Short", "rationale": "Because"}
    return Case(make_module(tmp, files), "L001", "schema.json", *pos(text, "[", '"output": {', '"required": '))


def l002(tmp: Path) -> Case:
    files = clean_v1()
    mapping_in(files, "schema.json")["output"]["required"] = ["summary", "confidence"]
    text = schema_text(mapping_in(files, "schema.json"))
    files["schema.json"] = text
    return Case(make_module(tmp, files), "L002", "schema.json", *pos(text, "[", '"output": {', '"required": '))


def l003(tmp: Path) -> Case:
    files = clean_v1()
    text = '{"summary": 424242, "rationale": "Because", "confidence": 0.8}'
    files["examples/output.json"] = text
    return Case(make_module(tmp, files), "L003", "examples/output.json", *pos(text, "424242"))


BUILDERS: list[Callable[[Path], Case]] = [
    p001,
    p001_frontmatter,
    p002,
    p003,
    p003_v0,
    p004,
    p004_manifest,
    p005,
    p006,
    p007,
    p007_frontmatter,
    p008,
    p008_schema,
    f001,
    f001_golden,
    f002,
    f003,
    f004,
    m001,
    m001_tier,
    m002,
    m002_number,
    m003,
    m004,
    m005,
    m006,
    m007,
    m007_mapping,
    m008,
    m009,
    m010,
    m010_chunk,
    m011,
    m012,
    m013,
    m014,
    m015,
    m016,
    m020,
    m021,
    s001,
    s002,
    s003,
    s003_missing_file,
    s004,
    s005,
    s006,
    s007,
    s007_outside,
    s001_regex,
    s008,
    s008_pattern_properties,
    s009,
    s010,
    v000,
    v001,
    v002,
    v003,
    v004,
    v005,
    v006,
    v007,
    v008,
    v009,
    v010,
    v011,
    t001,
    t002,
    t003,
    t004,
    t005,
    t006,
    t007,
    t008,
    t009,
    r001,
    r002,
    r003,
    r004,
    l001,
    l002,
    l003,
]


def _code_of(builder: Callable[[Path], Case]) -> str:
    return builder.__name__.split("_")[0].upper()


def assert_positions_sane(diags: list[Diagnostic]) -> None:
    """Null line/column only for a file that does not exist; 1-based positions everywhere else."""
    for d in diags:
        if d.file is None or not d.file.exists():
            assert (d.line, d.column) == (None, None), d
        else:
            assert isinstance(d.line, int) and d.line >= 1, d
            assert isinstance(d.column, int) and d.column >= 1, d


@pytest.mark.parametrize("builder", BUILDERS, ids=lambda b: b.__name__)
def test_diagnostic(builder: Callable[[Path], Case], tmp_path: Path) -> None:
    case = builder(tmp_path)
    assert case.code == _code_of(builder)
    module = load_module(case.root)
    if case.code.startswith("R"):  # the prompt's lint runs with validate's other rules in check_path (workspace.py)
        diags = check_path(case.root, v22=case.v22, provider=case.provider).diagnostics
    else:
        diags = validate_module(module, v22=case.v22, provider=case.provider)
    severity = case.severity or CATALOGUE[case.code].severity
    found = [d for d in diags if d.code == case.code]
    assert found, f"{case.code} not reported; got {[(d.code, d.message) for d in diags]}"
    want = (severity, case.root / case.file, case.line, case.column)
    got = [(d.severity, d.file, d.line, d.column) for d in found]
    assert want in got, f"expected {want}, got {got}"
    assert_positions_sane(diags)


def test_table_covers_catalogue() -> None:
    covered = {_code_of(b) for b in BUILDERS}
    assert set(CATALOGUE) - covered == set(), "codes without a builder"
    assert covered - set(CATALOGUE) == set(), "builders for codes not in CATALOGUE"


# ---------------------------------------------------------------- whole-module properties


@pytest.mark.parametrize("strict", [False, True])
def test_clean_v22_has_no_diagnostics(tmp_path: Path, strict: bool) -> None:
    _, diags = validate_path(make_module(tmp_path, clean_v22()), v22=strict)
    assert diags == []


def test_clean_v1_has_no_diagnostics_without_v22(tmp_path: Path) -> None:
    _, diags = validate_path(make_module(tmp_path, clean_v1()))
    assert diags == []


@pytest.mark.parametrize("files", [clean_v1, clean_v0], ids=["v1", "v0"])
def test_v22_flags_legacy_formats(tmp_path: Path, files: Callable[[], dict[str, Any]]) -> None:
    root = make_module(tmp_path, files())
    _, lax = validate_path(root)
    _, strict = validate_path(root, v22=True)
    assert "V000" not in {d.code for d in lax}
    v000 = [d for d in strict if d.code == "V000"]
    assert len(v000) == 1 and v000[0].severity is Severity.ERROR


def test_v22_flags_v21(tmp_path: Path) -> None:
    case = v000(tmp_path)
    module = load_module(case.root)
    assert module.format.value == "v2.1"
    assert "V000" not in {d.code for d in validate_module(module)}


def test_v22_raises_the_prompt_check_to_an_error(tmp_path: Path) -> None:
    """Checklist item 3 (prompt.md describes the envelope) is an error with --v22 (FMT-14)."""
    case = v005(tmp_path)
    module = load_module(case.root)
    lax = [d for d in validate_module(module) if d.code == case.code]
    strict = [d for d in validate_module(module, v22=True) if d.code == case.code]
    assert lax and all(d.severity is Severity.WARNING for d in lax)
    assert strict and all(d.severity is Severity.ERROR for d in strict)
    assert [(d.file, d.line, d.column) for d in lax] == [(d.file, d.line, d.column) for d in strict]


@pytest.mark.parametrize("builder", [v006, v007, v008, v009, v010], ids=lambda b: b.__name__)
def test_v22_keeps_checks_outside_the_checklist_warnings(builder: Callable[[Path], Case], tmp_path: Path) -> None:
    """--v22 errors exactly on the five checklist items; V006-V010 stay warnings (FMT-14)."""
    case = builder(tmp_path)
    strict = [d for d in validate_module(load_module(case.root), v22=True) if d.code == case.code]
    assert strict and all(d.severity is Severity.WARNING for d in strict)


def test_v22_keeps_other_severities(tmp_path: Path) -> None:
    """--v22 touches only V005-V010: an M-code warning stays a warning."""
    case = m009(tmp_path)
    strict = [d for d in validate_module(load_module(case.root), v22=True) if d.code == "M009"]
    assert strict and strict[0].severity is Severity.WARNING


def test_diagnostics_are_sorted_and_unique(tmp_path: Path) -> None:
    text = manifest(tier="bogus", schema_strictness="extreme", extra="colour: blue\n")
    _, diags = validate_path(build(tmp_path, {"module.yaml": text, "prompt.md": "nothing"}))
    assert diags == sorted(diags, key=Diagnostic.sort_key)
    keys = [(d.code, d.message, d.file, d.line, d.column) for d in diags]
    assert len(keys) == len(set(keys))


def test_missing_prompt_has_null_position_and_the_rest_positions(tmp_path: Path) -> None:
    root = build(tmp_path, {"prompt.md": None, "schema.json": None})
    _, diags = validate_path(root)
    missing = {d.file.name for d in diags if d.code == "P003" and d.file is not None}
    assert missing == {"prompt.md"}  # schema.json is optional in v2 (io refs may point elsewhere)
    assert_positions_sane(diags)


def test_to_json_shape(tmp_path: Path) -> None:
    case = m003(tmp_path)
    _, diags = validate_path(case.root)
    d = next(d for d in diags if d.code == "M003").to_json()
    assert set(d) == {"severity", "code", "message", "file", "line", "column", "hint"}
    assert d["severity"] == "error" and d["file"] == str(case.root / "module.yaml")
    assert (d["line"], d["column"]) == (case.line, case.column)
    json.dumps(d)


def test_m016_unknown_constraint_is_info_when_boolean(tmp_path: Path) -> None:
    files = clean_v1()
    text = text_in(files, "MODULE.md").replace(
        "no_network: true", "no_network: true\n  fly_to_moon: true\n  no_side_effects: sometimes"
    )
    files["MODULE.md"] = text
    _, diags = validate_path(make_module(tmp_path, files))
    m016 = {(d.line, d.column): d.severity for d in diags if d.code == "M016"}
    assert m016 == {pos(text, "true", "fly_to_moon: "): Severity.INFO, pos(text, "sometimes"): Severity.WARNING}


def test_context_forms(tmp_path: Path) -> None:
    for i, (value, expected, bad) in enumerate(
        [
            ("fork", "fork", False),
            ({"mode": "fork"}, "fork", False),
            ({"mode": "main"}, "main", False),
            ("sideways", "main", True),
            ({"mode": "x"}, "main", True),
        ]
    ):
        root = build(tmp_path / str(i), {"module.yaml": manifest(context=value)})
        module = load_module(root)
        assert module.context == expected
        assert ("M012" in {d.code for d in validate_module(module)}) is bad


def test_nul_bytes_in_paths_are_diagnostics(tmp_path: Path) -> None:
    """A NUL byte cannot be in a file name: refs and test paths holding one are reported, not raised."""
    s = schema()
    s["data"]["properties"]["extensions"] = {"$ref": "ext\u0000.json#/x"}
    text = manifest(tests=["tests/case1.input.json -> tests/\x00.expected.json"], extra='io:\n  error: "./e\\0.json"\n')
    _, diags = validate_path(build(tmp_path, {"schema.json": schema_text(s), "module.yaml": text}))
    codes = {(d.code, d.file.name if d.file else None) for d in diags}
    assert {("S002", "schema.json"), ("T004", "module.yaml"), ("S003", "module.yaml")} <= codes
    assert_positions_sane(diags)


def test_impossible_file_names_are_diagnostics(tmp_path: Path) -> None:
    """Names over the OS limit (ENAMETOOLONG) in tests and io refs are reported as missing files."""
    long = "x" * 300
    text = manifest(
        tests=[f"tests/case1.input.json -> tests/{long}.expected.json"], extra=f"io:\n  error: ./{long}.json\n"
    )
    files = {"module.yaml": text, f"tests/{'y' * 243}.input.json": {"text": "x"}}  # its .expected.json is too long
    _, diags = validate_path(build(tmp_path, files))
    codes = {(d.code, d.file.name if d.file else None) for d in diags}
    assert {("T004", "module.yaml"), ("S003", "module.yaml"), ("T008", f"{'y' * 243}.input.json")} <= codes
    assert_positions_sane(diags)
