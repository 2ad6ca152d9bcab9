"""The insights dashboard on either backend (SQLite file, real PostgreSQL via COGTUI_HISTORY_URL) notices runs
that another process records while it is open, and shows them without a key press."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_insights import CODE_REVIEWER, assumption, envelope, make_app, record
from tuikit import until

from cogtui.core.history.store import History
from cogtui.tui import navigation
from cogtui.tui.screens.insights.screen import InsightsScreen

REPO = Path(__file__).resolve().parents[2]
WRITER = """
import json, sys
from cogtui.core.history.store import History, RunRecord
env = json.loads(sys.argv[2])
with History(sys.argv[1]) as h:
    h.record(RunRecord("code-reviewer", "1.0.0", "v2.2", "replay", "replay", {"d": 1}, None, env, 1.7e9 + 60,
                       1.0, 2.0, None, "ok"))
"""


async def test_dashboard_refreshes_when_another_process_records(
    new_store: Callable[[], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = new_store()
    monkeypatch.setenv("COGTUI_HISTORY_URL", where)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "config.yaml"))
    monkeypatch.delenv("COGNITIVE_MODULES_PATH", raising=False)
    root = tmp_path / "modules"
    root.mkdir()
    (root / "code-reviewer").symlink_to(CODE_REVIEWER)
    with History(where) as h:
        h.record(record("code-reviewer", envelope([assumption()], []), 1.7e9))
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        navigation.insights(app, None)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InsightsScreen)
        await until(lambda: screen.filled, pilot)
        assert screen.state.data is not None  # filled
        first = screen.state.data.latest_id
        late = envelope([{"text": "a late one", "suggested_mapping": "issues[].owner"}], [])
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.run(
            [sys.executable, "-c", WRITER, where, json.dumps(late)], env=env, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        await until(
            lambda: screen.filled and (data := screen.state.data) is not None and data.latest_id > first,
            pilot,
            timeout=30,
        )
        status = str(screen.query_one("#status").render())
        assert "2 insights in 2 mappings" in status, status
