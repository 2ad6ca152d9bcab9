"""D98: a run saved as a golden test pair (the core of the run screen's ctrl+g): the first free name, the envelope
without runtime meta, module.yaml's tests list extended in place (comments kept), all or nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cogtui.core.authoring.golden_save import GoldenSaveError, manifest_with_test, save_golden
from cogtui.core.module.loader import load_module
from cogtui.core.run.golden_runner import run_case

MODULES = Path(__file__).resolve().parents[1] / "modules"
ENVELOPE = {
    "ok": True,
    "meta": {"confidence": 0.9, "risk": "low", "explain": "fine", "trace_id": "t-1", "latency_ms": 12, "model": "m"},
    "data": {"verdict": "approve", "summary": "s", "issues": [], "rationale": "r"},
}


def copy(tmp_path: Path, name: str = "code-reviewer") -> Path:
    shutil.copytree(MODULES / name, tmp_path / name)
    return tmp_path / name


def test_the_pair_is_written_listed_and_loads_as_a_golden(tmp_path: Path) -> None:
    folder = copy(tmp_path)
    before = (folder / "module.yaml").read_text(encoding="utf-8")
    module = load_module(folder)
    saved = save_golden(module, {"diff": "+ x"}, ENVELOPE)
    assert saved.name == "saved-1" and saved.listed
    assert json.loads(saved.input_path.read_text(encoding="utf-8")) == {"diff": "+ x"}
    expected = json.loads(saved.expected_path.read_text(encoding="utf-8"))
    assert expected["meta"] == {"confidence": 0.9, "risk": "low", "explain": "fine"}  # runtime meta dropped
    after = (folder / "module.yaml").read_text(encoding="utf-8")
    assert after.startswith(before.split("tests:")[0])  # everything before the list is untouched, comments too
    assert "- tests/saved-1.input.json -> tests/saved-1.expected.json\n" in after
    assert after.replace("  - tests/saved-1.input.json -> tests/saved-1.expected.json\n", "") == before
    again = load_module(folder)
    assert "saved-1" in [t.name for t in again.tests if t.declared]
    assert not [d for d in again.load_diagnostics if d.code.startswith("T")]
    second = save_golden(again, {"diff": "+ y"}, ENVELOPE)
    assert second.name == "saved-2"


def test_a_module_without_a_tests_list_gets_the_files_only(tmp_path: Path) -> None:
    folder = copy(tmp_path)
    manifest = folder / "module.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.split("\ntests:")[0] + "\n", encoding="utf-8")
    module = load_module(folder)
    saved = save_golden(module, {"diff": "+ x"}, ENVELOPE)
    assert not saved.listed and manifest.read_text(encoding="utf-8") == text.split("\ntests:")[0] + "\n"
    assert "saved-1" in [t.name for t in load_module(folder).tests]  # found by the tests/ folder's pairing


def test_manifest_edits_only_a_block_list_and_keep_everything_else() -> None:
    path = Path("module.yaml")
    crlf = "name: x\r\ntests:\r\n  - a.json -> b.json  # first\r\n\r\n# the end\r\n"
    assert manifest_with_test(crlf, path, "c -> d") == (
        "name: x\r\ntests:\r\n  - a.json -> b.json  # first\r\n  - c -> d\r\n\r\n# the end\r\n"
    )
    mapping = "tests:\n- input: a.json\n  expected: b.json\nname: x\n"
    assert manifest_with_test(mapping, path, "c -> d") == (
        "tests:\n- input: a.json\n  expected: b.json\n- c -> d\nname: x\n"
    )
    assert manifest_with_test("tests: [a -> b]\n", path, "c -> d") is None  # flow style: left alone
    assert manifest_with_test("tests: []\n", path, "c -> d") is None
    assert manifest_with_test("name: x\n", path, "c -> d") is None
    assert manifest_with_test("tests: [\n", path, "c -> d") is None  # does not parse


def test_no_envelope_and_a_refused_write_leave_nothing(tmp_path: Path) -> None:
    folder = copy(tmp_path)
    module = load_module(folder)
    with pytest.raises(GoldenSaveError, match="run the module first"):
        save_golden(module, {}, None)
    manifest = (folder / "module.yaml").read_bytes()
    shutil.rmtree(folder / "tests")
    (folder / "tests").write_text("a file where the folder should be", encoding="utf-8")
    with pytest.raises(GoldenSaveError, match="could not write the golden pair"):
        save_golden(module, {"diff": "+ x"}, ENVELOPE)
    assert (folder / "module.yaml").read_bytes() == manifest  # the manifest's new entry was rolled back
    assert (folder / "tests").read_text(encoding="utf-8") == "a file where the folder should be"


async def test_a_saved_replay_run_passes_as_a_golden(tmp_path: Path) -> None:
    """Saved from a real run (replay), the pair passes `cogn test`'s comparison."""
    from cogtui.core.run.providers.replay import ReplayProvider
    from cogtui.core.run.runner import RunOptions, run_module

    folder = copy(tmp_path)
    module = load_module(folder)
    given = module.tests[0].input
    result = await run_module(module, given, RunOptions(ReplayProvider(interval=0)))
    saved = save_golden(module, given, result.envelope)
    [test] = [t for t in load_module(folder).tests if t.name == saved.name]
    case = await run_case(load_module(folder), test, RunOptions(ReplayProvider(interval=0)))
    assert case.passed, case.reasons


def failure(code: str, message: str) -> dict[str, object]:
    return {
        "ok": False,
        "meta": {"confidence": 0.0, "risk": "high", "explain": message},
        "error": {"code": code, "message": message},
    }


@pytest.mark.parametrize(
    ("envelope", "interrupted", "said"),
    [
        (failure("E2010", "the run was cancelled"), True, "this run was stopped before it finished (the run was"),
        (failure("E4001", "ANTHROPIC_API_KEY is not set"), False, "failed with E4001 (ANTHROPIC_API_KEY is not set)"),
        (failure("E3001", "data.verdict: 'maybe' is not one of"), False, "failed with E3001"),
        (failure("SCHEMA_VALIDATION_FAILED", "bad"), False, "failed with E3001"),  # a legacy spelling of it
        (failure("E2011", "no chunk for 30 s"), False, "failed with E2011"),
        (ENVELOPE, True, "this run was stopped before it finished"),  # cancelled between its answer and its end
    ],
    ids=["cancelled", "provider", "contract", "legacy-contract", "stream-timeout", "interrupted-ok"],
)
def test_a_failure_of_the_runtime_is_no_golden(
    envelope: dict[str, object], interrupted: bool, said: str, tmp_path: Path
) -> None:
    """D150: what the runtime made of a failed run would be expected of every later run."""
    folder = copy(tmp_path)
    manifest = (folder / "module.yaml").read_bytes()
    with pytest.raises(GoldenSaveError) as info:
        save_golden(load_module(folder), {"diff": "+ x"}, envelope, interrupted=interrupted)
    assert said in str(info.value) and "Run it again" in str(info.value)
    assert not (folder / "tests" / "saved-1.expected.json").exists()
    assert (folder / "module.yaml").read_bytes() == manifest


@pytest.mark.parametrize("code", ["E1001", "E2004", "E5001"])
def test_an_error_the_module_answers_with_is_a_golden(code: str, tmp_path: Path) -> None:
    folder = copy(tmp_path)
    saved = save_golden(load_module(folder), {"diff": ""}, failure(code, "nothing to review"))
    assert json.loads(saved.expected_path.read_text(encoding="utf-8"))["error"]["code"] == code
