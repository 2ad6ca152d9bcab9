"""The editor's check in a process of its own (tui/live_check.py, TUI-20): it answers what the check in
this process answers, survives its worker dying, and ends when closed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogtui.tui.live_check as live_check
from cogtui.tui.live_check import WORKER, CheckFailed, LiveChecker, check_overlaid

MODULES = Path(__file__).resolve().parents[2] / "modules"


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "config.yaml"))
    monkeypatch.delenv("COGNITIVE_MODULES_PATH", raising=False)
    target = tmp_path / "code-reviewer"
    shutil.copytree(MODULES / "code-reviewer", target)
    return target


@pytest.fixture
def checker() -> Iterator[LiveChecker]:
    made = LiveChecker()
    yield made
    made.close()


def edited(module: Path) -> dict[Path, str]:
    """The manifest with a field the spec does not define, as an unsaved buffer."""
    manifest = module / "module.yaml"
    return {manifest: manifest.read_text(encoding="utf-8") + "bogus_field: 1\n"}


def located(report: live_check.LiveReport | None) -> list[tuple[str, int | None, int | None]]:
    assert report is not None
    return [(d.code, d.line, d.column) for d in report.diagnostics]


def codes(report: live_check.LiveReport | None) -> list[str]:
    return [code for code, _line, _column in located(report)]


def not_here(*_args: object) -> object:
    raise AssertionError("checked in the editor's process")


def test_the_worker_answers_what_the_check_here_answers(
    module: Path, checker: LiveChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    overlay = edited(module)
    expected = check_overlaid(module, overlay)
    monkeypatch.setattr(live_check, "check_path", not_here)  # this process's check may not run: the worker's does
    report = checker.check(module, overlay)
    assert report is not None and located(report) == located(expected) and "M008" in codes(report)
    assert report.name == "code-reviewer" and report.contract == expected.contract
    assert located(checker.check(module, {})) == []  # the overlay was the unsaved text's only: the disk is clean


def test_a_worker_that_died_costs_one_check_here_and_the_next_starts_a_new_one(
    module: Path, checker: LiveChecker
) -> None:
    assert located(checker.check(module, {})) == []
    first = checker.worker
    assert first is not None
    first.kill()
    first.wait()
    assert "M008" in codes(checker.check(module, edited(module)))  # answered all the same, in this process
    assert checker.worker is None
    assert located(checker.check(module, {})) == []
    assert checker.worker is not None and checker.worker.pid != first.pid and checker.worker.poll() is None


def test_a_check_that_raises_in_the_worker_is_reported_and_the_worker_goes_on(
    module: Path, checker: LiveChecker
) -> None:
    with pytest.raises(CheckFailed):
        checker.check(module, {module / "module.yaml": 42})  # type: ignore[dict-item]  # no text: a rule raises
    assert located(checker.check(module, {})) == []


def test_closed_the_worker_ends_and_no_check_runs(module: Path, checker: LiveChecker) -> None:
    checker.check(module, {})
    worker = checker.worker
    assert worker is not None
    checker.close()
    assert worker.poll() is not None
    assert checker.check(module, {}) is None


def test_in_process_checks_run_in_the_calling_thread(module: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_check, "check_path", not_here)
    with pytest.raises(AssertionError, match="editor's process"):
        LiveChecker(in_process=True).check(module, {})


def test_the_worker_program_imports_no_textual() -> None:
    shown = subprocess.run(
        [sys.executable, "-c", f"import sys, {WORKER}; print([m for m in sys.modules if m.startswith('textual')])"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == "[]"
