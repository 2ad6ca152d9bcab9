"""Bounded work per keystroke (issue 31 item 2): one validation at a time, however fast the edits come, and a
module with thousands of problems listed in bounded time while the UI keeps answering keys."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_editor_kit import SIZE, area, make_app, module_dir, open_editor, until
from textual.pilot import Pilot
from textual.widgets import Static

from cogtui.tui.app import CogtuiApp
from cogtui.tui.live_check import LiveChecker, LiveReport
from cogtui.tui.widgets.diagnostics_panel import SHOWN, DiagnosticsPanel

__all__ = ["module_dir"]  # the fixture, imported so pytest finds it


class Gate:
    """Wraps the editor's checker (`LiveChecker.check`, which hands the check to its worker process): counts the
    validations started, and holds the first one `hold` catches until `release` (so edits can be made while it
    runs, whatever the machine's speed)."""

    def __init__(self) -> None:
        self.started = 0
        self.holding = threading.Event()
        self.released = threading.Event()
        self.armed = False
        self.real = LiveChecker.check

    def __call__(self, checker: LiveChecker, root: Path, overlay: dict[Path, str]) -> LiveReport | None:
        self.started += 1
        if self.armed:
            self.armed = False
            self.holding.set()
            assert self.released.wait(30), "the test never released the validation"
        return self.real(checker, root, overlay)

    def hold(self) -> None:
        self.armed = True
        self.holding.clear()
        self.released.clear()


VALIDATING = ("validate", "revalidate", "editor-validate")  # the worker groups that validate modules in threads


async def settled(app: CogtuiApp, pilot: Pilot[None]) -> None:
    """Every validation thread done before the app goes: a thread outlives its app, and one left validating a big
    module would take its process's time from the tests that run next in it."""
    finished = lambda: all(w.is_finished for w in app.workers if w.group in VALIDATING)  # noqa: E731
    await until(pilot, finished, "the validation threads to end")


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    found = Gate()
    monkeypatch.setattr(LiveChecker, "check", lambda checker, root, overlay: found(checker, root, overlay))
    yield found
    found.released.set()  # never leave a worker thread waiting


async def test_edits_made_while_a_validation_runs_cost_one_more_not_one_each(module_dir: Path, gate: Gate) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await until(pilot, lambda: not screen.state.checking, "the first validation")
        before = gate.started
        gate.hold()
        screen.validate_now()
        await until(pilot, gate.holding.is_set, "a validation to start")
        text = area(screen, "module.yaml")
        text.focus()
        text.move_cursor((0, 0))
        for char in "bogus_field: 1\n":  # each key, then its pause (the debounce firing): a validation asked
            await pilot.press("enter" if char == "\n" else "space" if char == " " else char)
            screen.validate_now()
        assert gate.started == before + 1  # the held one only: the others wait for it
        assert screen.state.checking
        gate.released.set()
        await until(pilot, lambda: not screen.state.checking, "the newest text to be validated")
        assert gate.started == before + 2  # one more answered every edit made meanwhile
        assert "M008" in [d.code for d in screen.state.diagnostics]  # the last text's problem: bogus_field
        await settled(app, pilot)


async def test_a_failed_validation_does_not_stop_the_next(module_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(module_dir)
    real = LiveChecker.check
    failures = iter([RuntimeError("disk on fire")])

    def flaky(checker: LiveChecker, root: Path, overlay: dict[Path, str]) -> LiveReport | None:
        for failure in failures:
            raise failure
        return real(checker, root, overlay)

    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await until(pilot, lambda: not screen.state.checking, "the first validation")
        monkeypatch.setattr(LiveChecker, "check", flaky)
        screen.validate_now()  # fails: the app is told (WorkerFailed)
        await until(pilot, lambda: not screen.state.validating, "the failed validation to end")
        screen.validate_now()
        await until(pilot, lambda: not screen.state.checking, "the next validation to answer")
        await settled(app, pilot)


def many_problems(root: Path, count: int) -> Path:
    """api-naming-reviewer whose example answer lists `count` changes, each without its required `risk`."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from genmodules import stale_example

    return stale_example(root / "modules" / "api-naming-reviewer", count)


async def test_thousands_of_problems_are_listed_in_bounded_time_and_keys_are_answered_meanwhile(
    module_dir: Path, gate: Gate
) -> None:
    module = many_problems(module_dir.parent.parent, 2000)
    app = make_app(module)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_editor(app, pilot, module, module / "examples" / "output.json")
        await until(pilot, lambda: not screen.state.checking, "the first validation")
        panel = screen.query_one(DiagnosticsPanel)
        assert len(screen.state.diagnostics) >= 2000
        assert panel.option_count == SHOWN + 1  # the first SHOWN, then the line counting the rest
        assert "more not listed" in str(panel.get_option_at_index(SHOWN).prompt)
        assert f"⚠ {len(screen.state.diagnostics)}" in str(panel.border_title)  # the title counts them all
        assert "large: no highlighting" in str(screen.query_one("#editor-status", Static).render())
        gate.hold()
        screen.validate_now()
        await until(pilot, gate.holding.is_set, "a validation of the big module to start")
        text = area(screen, "examples/output.json")
        text.focus()
        text.move_cursor((0, 0))
        await pilot.press("x")  # answered while the validation runs: it is off the UI thread
        assert text.text.startswith("x{") and screen.state.checking
        assert "checking" in str(screen.query_one("#editor-status", Static).render())
        gate.released.set()
        await until(pilot, lambda: not screen.state.checking, "the edit to be validated")
        assert screen.state.diagnostics[0].code == "P002"  # `x{` is not JSON
        await settled(app, pilot)


def test_the_browser_lists_the_first_problems_and_counts_the_rest(tmp_path: Path) -> None:
    from cogtui.core.workspace import check_path
    from cogtui.tui.widgets.module_detail import diagnostics_lines

    module = many_problems(tmp_path, 2000)
    report = check_path(module)
    lines = diagnostics_lines(report, module)
    assert len(lines) == 2 * SHOWN + 1  # each problem and its hint, then the count
    assert lines[-1].plain.strip() == f"… {len(report.diagnostics) - SHOWN:,} more not listed"


async def test_the_check_runs_in_a_process_of_its_own_that_ends_with_the_editor(module_dir: Path) -> None:
    app = make_app(module_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, module_dir)
        await until(pilot, lambda: not screen.state.checking, "the first validation")
        worker = screen.checker.worker
        assert worker is not None and worker.poll() is None  # checked off this process, and kept for the next check
        text = area(screen, "module.yaml")
        text.focus()
        text.move_cursor((0, 0))
        for char in "bogus_field: 1":
            await pilot.press("space" if char == " " else char)
        await pilot.press("enter")
        await until(pilot, lambda: "M008" in [d.code for d in screen.state.diagnostics], "the edit to be checked")
        assert screen.checker.worker is worker  # the same process answered the edit
        await app.pop_screen()  # closed, its edit discarded
        await until(pilot, lambda: worker.poll() is not None, "the checker's process to end with the editor")
        await settled(app, pilot)
