"""The run pane's one state object (core/run/run_state.py): final states stay final, the first-chunk time
is set once, the progress line never says "waiting" once content streams."""

from __future__ import annotations

from cogtui.core.run.run_state import Phase, RunState


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


def test_done_and_failed() -> None:
    done = RunState("m")
    done.ended({"ok": True, "meta": {"explain": "x"}}, False, 3.0, 10.0)
    assert done.phase is Phase.DONE and done.percent == 100 and done.first_chunk_ms == 3.0
    failed = RunState("m")
    failed.ended({"ok": False, "error": {"code": "E2011", "message": "silence"}}, False, None, 10.0)
    assert failed.phase is Phase.FAILED and failed.error_code == "E2011" and failed.progress_line() == "failed"
    assert failed.timings(5.0) == "total 10 ms"
