"""How the CLI process uses the cyclic collector (issues 14 and 16, BENCHMARKS.md): paused while one module is
validated and while an eval starts (until its first model call), and what is left frozen when the process entry
returns, so interpreter shutdown does not walk it."""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import pytest

from cogtui.cli import collector_paused, entry, main, start_up_over

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


def test_validating_pauses_the_collector_and_resumes_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    import cogtui.core.workspace as workspace

    real_check = workspace.check_path
    monkeypatch.setattr(workspace, "check_path", lambda *a, **k: seen.append(gc.isenabled()) or real_check(*a, **k))
    assert main(["validate", str(MODULE)], prog="cogn") == 0
    assert "✓ valid" in capsys.readouterr().out
    assert seen == [False] and gc.isenabled()
    assert main(["--path", str(MODULE.parent), "validate", "--all"], prog="cogn") == 0
    assert len(seen) > 2 and not any(seen) and gc.isenabled()


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


def test_a_validated_module_is_freed_without_the_cyclic_collector(tmp_path: Path) -> None:
    """What makes pausing the collector for `validate --all` safe: each module, its sources and its compiled
    schemas go as soon as the report does (a back-reference from the compiled schemas once made every module a
    reference cycle of ~90 KB)."""
    import weakref

    from cogtui.core.module.schemas import schemas_for
    from cogtui.core.workspace import check_path

    with collector_paused():
        report = check_path(MODULE)
        module = report.module
        assert module is not None and report.errors == 0
        assert schemas_for(module).validator("data") is not None  # compiled, and kept with the module
        gone = weakref.ref(module)
        source = weakref.ref(next(iter(module.sources.values())))
        del module, report
        assert gone() is None and source() is None


CATCH_UP = """
import gc, sys
after = []
done = False
gc.callbacks.append(lambda phase, info: after.append(info["generation"]) if phase == "stop" and done else None)
real_enable = gc.enable
def enable():
    global done
    done = True  # from here on the collector is back: any collection now is the walk over the paused work
    real_enable()
gc.enable = enable
from cogtui.cli import entry
sys.argv = ["cogn", "validate", "--path", sys.argv[1], "--all"]
code = entry()
print("collections after the pause:", after)
sys.exit(code)
"""


def test_the_process_entry_spares_the_walk_over_what_validate_made(tmp_path: Path) -> None:
    """Turned back on after a paused validate, the collector's first act was a walk over everything the
    validate had made (~4 ms); the process entry freezes that work first, so no collection follows."""
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-c", CATCH_UP, str(MODULE.parent)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "collections after the pause: []" in proc.stdout, proc.stdout


def test_main_in_a_process_that_goes_on_freezes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    gc.unfreeze()
    assert main(["--path", str(MODULE.parent), "validate", "--all"], prog="cogn") == 0
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    capsys.readouterr()


def _spy_on_an_eval(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bool]]:
    """Whether the collector is on as the eval loads its module and as each model call starts."""
    import cogtui.core.workspace as workspace
    from cogtui.core.run.providers.replay import ReplayProvider

    seen: dict[str, list[bool]] = {"load": [], "call": []}
    real_load, real_stream = workspace.load_module, ReplayProvider.stream
    monkeypatch.setattr(
        workspace, "load_module", lambda *a, **k: seen["load"].append(gc.isenabled()) or real_load(*a, **k)
    )

    def stream(self: ReplayProvider, request: Any) -> Any:
        seen["call"].append(gc.isenabled())
        return real_stream(self, request)

    monkeypatch.setattr(ReplayProvider, "stream", stream)
    return seen


def test_an_eval_starts_with_the_collector_paused_until_its_first_model_call(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy_on_an_eval(monkeypatch)
    gc.unfreeze()
    argv = ["--path", str(MODULE.parent), "eval", "code-reviewer", "--provider", "replay", "--no-history"]
    assert main(argv, prog="cogn") == 0
    assert "3/3 passed" in capsys.readouterr().out
    assert seen["load"] == [False]  # start-up: paused
    assert len(seen["call"]) == 3 and all(seen["call"])  # back on from the first call: what remains runs as usual
    assert gc.isenabled() and gc.get_freeze_count() == 0  # a process that goes on: nothing frozen


@pytest.mark.parametrize("argv", [["eval"], ["--path", "/nonexistent-cogtui-dir", "eval", "nothing-here"]])
def test_an_eval_that_makes_no_call_leaves_the_collector_on(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv, prog="cogn") == 2
    capsys.readouterr()
    assert gc.isenabled()


def test_an_eval_leaves_a_collector_that_was_off_off(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy_on_an_eval(monkeypatch)
    gc.disable()
    try:
        argv = ["--path", str(MODULE.parent), "eval", "code-reviewer", "--provider", "replay", "--no-history"]
        assert main(argv, prog="cogn") == 0
        assert not gc.isenabled() and not any(seen["call"])
    finally:
        gc.enable()
    capsys.readouterr()


def test_start_up_over_without_a_pause_changes_nothing() -> None:
    gc.disable()
    try:
        start_up_over()
        assert not gc.isenabled()
    finally:
        gc.enable()
    start_up_over()
    assert gc.isenabled()


def test_an_eval_answered_from_the_cache_resumes_the_collector_after_its_first_cell(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """Answers from the response cache take no call slot, so no call starts: the first finished cell ends the
    pause instead, and the rest of the eval runs with the collector on."""
    import cogtui.core.eval.engine as engine

    argv = ["--path", str(MODULE.parent), "eval", "code-reviewer", "--provider", "replay", "--cache"]
    assert main(argv, prog="cogn") == 0  # the answers go into the history
    seen = _spy_on_an_eval(monkeypatch)
    cells: list[bool] = []
    real_cell_of = engine.cell_of
    monkeypatch.setattr(engine, "cell_of", lambda *a: cells.append(gc.isenabled()) or real_cell_of(*a))
    assert main([*argv, "-j", "1"], prog="cogn") == 0
    assert "3 answered from the cache" in capsys.readouterr().out
    assert seen["call"] == [] and cells[0] is False and cells[-1] is True and gc.isenabled()
