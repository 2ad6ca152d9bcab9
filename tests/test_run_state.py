"""The run pane's one state object (core/run/run_state.py): final states stay final, the first-chunk time
is set once, the progress line never says "waiting" once content streams."""

from __future__ import annotations

from cogtui.core.run.run_state import BURST_WINDOW, Phase, Press, RunPresses, RunScreenState, RunState


def test_streaming_content_is_never_waiting() -> None:
    s = RunState("m")
    assert s.progress_line() == "waiting for the first chunk…"
    s.saw_heartbeat()
    assert "heartbeat" in s.progress_line()
    s.saw_content(12.5)
    s.saw_content(99.0)
    assert s.phase is Phase.STREAMING and s.progress_line() == "streaming · 2 chunks"
    assert s.first_chunk_ms == 12.5  # set once
    s.saw_progress(40, "analyse", "half way")
    assert s.percent == 40 and s.progress_line() == "analyse half way"


def test_cancel_is_final_and_replaces_the_running_meta() -> None:
    s = RunState("m")
    s.saw_meta({"explain": "Running m"})
    s.saw_content(5.0)
    s.ended({"ok": False, "meta": {"explain": "the run was cancelled"}, "error": {"code": "E2010"}}, True, 7.0, 80.0)
    assert s.phase is Phase.CANCELLED and s.meta["explain"] == "the run was cancelled"
    assert s.first_chunk_ms == 5.0 and s.timings(1e6) == "first chunk 5 ms · total 80 ms"
    s.saw_content(1.0)
    s.saw_meta({"explain": "Running m"})
    s.saw_progress(90, "late", "")
    s.ended({"ok": True}, False, 1.0, 1.0)
    assert s.phase is Phase.CANCELLED and s.meta["explain"] == "the run was cancelled" and s.chunks == 1
    assert s.progress_line() == "cancelled (recorded as interrupted)"


def test_a_cancelled_run_shows_no_invented_confidence_risk_or_full_bar() -> None:
    """The runtime's envelope for a cancelled run carries confidence 0.0 and risk high as placeholders: the card
    says "cancelled" in their place, and the bar, which never reached 100 %, is not shown."""
    s = RunState("m")
    s.saw_progress(40, "analyse", "")
    meta = {"confidence": 0.0, "risk": "high", "explain": "the run was cancelled"}
    s.ended({"ok": False, "meta": meta, "error": {"code": "E2010"}}, True, None, 80.0)
    assert s.card() == ({"explain": "the run was cancelled"}, "cancelled") and s.bar() is None
    failed = RunState("m")
    failed.ended({"ok": False, "error": {"code": "E4001"}}, False, None, 5.0)
    assert failed.bar() is None
    done = RunState("m")
    assert done.bar() == 0.0  # before the first chunk
    done.saw_content(1.0)
    assert done.bar() is True  # streaming, no percent: indeterminate
    done.ended({"ok": True, "meta": {"confidence": 0.9, "risk": "low"}}, False, 1.0, 2.0)
    assert done.bar() == 100.0 and done.card() == ({"confidence": 0.9, "risk": "low"}, "")


def test_done_and_failed() -> None:
    done = RunState("m")
    done.ended({"ok": True, "meta": {"explain": "x"}}, False, 3.0, 10.0)
    assert done.phase is Phase.DONE and done.percent == 100 and done.first_chunk_ms == 3.0
    failed = RunState("m")
    failed.ended({"ok": False, "error": {"code": "E2011", "message": "silence"}}, False, None, 10.0)
    assert failed.phase is Phase.FAILED and failed.error_code == "E2011" and failed.progress_line() == "failed"
    assert failed.timings(5.0) == "total 10 ms"


class Clock:
    """A clock the test moves by hand: the presses' rule is about time, the test never waits."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def after(self, seconds: float) -> Clock:
        self.now += seconds
        return self


def test_a_burst_of_presses_is_one_run_and_says_so() -> None:
    clock = Clock()
    presses = RunPresses(clock=clock)
    assert presses.pressed(ready=True) is Press.START and presses.note() == ""
    for gap in (0.06, 0.08, 0.07, 0.06):  # five presses 60-80 ms apart: the four after the first start nothing
        clock.after(gap)
        assert presses.pressed(ready=True) is Press.FOLDED
    assert presses.runs == 1 and presses.burst == 5
    assert presses.note() == "ctrl+r ×5 within 0.5 s: one run"
    assert presses.note("f5") == "f5 ×5 within 0.5 s: one run"


def test_the_window_slides_so_a_streaming_run_is_never_started_again_by_its_burst() -> None:
    """Presses 0.4 s apart for two seconds are one burst: each is within the window of the one before."""
    clock = Clock()
    presses = RunPresses(clock=clock)
    assert presses.pressed(ready=True) is Press.START
    for _ in range(5):
        assert presses.pressed(ready=True, at=clock.after(0.4).now) is Press.FOLDED
    assert presses.runs == 1


def test_a_press_after_the_window_starts_another_run() -> None:
    clock = Clock()
    presses = RunPresses(clock=clock)
    assert presses.pressed(ready=True) is Press.START
    clock.after(BURST_WINDOW)  # exactly the window: no longer part of the burst
    assert presses.pressed(ready=True) is Press.START
    assert presses.runs == 2 and presses.note() == ""


def test_a_press_while_the_module_is_read_is_kept_until_it_is_ready() -> None:
    clock = Clock()
    presses = RunPresses(clock=clock)
    assert presses.pressed(ready=False) is Press.KEPT
    assert presses.note() == "ctrl+r: the run starts once the module is read"
    clock.after(0.02)
    assert presses.pressed(ready=False) is Press.FOLDED  # the same burst: still one run
    assert presses.ready() is True and presses.runs == 1
    assert presses.ready() is False  # once
    assert presses.note() == "ctrl+r ×2 within 0.5 s: one run"


def test_a_deliberate_press_while_a_run_is_being_read_is_kept_for_a_second_run() -> None:
    clock = Clock()
    presses = RunPresses(clock=clock)
    assert presses.pressed(ready=True) is Press.START  # its module read starts
    clock.after(0.8)
    assert presses.pressed(ready=False) is Press.KEPT  # the read is slow: this press waits, not dropped
    assert presses.ready() is True and presses.runs == 2


def test_closing_forgets_a_kept_press() -> None:
    presses = RunPresses(clock=Clock())
    presses.pressed(ready=False)
    presses.forget()
    assert presses.ready() is False and presses.runs == 0 and presses.note() == ""


def test_the_title_names_module_provider_and_model() -> None:
    state = RunScreenState("code-reviewer")
    assert state.title() == "code-reviewer"
    state.runs_on("openai", "gpt-4o-mini")
    assert state.title() == "code-reviewer · openai gpt-4o-mini"
    state.runs_on("replay", "replay")
    assert state.title() == "code-reviewer · replay (recorded answers, no model called)"
