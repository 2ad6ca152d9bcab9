"""The process entry (`cogn`, `cogtui`): what the command made is frozen before the interpreter's last collection
at exit, so that collection does not walk it; `main` called by a process that goes on (tests) freezes nothing."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from cogtui.cli import entry, main

MODULES = Path(__file__).resolve().parents[1] / "modules"


def test_the_process_entry_freezes_what_is_left(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["cogn", "validate", str(MODULES / "code-reviewer")])
    gc.unfreeze()
    try:
        assert entry() == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert "✓ valid" in capsys.readouterr().out


def test_main_in_a_process_that_goes_on_freezes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    gc.unfreeze()
    assert main(["--path", str(MODULES), "validate", "--all"], prog="cogn") == 0
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    capsys.readouterr()
