"""Issue 10 §4: modules written the way authors write them validate and test as their authors meant.

tests/realworld/ holds seven modules: contract goldens (`$validate`), Draft-07
and 2020-12 schemas, tests listed in module.yaml (strings and mappings),
examples folders, Chinese text, v1 / v2.1 / v2.2 / v2.5 formats, audio input
read from a file in the module folder (voice-memo-zh).
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import envelope as printed_envelope
from cli_json import report as validated
from modkit import clean_v22, make_module, run_cogn

from cogtui.core.module.loader import load_module
from cogtui.core.rules.golden_contract import is_contract
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.run.golden_runner import compare
from cogtui.core.run.providers.replay.provider import choose_answer

REALWORLD = Path(__file__).parent / "realworld"
NAMES = sorted(p.name for p in REALWORLD.iterdir() if p.is_dir())


def test_there_are_six_of_them_with_the_shapes_authors_use() -> None:
    assert len(NAMES) >= 6
    modules = [load_module(REALWORLD / n) for n in NAMES]
    assert {m.format.value for m in modules} >= {"v1", "v2.1", "v2.2", "v2.5"}
    assert sum(1 for m in modules for t in m.tests if is_contract(t.expected)) >= 3
    assert any(m.examples for m in modules) and all(m.tests for m in modules)
    texts = "".join((REALWORLD / n / f).read_text(encoding="utf-8") for n in NAMES for f in ("schema.json",))
    assert "draft-07" in texts and "2020-12" in texts


@pytest.mark.parametrize("name", NAMES)
def test_validate_passes(tmp_path: Path, name: str) -> None:
    proc = run_cogn(["validate", str(REALWORLD / name), "--json"], tmp_path)
    report = validated(proc.stdout)
    assert proc.returncode == 0 and report["errors"] == 0, report


@pytest.mark.parametrize("name", NAMES)
def test_replay_passes_every_golden(tmp_path: Path, name: str) -> None:
    proc = run_cogn(["test", str(REALWORLD / name), "--provider", "replay", "--json"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", ["code-review-zh", "sql-guard", "ui-spec-generator"])
def test_replay_answers_a_contract_golden_with_an_instance_of_it(name: str) -> None:
    module = load_module(REALWORLD / name)
    test = next(t for t in module.tests if is_contract(t.expected))
    answer, source = choose_answer(module, test.input)
    assert source.endswith("(contract)") and "$validate" not in answer


def test_a_contract_golden_judges_the_envelope() -> None:
    module = load_module(REALWORLD / "code-review-zh")
    test = next(t for t in module.tests if t.name == "sql-injection")
    good: dict[str, Any] = {
        "ok": True,
        "meta": {"confidence": 0.9, "risk": "high", "explain": "SQL 注入"},
        "data": {
            "issues": [{"category": "security", "severity": "high", "line": 2, "message": "字符串拼接 SQL"}],
            "rationale": "用户输入直接拼接进查询语句。",
        },
    }
    assert compare(module, test.expected, good) == []
    bad = copy.deepcopy(good)
    bad["meta"]["risk"] = "low"
    bad["data"]["issues"][0]["severity"] = "medium"
    reasons = compare(module, test.expected, bad)
    assert any(r.startswith("meta.risk") for r in reasons)
    assert any("data.issues[0].severity" in r for r in reasons)
    assert all(len(r) < 200 for r in reasons)


# ---------------------------------------------------------------- stale goldens: warnings, errors with --strict


def _stale_module(tmp_path: Path) -> Path:
    files = clean_v22()
    expected = copy.deepcopy(files["tests/case1.expected.json"])
    assert isinstance(expected, dict)
    expected["data"]["label"] = {"nested": ["a very long value " * 20]}
    files["tests/case1.expected.json"] = expected
    return make_module(tmp_path, files)


def test_a_stale_golden_is_a_warning_naming_file_path_and_excerpt(tmp_path: Path) -> None:
    module = load_module(_stale_module(tmp_path))
    found = [d for d in validate_module(module) if d.code == "T003"]
    assert found and all(d.severity.value == "warning" for d in found)
    message = found[0].message
    assert "case1.expected.json" in message and "data.label" in message
    assert len(message) < 200 and "a very long value " * 3 not in message
    strict = [d for d in validate_module(module, strict=True) if d.code == "T003"]
    assert strict and all(d.severity.value == "error" for d in strict)


def test_cogn_validate_strict_fails_a_stale_golden(tmp_path: Path) -> None:
    root = _stale_module(tmp_path / "m")
    assert run_cogn(["validate", str(root)], tmp_path).returncode == 0
    proc = run_cogn(["validate", str(root), "--strict"], tmp_path)
    assert proc.returncode == 1 and "T003" in proc.stdout


# ---------------------------------------------------------------- --v22: exactly the five checklist items


def _codes(tmp_path: Path, files: dict[str, Any], v22: bool = True) -> dict[str, str]:
    module = load_module(make_module(tmp_path, files))
    return {d.code: d.severity.value for d in validate_module(module, v22=v22)}


def test_v22_errors_on_the_five_items_only(tmp_path: Path) -> None:
    assert not [s for s in _codes(tmp_path / "a", clean_v22()).values() if s == "error"]
    files = clean_v22()
    manifest = files["module.yaml"]
    assert isinstance(manifest, dict)
    manifest.pop("overflow", None)
    manifest.pop("enums", None)
    codes = _codes(tmp_path / "b", files)
    assert codes.get("V011") == "error"  # item 1
    assert "V011" not in _codes(tmp_path / "c", files, v22=False)
    files = clean_v22()
    files["prompt.md"] = "# Task\n\nJust answer.\n"
    assert _codes(tmp_path / "d", files).get("V005") == "error"  # item 3
    assert _codes(tmp_path / "e", files, v22=False).get("V005") == "warning"


def test_v22_keeps_other_contract_checks_warnings(tmp_path: Path) -> None:
    files = clean_v22()
    manifest = files["module.yaml"]
    assert isinstance(manifest, dict)
    manifest["schema_strictness"] = "low"  # V008: incoherent with the decision tier, not a checklist item
    manifest["overflow"] = {"enabled": True, "max_items": 2}  # V006 against the schema's maxItems
    codes = _codes(tmp_path, files)
    assert codes.get("V008") == "warning" and codes.get("V006") == "warning"


def test_empty_excludes_is_a_warning(tmp_path: Path) -> None:
    files = clean_v22()
    manifest = files["module.yaml"]
    assert isinstance(manifest, dict)
    manifest["excludes"] = []
    assert _codes(tmp_path, files, v22=False).get("M006") == "warning"


def test_a_v2_module_without_schema_json_is_reported(tmp_path: Path) -> None:
    files = clean_v22()
    files["schema.json"] = None
    manifest = files["module.yaml"]
    assert isinstance(manifest, dict)
    manifest.pop("io", None)
    assert _codes(tmp_path, files, v22=False).get("S010") == "error"


# ---------------------------------------------------------------- the command line


def test_run_accepts_the_manifest_name(tmp_path: Path) -> None:
    root = tmp_path / "modules"
    shutil.copytree(REALWORLD / "sql-guard", root / "sqlguard-folder")
    inp = (REALWORLD / "sql-guard" / "tests" / "select.input.json").read_text(encoding="utf-8")
    proc = run_cogn(
        ["--path", str(root), "run", "sql-guard", "--input", inp, "--provider", "replay", "--json", "--no-history"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert printed_envelope(proc.stdout)["data"]["verdict"] == "allow"


@pytest.mark.parametrize(("name", "fmt"), [("ui-spec-generator", "v1"), ("changelog-writer", "v2.1")])
def test_old_formats_print_one_deprecation_line(tmp_path: Path, name: str, fmt: str) -> None:
    proc = run_cogn(["validate", str(REALWORLD / name)], tmp_path)
    notes = [line for line in proc.stderr.splitlines() if "deprecated" in line]
    assert len(notes) == 1 and fmt in notes[0] and f"cogn migrate {name}" in notes[0]
    proc = run_cogn(["validate", str(REALWORLD / "sql-guard")], tmp_path)
    assert "deprecated" not in proc.stderr


def test_a_voice_memo_over_ten_minutes_is_refused(tmp_path: Path) -> None:
    """voice-memo-zh takes audio (SPEC-v2.5 §4.1.1): a memo of 10 min 1 s is E1011 before any model call (RUN-18)."""
    import wave

    folder = tmp_path / "voice-memo-zh"
    shutil.copytree(REALWORLD / "voice-memo-zh", folder)
    with wave.open(str(folder / "tests" / "long.wav"), "wb") as memo:
        memo.setnchannels(1)
        memo.setsampwidth(1)
        memo.setframerate(1000)
        memo.writeframes(b"\x80" * 601_000)
    memo_input = tmp_path / "long.input.json"
    memo_input.write_text(json.dumps({"memo": {"type": "file", "path": "tests/long.wav"}}), encoding="utf-8")
    proc = run_cogn(["run", str(folder), str(memo_input), "--provider", "replay", "--json", "--no-history"], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    error = printed_envelope(proc.stdout)["error"]
    assert error["code"] == "E1011" and "10 minutes" in error["message"]
