"""`-o`, `--json FILE` and `--junit FILE`: a target that cannot be written is refused before any model call,
and one that fails at the end (a full disk) still leaves the result on stdout."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from cli_json import envelope as printed_envelope
from modkit import run_cogn

from cogtui.core.files import editor_snapshot

MODULES = Path(__file__).resolve().parent.parent / "modules"
CASE = MODULES / "code-reviewer" / "tests" / "case1.input.json"
RUN = ["--path", str(MODULES), "run", "code-reviewer", "--input", str(CASE)]
EVAL = ["--path", str(MODULES), "eval", "code-reviewer"]


def runs_recorded(tmp_path: Path) -> str:
    return run_cogn(["history"], cwd=tmp_path, extra_env={"COGTUI_DATA_DIR": str(tmp_path / "data")}).stdout


@pytest.mark.parametrize(
    ("args", "target"),
    [([*RUN, "-o"], "afile/out.json"), ([*EVAL, "--junit"], "afile/junit.xml"), ([*EVAL, "-o"], "afile/sub/eval.json")],
    ids=["run -o", "eval --junit", "eval -o"],
)
def test_a_target_under_a_file_is_refused_before_any_model_call(args: list[str], target: str, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    done = run_cogn([*args, target], cwd=tmp_path, extra_env={"COGTUI_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2
    assert done.stderr.strip() == f"cogn: cannot write {target}: {tmp_path / 'afile'} is a file, not a folder"
    assert done.stdout == ""
    assert "code-reviewer" not in runs_recorded(tmp_path)  # nothing ran, so nothing was recorded


def test_a_folder_as_the_target_is_refused_too(tmp_path: Path) -> None:
    done = run_cogn([*RUN, "-o", str(tmp_path)], cwd=tmp_path)
    assert (done.returncode, done.stderr.strip()) == (2, f"cogn: cannot write {tmp_path}: it is a folder")


def test_missing_folders_on_the_way_are_made(tmp_path: Path) -> None:
    done = run_cogn([*EVAL, "--junit", "reports/ci/junit.xml"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "reports" / "ci" / "junit.xml").read_text(encoding="utf-8").startswith("<?xml")


def disk_full(path: Path, data: bytes) -> None:
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def test_a_run_whose_file_cannot_be_written_at_the_end_still_prints_its_envelope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(editor_snapshot, "atomic_write", disk_full)
    done = run_cogn([*RUN, "-o", "out.json"], cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "cogn: cannot write out.json: No space left on device"
    assert printed_envelope(done.stdout)["ok"] is True  # the envelope, on stdout instead of lost


def test_an_eval_whose_junit_cannot_be_written_at_the_end_still_prints_its_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(editor_snapshot, "atomic_write", disk_full)
    done = run_cogn([*EVAL, "--junit", "junit.xml"], cwd=tmp_path)
    assert done.returncode == 2
    assert "cannot write junit.xml: No space left on device" in done.stderr
    assert "code-reviewer/case1  ✓ pass" in done.stdout and "violations: none" in done.stdout
