"""load_module: every format into the one normalized, immutable Module."""

from __future__ import annotations

import codecs
import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from modkit import (
    GOOD_EXPECTED,
    GOOD_INPUT,
    MANIFEST_V22,
    SCHEMA_V22,
    FileContent,
    clean_v0,
    clean_v1,
    clean_v22,
    make_module,
    mapping_in,
    pos,
)

from cogtui.core.diagnostics import Severity
from cogtui.core.module.loader import NotAModule, is_module_dir, load_module
from cogtui.core.module.model import UNPARSED, ModuleFormat
from cogtui.core.module.schemas import schemas_for
from cogtui.core.records import FrozenInstanceError
from cogtui.core.rules.validate_module import validate_module

# SPEC-v2.2 §1.4, verbatim.
SPEC_V22_MANIFEST = """\
# Cognitive Module Manifest v2.2
name: code-simplifier
version: 2.2.0
responsibility: Simplify code while preserving behavior

# 模块分级
tier: decision
schema_strictness: medium

# 明确排除项
excludes:
  - changing observable behavior
  - adding new features
  - removing functionality
  - executing code
  - writing files

# 运行时策略
policies:
  network: deny
  filesystem_write: deny
  side_effects: deny
  code_execution: deny

# 工具策略
tools:
  policy: deny_by_default
  allowed: []
  denied:
    - write_file
    - shell
    - network
    - code_interpreter

# 溢出策略
overflow:
  enabled: true
  recoverable: true
  max_items: 5
  require_suggested_mapping: true

# Enum 策略
enums:
  strategy: extensible

# 失败契约
failure:
  contract: error_union
  partial_allowed: true
  must_return_error_schema: true

# 运行时要求
runtime_requirements:
  structured_output: true
  max_input_tokens: 8000
  preferred_capabilities:
    - json_mode
    - long_context

# IO Schemas
io:
  input: ./schema.json#/input
  data: ./schema.json#/data
  meta: ./schema.json#/meta
  error: ./schema.json#/error

# 兼容性配置
compat:
  accepts_v21_payload: true
  runtime_auto_wrap: true
  schema_output_alias: data  # 允许 schema 用 "output" 或 "data"

# 测试用例
tests:
  - tests/case1.input.json -> tests/case1.expected.json
  - tests/case2.input.json -> tests/case2.expected.json
"""

# SPEC-v2.5 §2.2, verbatim.
SPEC_V25_MANIFEST = """\
# module.yaml - v2.5 格式
name: image-analyzer
version: 2.5.0
responsibility: 分析图像并提供结构化见解

# === 分级（与 v2.2 相同）===
tier: decision  # exec | decision | exploration

# === v2.5: 响应模式 ===
response:
  mode: streaming      # sync（默认）| streaming | both
  chunk_type: delta    # delta | snapshot
  buffer_size: 1024    # 刷新前的字节数（可选）

# === v2.5: 模态 ===
modalities:
  input:
    - text             # 始终支持
    - image            # JPEG、PNG、WebP、GIF
    - audio            # MP3、WAV、OGG（可选）
    - video            # MP4、WebM（可选）
  output:
    - text             # 始终支持
    - image            # 可生成图像

# === 现有 v2.2 字段 ===
schema_strictness: medium

excludes:
  - 修改原始媒体
  - 存储用户数据

overflow:
  enabled: true
  max_items: 10

enums:
  strategy: extensible

policies:
  tools_allowed: false
  network_allowed: false

compat:
  accepts_v22_payload: true
  runtime_auto_wrap: true
"""


def v22_with(tmp: Path, files: Mapping[str, FileContent], name: str = "mod") -> Path:
    f = clean_v22()
    f.update(files)
    return make_module(tmp, f, name)


# ---------------------------------------------------------------- formats


def test_v0_six_file_layout(tmp_path: Path) -> None:
    m = load_module(make_module(tmp_path, clean_v0()))
    assert m.format is ModuleFormat.V0 and m.format.deprecated and m.format.badge == "v0, deprecated"
    assert (m.name, m.version, m.responsibility) == ("mod", "0.1.0", "Old style module")
    assert m.excludes == ("anything else",)
    assert m.prompt == "Do the thing with $ARGUMENTS\n"
    assert m.schemas.input == clean_v0()["input.schema.json"]
    assert m.schemas.data == clean_v0()["output.schema.json"]
    assert m.schemas.data_key == "output" and m.schemas.meta is None
    assert m.constraints == {"no_network": True, "no_side_effects": True}
    assert m.files is not None
    assert m.files.input_schema == m.path / "input.schema.json"
    assert m.files.output_schema == m.path / "output.schema.json"
    assert m.files.constraints == m.path / "constraints.yaml"
    assert m.files.prompt == m.path / "prompt.txt"
    [ex] = m.examples
    assert ex.input == {"text": "x"} and ex.output["result"] == "y"
    m014 = [d for d in m.load_diagnostics if d.code == "M014"]
    assert len(m014) == 1
    assert (m014[0].severity, m014[0].file, m014[0].line, m014[0].column) == (
        Severity.WARNING,
        m.path / "module.md",
        1,
        1,
    )


def test_v0_plain_yaml_module_md_and_wrapped_constraints(tmp_path: Path) -> None:
    files = clean_v0()
    files["module.md"] = "name: mod\nversion: 0.2.0\nresponsibility: Plain YAML\nexcludes: [x]\n"
    files["constraints.yaml"] = "constraints:\n  no_network: true\n"
    m = load_module(make_module(tmp_path, files))
    assert m.format is ModuleFormat.V0
    assert m.version == "0.2.0"
    assert m.constraints == {"no_network": True}
    assert {d.code for d in m.load_diagnostics} == {"M014"}


def test_v1_module_md_and_schema(tmp_path: Path) -> None:
    m = load_module(make_module(tmp_path, clean_v1()))
    assert m.format is ModuleFormat.V1 and m.format.deprecated  # as `cogn validate` notes: migrate it (issue 30)
    assert (m.name, m.version, m.responsibility) == ("mod", "1.0.0", "Summarise text")
    assert m.excludes == ("inventing facts",)
    assert m.constraints == {"no_network": True}
    assert m.invocation == {"user_invocable": True}
    assert m.context == "fork"
    assert m.prompt.startswith("# Summariser") and "$ARGUMENTS" in m.prompt
    assert "---" not in m.prompt
    assert m.schemas.data_key == "output"
    assert m.schemas.data == mapping_in(clean_v1(), "schema.json")["output"]
    assert m.schemas.input == mapping_in(clean_v1(), "schema.json")["input"]
    assert m.policy_denies("network")
    [ex] = m.examples
    assert ex.name == "example" and ex.output["confidence"] == 0.8
    assert m.load_diagnostics == ()


def test_v1_missing_schema_is_p003(tmp_path: Path) -> None:
    files = clean_v1()
    files["schema.json"] = None
    m = load_module(make_module(tmp_path, files))
    [d] = [d for d in m.load_diagnostics if d.code == "P003"]
    assert d.file == m.path / "schema.json" and d.line is None


def test_v21(tmp_path: Path) -> None:
    man = {k: v for k, v in MANIFEST_V22.items() if k not in ("tier", "schema_strictness", "overflow", "enums")}
    sch = {k: v for k, v in SCHEMA_V22.items() if k != "meta"}
    m = load_module(v22_with(tmp_path, {"module.yaml": man, "schema.json": sch}))
    assert m.format is ModuleFormat.V2_1 and m.format.is_v2 and not m.format.has_envelope_contract


def test_v22_spec_example_fields(tmp_path: Path) -> None:
    root = v22_with(tmp_path, {"module.yaml": SPEC_V22_MANIFEST}, "code-simplifier")
    m = load_module(root)
    assert m.format is ModuleFormat.V2_2
    assert (m.name, m.version, m.responsibility) == (
        "code-simplifier",
        "2.2.0",
        "Simplify code while preserving behavior",
    )
    assert m.tier == "decision"
    assert m.contract.schema_strictness.value == "medium" and m.contract.schema_strictness.explicit
    assert m.excludes == (
        "changing observable behavior",
        "adding new features",
        "removing functionality",
        "executing code",
        "writing files",
    )
    assert m.policies == {
        "network": "deny",
        "filesystem_write": "deny",
        "side_effects": "deny",
        "code_execution": "deny",
    }
    assert m.tools == {
        "policy": "deny_by_default",
        "allowed": [],
        "denied": ["write_file", "shell", "network", "code_interpreter"],
    }
    assert m.overflow == {"enabled": True, "recoverable": True, "max_items": 5, "require_suggested_mapping": True}
    assert m.enums == {"strategy": "extensible"}
    assert m.failure == {"contract": "error_union", "partial_allowed": True, "must_return_error_schema": True}
    assert m.runtime_requirements["max_input_tokens"] == 8000
    assert m.runtime_requirements["preferred_capabilities"] == ["json_mode", "long_context"]
    assert m.io == {
        "input": "./schema.json#/input",
        "data": "./schema.json#/data",
        "meta": "./schema.json#/meta",
        "error": "./schema.json#/error",
    }
    assert m.compat == {"accepts_v21_payload": True, "runtime_auto_wrap": True, "schema_output_alias": "data"}
    assert m.tests_declared == (
        "tests/case1.input.json -> tests/case1.expected.json",
        "tests/case2.input.json -> tests/case2.expected.json",
    )
    assert m.policy_denies("network") and not m.policy_allows("network")
    assert m.schemas.meta == SCHEMA_V22["meta"] and m.schemas.error == SCHEMA_V22["error"]


def test_v25_spec_example_fields(tmp_path: Path) -> None:
    m = load_module(v22_with(tmp_path, {"module.yaml": SPEC_V25_MANIFEST}, "image-analyzer"))
    assert m.format is ModuleFormat.V2_5 and m.format.has_envelope_contract
    assert m.response == {"mode": "streaming", "chunk_type": "delta", "buffer_size": 1024}
    assert m.modalities == {"input": ["text", "image", "audio", "video"], "output": ["text", "image"]}
    assert m.input_modalities == ("text", "image", "audio", "video")
    assert m.policies == {"tools_allowed": False, "network_allowed": False}
    assert m.policy_denies("network") and m.policy_denies("tools")
    assert m.contract.response_mode.value == "streaming" and m.contract.response_mode.explicit
    assert m.contract.response_chunk_type.value == "delta" and m.contract.response_chunk_type.explicit
    assert m.contract.overflow_max_items.value == 10 and m.contract.overflow_max_items.explicit
    assert m.compat == {"accepts_v22_payload": True, "runtime_auto_wrap": True}
    assert m.responsibility == "分析图像并提供结构化见解"


def test_v25_error_codes_forms(tmp_path: Path) -> None:
    for i, codes in enumerate([{"E5001": "x", "E5002": "y"}, ["E5001", {"code": "E5002", "message": "y"}]]):
        man = copy.deepcopy(MANIFEST_V22)
        man["error_codes"] = codes
        m = load_module(v22_with(tmp_path / str(i), {"module.yaml": man}))
        assert m.declared_error_codes == {"E5001", "E5002"}


@pytest.mark.parametrize(
    ("changes", "drop_meta", "expected"),
    [
        ({}, True, ModuleFormat.V2_1),
        ({"tier": "exec"}, True, ModuleFormat.V2_2),
        ({"overflow": {"enabled": False}}, True, ModuleFormat.V2_2),
        ({"enums": {"strategy": "strict"}}, True, ModuleFormat.V2_2),
        ({}, False, ModuleFormat.V2_2),  # a meta schema alone makes it v2.2
        ({"response": {"mode": "sync"}}, True, ModuleFormat.V2_5),
        ({"modalities": {"input": ["text"]}}, True, ModuleFormat.V2_5),
        ({"tier": "exec", "response": {"mode": "sync"}}, False, ModuleFormat.V2_5),
    ],
)
def test_format_detection(tmp_path: Path, changes: dict[str, Any], drop_meta: bool, expected: ModuleFormat) -> None:
    man = {k: v for k, v in MANIFEST_V22.items() if k not in ("tier", "schema_strictness", "overflow", "enums")}
    man.update(changes)
    sch = {k: v for k, v in SCHEMA_V22.items() if not (drop_meta and k == "meta")}
    assert load_module(v22_with(tmp_path, {"module.yaml": man, "schema.json": sch})).format is expected


def test_manifest_precedence(tmp_path: Path) -> None:
    both = clean_v22()
    both["MODULE.md"] = clean_v1()["MODULE.md"]
    assert load_module(make_module(tmp_path / "a", both)).format is ModuleFormat.V2_2
    v1_and_v0 = clean_v1()
    v1_and_v0["module.md"] = clean_v0()["module.md"]
    assert load_module(make_module(tmp_path / "b", v1_and_v0)).format is ModuleFormat.V1


@pytest.mark.parametrize("name", ["Module.md", "MODULE.MD", "Module.yaml", "MODULE.yaml", "module.yml", "README.md"])
def test_manifest_names_are_exact_case(tmp_path: Path, name: str) -> None:
    root = make_module(tmp_path, {name: "---\nname: mod\n---\n", "schema.json": {}})
    assert not is_module_dir(root)
    with pytest.raises(NotAModule):
        load_module(root)


def test_not_a_module(tmp_path: Path) -> None:
    with pytest.raises(NotAModule):
        load_module(tmp_path)  # empty folder
    with pytest.raises(NotAModule):
        load_module(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(NotAModule):
        load_module(tmp_path / "file.txt")


def test_load_accepts_str_and_relative_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_module(tmp_path, clean_v22())
    monkeypatch.chdir(tmp_path)
    m = load_module("mod")
    assert m.path == root and m.path.is_absolute()


# ---------------------------------------------------------------- tiers


def test_tier_defaults_exec(tmp_path: Path) -> None:
    man = {k: v for k, v in MANIFEST_V22.items() if k not in ("schema_strictness", "overflow", "enums")}
    man["tier"] = "exec"
    items = dict(load_module(v22_with(tmp_path, {"module.yaml": man})).contract.items())
    assert (items["tier"].value, items["tier"].origin) == ("exec", "explicit")
    assert (items["schema_strictness"].value, items["schema_strictness"].origin) == ("high", "tier")
    assert (items["overflow.enabled"].value, items["overflow.enabled"].origin) == (False, "tier")
    assert (items["overflow.max_items"].value, items["overflow.max_items"].origin) == (0, "tier")
    assert (items["enums.strategy"].value, items["enums.strategy"].origin) == ("strict", "tier")
    assert (items["response.mode"].value, items["response.mode"].origin) == ("sync", "tier")
    assert items["response.chunk_type"].origin == "default"


def test_tier_defaults_exploration_and_explicit_overrides(tmp_path: Path) -> None:
    man = {k: v for k, v in MANIFEST_V22.items() if k not in ("schema_strictness", "overflow", "enums")}
    man["tier"] = "exploration"
    man["overflow"] = {"max_items": 7}
    c = load_module(v22_with(tmp_path, {"module.yaml": man})).contract
    assert (c.schema_strictness.value, c.schema_strictness.origin) == ("low", "tier")
    assert (c.overflow_enabled.value, c.overflow_enabled.explicit) == (True, False)
    assert (c.overflow_max_items.value, c.overflow_max_items.origin) == (7, "explicit")
    assert (c.enum_strategy.value, c.response_mode.value) == ("extensible", "streaming")


def test_contract_items_order_and_names(tmp_path: Path) -> None:
    c = load_module(make_module(tmp_path, clean_v22())).contract
    assert [name for name, _ in c.items()] == [
        "tier",
        "schema_strictness",
        "overflow.enabled",
        "overflow.max_items",
        "overflow.recoverable",
        "overflow.require_suggested_mapping",
        "enums.strategy",
        "response.mode",
        "response.chunk_type",
    ]
    explicit = {name for name, s in c.items() if s.explicit}
    assert explicit == {
        "tier",
        "schema_strictness",
        "overflow.enabled",
        "overflow.max_items",
        "overflow.recoverable",
        "overflow.require_suggested_mapping",
        "enums.strategy",
    }


@pytest.mark.parametrize("files", [clean_v1, clean_v0], ids=["v1", "v0"])
def test_legacy_formats_get_decision_defaults(tmp_path: Path, files: Any) -> None:
    c = load_module(make_module(tmp_path, files())).contract
    assert (c.tier.value, c.tier.origin) == ("decision", "default")
    assert all(not s.explicit for _, s in c.items())
    assert c.overflow_max_items.value == 5


def test_illegal_tier_falls_back_to_default(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["tier"] = "bogus"
    man["overflow"] = {"max_items": True}  # a bool is not a count
    c = load_module(v22_with(tmp_path, {"module.yaml": man})).contract
    assert (c.tier.value, c.tier.origin) == ("decision", "default")
    assert (c.overflow_max_items.value, c.overflow_max_items.explicit) == (5, False)


# ---------------------------------------------------------------- immutability


def test_module_is_frozen(tmp_path: Path) -> None:
    m = load_module(make_module(tmp_path, clean_v22()))
    with pytest.raises(FrozenInstanceError):
        m.name = "other"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        m.schemas.input = {}  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        m.contract.tier = m.contract.tier  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        m.tests[0].input = {}  # type: ignore[misc]
    assert isinstance(m.tests, tuple) and isinstance(m.excludes, tuple) and isinstance(m.load_diagnostics, tuple)


# ---------------------------------------------------------------- schemas and io


def test_root_defs_resolve_from_every_part(tmp_path: Path) -> None:
    sch = copy.deepcopy(SCHEMA_V22)
    sch["$defs"]["text"] = {"type": "string", "minLength": 1}
    sch["$defs"]["conf"] = {"type": "number", "minimum": 0, "maximum": 1}
    sch["$defs"]["code"] = {"type": "string", "pattern": "^E[0-9]{4}$"}
    sch["input"]["properties"]["text"] = {"$ref": "#/$defs/text"}
    sch["data"]["properties"]["rationale"] = {"$ref": "#/$defs/text"}
    sch["meta"]["properties"]["confidence"] = {"$ref": "#/$defs/conf"}
    sch["error"]["properties"]["code"] = {"$ref": "#/$defs/code"}
    m = load_module(v22_with(tmp_path, {"schema.json": sch}))
    s = schemas_for(m)
    assert s.is_valid("input", {"text": "x"}) and not s.is_valid("input", {"text": ""})
    assert s.is_valid("data", {"label": "bug", "rationale": "r"}) and not s.is_valid(
        "data", {"label": "bug", "rationale": ""}
    )
    assert s.is_valid("meta", {"confidence": 0.5, "risk": "low", "explain": "e"})
    assert not s.is_valid("meta", {"confidence": 2, "risk": "low", "explain": "e"})
    assert s.is_valid("error", {"code": "E1001", "message": "m"}) and not s.is_valid(
        "error", {"code": "X", "message": "m"}
    )
    # And through the nested extensions $ref.
    bad = {"label": "bug", "rationale": "r", "extensions": {"insights": [{"text": "t"}]}}
    assert not s.is_valid("data", bad)
    assert schemas_for(m) is s  # compiled once per Module
    assert validate_module(m) == []


def test_output_is_an_alias_of_data(tmp_path: Path) -> None:
    sch = copy.deepcopy(SCHEMA_V22)
    sch["output"] = sch.pop("data")
    m = load_module(v22_with(tmp_path, {"schema.json": sch}))
    assert m.schemas.data_key == "output"
    assert m.schemas.data == SCHEMA_V22["data"]
    assert m.schemas.locations["data"] == (m.path / "schema.json", ("output",))
    assert schemas_for(m).is_valid("data", {"label": "bug", "rationale": "r"})
    assert not schemas_for(m).is_valid("data", {"label": "bug"})
    assert validate_module(m) == []


def test_data_wins_over_output(tmp_path: Path) -> None:
    sch = copy.deepcopy(SCHEMA_V22)
    sch["output"] = {"type": "string"}
    m = load_module(v22_with(tmp_path, {"schema.json": sch}))
    assert m.schemas.data_key == "data" and m.schemas.data == SCHEMA_V22["data"]


def test_io_refs_into_schema_json(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["io"] = {
        "input": "./schema.json#/input",
        "data": "./schema.json#/data",
        "meta": "./schema.json#/meta",
        "error": "./schema.json#/error",
    }
    m = load_module(v22_with(tmp_path, {"module.yaml": man}))
    for part in ("input", "data", "meta", "error"):
        assert m.schemas.locations[part] == (m.path / "schema.json", (part,))
    assert m.schemas.input == SCHEMA_V22["input"]
    assert validate_module(m) == []


def test_io_ref_to_a_separate_file(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["io"] = {"input": "./schemas/in.json#/definitions/in", "output": "./schema.json#/data"}
    sep = {
        "definitions": {
            "in": {"type": "object", "required": ["text"], "properties": {"text": {"$ref": "#/definitions/str"}}},
            "str": {"type": "string"},
        }
    }
    m = load_module(v22_with(tmp_path, {"module.yaml": man, "schemas/in.json": sep}))
    assert m.schemas.input == sep["definitions"]["in"]
    assert m.schemas.locations["input"] == (m.path / "schemas" / "in.json", ("definitions", "in"))
    assert m.schemas.data == SCHEMA_V22["data"]
    s = schemas_for(m)
    assert s.is_valid("input", {"text": "x"}) and not s.is_valid("input", {"text": 5})
    assert validate_module(m) == []


def test_io_ref_whole_file_and_escaped_pointer(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["io"] = {"input": "input.schema.json", "meta": "./schema.json#/$defs/a~1b"}
    sch = copy.deepcopy(SCHEMA_V22)
    sch["$defs"]["a/b"] = sch.pop("meta")
    m = load_module(
        v22_with(tmp_path, {"module.yaml": man, "schema.json": sch, "input.schema.json": SCHEMA_V22["input"]})
    )
    assert m.schemas.input == SCHEMA_V22["input"]
    assert m.schemas.meta == SCHEMA_V22["meta"]
    assert not [d for d in m.load_diagnostics if d.code == "S003"]


def test_io_ref_outside_module_is_s003(tmp_path: Path) -> None:
    (tmp_path / "secret.json").write_text('{"type": "object"}')
    man = copy.deepcopy(MANIFEST_V22)
    man["io"] = {"input": "../secret.json"}
    text = yaml.safe_dump(man, sort_keys=False)
    m = load_module(v22_with(tmp_path, {"module.yaml": text}))
    [d] = [d for d in m.load_diagnostics if d.code == "S003"]
    assert (d.file, d.line, d.column) == (m.path / "module.yaml", *pos(text, "../secret.json"))
    assert m.schemas.input is None


# ---------------------------------------------------------------- golden tests and examples


def test_declared_tests(tmp_path: Path) -> None:
    m = load_module(make_module(tmp_path, clean_v22()))
    [t] = m.tests
    assert t.declared and t.name == "case1"
    assert t.input_path == m.path / "tests/case1.input.json"
    assert t.expected_path == m.path / "tests/case1.expected.json"
    assert t.input == GOOD_INPUT and t.expected == GOOD_EXPECTED


def test_declared_mapping_form_and_discovered_tests(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["tests"] = [{"input": "cases/a.json", "expected": "cases/a.out.json"}]
    files = {
        "module.yaml": man,
        "cases/a.json": {"text": "a"},
        "cases/a.out.json": GOOD_EXPECTED,
        "tests/b.input.json": {"text": "b"},
        "tests/b.expected.json": GOOD_EXPECTED,
        "tests/c.input.json": {"text": "c"},  # no expected file
        "tests/notes.json": {"x": 1},  # not a test
    }
    m = load_module(v22_with(tmp_path, files))
    by_name = {t.name: t for t in m.tests}
    assert set(by_name) == {"a", "b", "c", "case1"}
    assert by_name["a"].declared and by_name["a"].input == {"text": "a"}
    assert not by_name["b"].declared and by_name["b"].expected == GOOD_EXPECTED
    assert by_name["c"].expected_path is None and by_name["c"].expected is UNPARSED
    assert not by_name["case1"].declared  # discovered, since the manifest no longer lists it
    assert m.tests_declared == ("cases/a.json -> cases/a.out.json",)


def test_declared_and_discovered_are_not_duplicated(tmp_path: Path) -> None:
    m = load_module(
        v22_with(tmp_path, {"tests/case2.input.json": {"text": "b"}, "tests/case2.expected.json": GOOD_EXPECTED})
    )
    names = [t.name for t in m.tests]
    assert sorted(names) == ["case1", "case2"]


def test_unparseable_golden_file_is_p002_and_unparsed(tmp_path: Path) -> None:
    text = '{"text": "x",}'
    m = load_module(v22_with(tmp_path, {"tests/case1.input.json": text}))
    assert m.tests[0].input is UNPARSED
    [d] = [d for d in m.load_diagnostics if d.code == "P002"]
    assert (d.file, d.line, d.column) == (m.path / "tests/case1.input.json", *pos(text, "}"))


def test_named_examples(tmp_path: Path) -> None:
    files = clean_v1()
    files["examples/second.input.json"] = {"text": "2"}
    files["examples/second.output.json"] = {"summary": "s", "rationale": "r", "confidence": 0.1}
    m = load_module(make_module(tmp_path, files))
    assert [e.name for e in m.examples] == ["example", "second"]
    assert m.examples[1].output["summary"] == "s"


# ---------------------------------------------------------------- encodings and line endings


def test_utf8_bom_everywhere(tmp_path: Path) -> None:
    files: dict[str, Any] = {}
    for name, value in clean_v22().items():
        raw = (
            value.encode()
            if isinstance(value, str)
            else (yaml.safe_dump(value, sort_keys=False) if name.endswith(".yaml") else json.dumps(value)).encode()
        )
        files[name] = codecs.BOM_UTF8 + raw
    m = load_module(make_module(tmp_path, files))
    assert m.format is ModuleFormat.V2_2 and m.name == "mod"
    assert not m.prompt.startswith("\ufeff")
    assert validate_module(m) == []


def test_utf16_files(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["tier"] = "bogus"
    text = yaml.safe_dump(man, sort_keys=False)
    files = clean_v22()
    files["module.yaml"] = text.encode("utf-16")  # little-endian with BOM
    files["schema.json"] = codecs.BOM_UTF16_BE + json.dumps(SCHEMA_V22, indent=2).encode("utf-16-be")
    files["prompt.md"] = str(files["prompt.md"]).encode("utf-16")
    m = load_module(make_module(tmp_path, files))
    assert m.schemas.meta == SCHEMA_V22["meta"]
    assert "confidence" in m.prompt and not m.prompt.startswith("\ufeff")
    [d] = [d for d in validate_module(m) if d.code == "M003"]
    assert (d.line, d.column) == pos(text, "bogus")


def test_invalid_utf8_manifest_is_p005_with_position(tmp_path: Path) -> None:
    raw = b"name: mod\nversion: 1.0.0\nresponsibility: caf\xe9 au lait\n"
    m = load_module(v22_with(tmp_path, {"module.yaml": raw}))
    [d] = [d for d in m.load_diagnostics if d.code == "P005"]
    assert (d.file, d.line, d.column) == (m.path / "module.yaml", 3, len("responsibility: caf") + 1)
    assert m.manifest == {}


def test_invalid_utf8_schema_and_golden(tmp_path: Path) -> None:
    m = load_module(
        v22_with(tmp_path, {"schema.json": b'{\n  "input": "\xff"\n}', "tests/case1.expected.json": b"\xfe"})
    )
    found = {(d.file.name if d.file else None, d.line, d.column) for d in m.load_diagnostics if d.code == "P005"}
    assert found == {("schema.json", 2, 13), ("case1.expected.json", 1, 1)}


def test_crlf_files(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["schema_strictness"] = "extreme"
    text = yaml.safe_dump(man, sort_keys=False).replace("\n", "\r\n")
    sch = json.dumps(SCHEMA_V22, indent=2).replace("\n", "\r\n")
    m = load_module(v22_with(tmp_path, {"module.yaml": text.encode(), "schema.json": sch.encode()}))
    assert m.version == "1.0.0" and m.schemas.data == SCHEMA_V22["data"]
    [d] = [d for d in validate_module(m) if d.code == "M004"]
    assert (d.line, d.column) == pos(text, "extreme")


def test_crlf_module_md(tmp_path: Path) -> None:
    files = clean_v1()
    md = str(files["MODULE.md"]).replace("version: 1.0.0", "version: '1.0'").replace("\n", "\r\n")
    files["MODULE.md"] = md.encode()
    m = load_module(make_module(tmp_path, files))
    assert m.format is ModuleFormat.V1 and m.version == "1.0" and m.context == "fork"
    assert m.prompt.lstrip().startswith("# Summariser")
    [d] = [d for d in validate_module(m) if d.code == "M002"]
    assert (d.file, d.line, d.column) == (m.path / "MODULE.md", *pos(md, "'1.0'"))


def test_module_md_frontmatter_positions(tmp_path: Path) -> None:
    files = clean_v1()
    md = "---\nname: other\nversion: 1.0.0\nresponsibility: x\nexcludes:\n  - y\ncontext: sideways\n---\nbody\n"
    files["MODULE.md"] = md
    m = load_module(make_module(tmp_path, files))
    diags = {d.code: (d.line, d.column) for d in validate_module(m)}
    assert diags["M009"] == pos(md, "other")
    assert diags["M012"] == pos(md, "sideways")


def test_python_tag_in_manifest_is_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = f"name: mod\nversion: !!python/object/apply:os.system ['touch {marker}']\n"
    m = load_module(v22_with(tmp_path, {"module.yaml": text}))
    assert not marker.exists()
    assert [d.code for d in m.load_diagnostics if d.file == m.path / "module.yaml"] == ["P001"]


def test_unknown_fields_are_kept(tmp_path: Path) -> None:
    man = copy.deepcopy(MANIFEST_V22)
    man["x-custom"] = {"a": 1}
    m = load_module(v22_with(tmp_path, {"module.yaml": man}))
    assert m.manifest["x-custom"] == {"a": 1}


def test_a_module_is_hashable_and_equal_modules_hash_alike(tmp_path: Path) -> None:
    """A Module holds dicts (manifest sections), yet keys a dict or a set; equal modules hash alike."""
    folder = make_module(tmp_path, clean_v22("hashed"), "hashed")
    first, again = load_module(folder), load_module(folder)
    assert first == again and hash(first) == hash(again)
    assert {first: "seen"}[again] == "seen" and len({first, again}) == 1
    (folder / "prompt.md").write_text("# Changed\n\nSomething else entirely.\n", encoding="utf-8")
    changed = load_module(folder)
    assert changed != first and len({first, changed}) == 2  # a hash collision, never an equality
    with pytest.raises(FrozenInstanceError):
        first.name = "other"  # type: ignore[misc]
