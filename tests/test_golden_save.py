"""D98: a run saved as a golden test pair (the core of the run screen's ctrl+g): the first free name, the envelope
without runtime meta, module.yaml's tests list extended in place (comments kept), all or nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cogtui.core.authoring.golden_save import (
    GoldenSaveError,
    manifest_with_test,
    name_problem,
    plan_save,
    save_golden,
    taken_names,
)
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
    from cogtui.core.run.providers.replay.provider import ReplayProvider
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


def test_a_name_is_a_free_file_stem(tmp_path: Path) -> None:
    """D182: the author names the case; a name taken by a test or a file of tests/, or one that is no plain file
    stem, is refused before anything is written."""
    module = load_module(copy(tmp_path))
    taken = taken_names(module)
    assert {"case1", "case2", "case3"} <= taken
    assert name_problem("sql-injection", taken) is None
    assert name_problem("case1", taken) == "case1 is a test case already: choose another name"
    for bad in ("", "../escape", "a/b", ".hidden", "x" * 65):
        assert name_problem(bad, taken) is not None, bad
    with pytest.raises(GoldenSaveError, match="case1 is a test case already"):
        save_golden(module, {"diff": "+ x"}, ENVELOPE, name="case1")
    saved = save_golden(module, {"diff": "+ x"}, ENVELOPE, name="sql-injection")
    assert saved.input_path.name == "sql-injection.input.json" and saved.listed


def test_an_input_with_a_golden_already_is_refused_with_its_answer_and_warned_with_another(tmp_path: Path) -> None:
    folder = copy(tmp_path)
    module = load_module(folder)
    case1 = next(t for t in module.tests if t.name == "case1")
    same = plan_save(module, case1.input, {**case1.expected, "meta": {**case1.expected["meta"], "trace_id": "t"}})
    assert same.same_input == "case1" and same.same_answer
    assert same.refused is not None and "golden case1 already has this input and expects this answer" in same.refused
    other = plan_save(module, case1.input, ENVELOPE)
    assert other.refused is None and other.same_input == "case1" and not other.same_answer
    assert any("golden case1 already has this input and expects another answer" in n for n in other.notes())
    fresh = plan_save(module, {"diff": "+ new"}, ENVELOPE)
    assert fresh.refused is None and fresh.same_input is None and fresh.notes() == [] and fresh.name == "saved-1"


def test_a_replay_answer_says_where_it_came_from(tmp_path: Path) -> None:
    """Replay answers with a golden's expected envelope (or an example's output, or a minimal instance): saved as
    a golden, it is a copy, not a model's answer. The dialog says which, and the author decides."""
    module = load_module(copy(tmp_path))
    case1 = next(t for t in module.tests if t.name == "case1")
    copied = plan_save(module, case1.input, case1.expected, replay=True)
    assert copied.refused is not None  # the very golden it copied: nothing new
    new_input = plan_save(module, {"diff": "+ new"}, ENVELOPE, replay=True)
    assert new_input.replay_source == "minimal instance" and new_input.refused is None
    assert new_input.notes() == [
        "This answer came from the replay provider, not a model: a minimal instance of the data schema. Save it only "
        "if it is what the module should answer for this input."
    ]
    assert plan_save(module, {"diff": "+ new"}, ENVELOPE).replay_source is None  # a model's answer: nothing said
    refused = plan_save(module, {"diff": "+ x"}, {"ok": False, "error": {"code": "E2010", "message": "stopped"}})
    assert refused.refused is not None and "stopped before it finished" in refused.refused
