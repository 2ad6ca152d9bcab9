"""How the CLI process uses the cyclic collector (issue 16, BENCHMARKS.md): paused while one module is
validated, and what is left frozen when the process entry returns, so interpreter shutdown does not walk it."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from cogtui.cli import collector_paused, entry, main

MODULE = Path(__file__).resolve().parents[1] / "modules" / "code-reviewer"


@pytest.mark.parametrize("enabled", [True, False])
def test_a_pause_leaves_the_collector_as_it_found_it(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(KeyError), collector_paused():
            raise KeyError("x")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_validating_one_module_pauses_the_collector_and_resumes_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    import cogtui.core.workspace as workspace

    real_check = workspace.check_path
    monkeypatch.setattr(workspace, "check_path", lambda *a, **k: seen.append(gc.isenabled()) or real_check(*a, **k))
    assert main(["validate", str(MODULE)], prog="cogn") == 0
    assert "✓ valid" in capsys.readouterr().out
    assert seen == [False] and gc.isenabled()


def test_the_process_entry_freezes_what_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["cogn", "--version"])
    gc.unfreeze()
    try:
        with pytest.raises(SystemExit):
            entry()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
