"""`… | cogtui review -`: the real binary in tmux reads a saved migration plan from a pipe,
then takes its keys from the terminal; the review shows the plan's modules and escape quits with status 0."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_e2e_tmux import TIMEOUT, cogtui_in_tmux, wait_for
from tuikit import copy_modules

from cogtui.core.authoring.migration import plan_migration
from cogtui.core.module.loader import load_module

pytestmark = pytest.mark.e2e


def test_a_plan_piped_to_review_dash_is_reviewed_with_keys_from_the_terminal(tmp_path: Path) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    modules = copy_modules(root, "legacy-summarizer", "api-naming-reviewer")
    tmux, command, status_file = cogtui_in_tmux(tmp_path, root)
    inner = command[5:]  # `env … cogtui --path ROOT`, without the shell that records the exit status
    plans = [plan_migration(load_module(path)).to_json() | {"result": "would migrate"} for path in modules]
    plan_file = tmp_path / "PLAN.json"  # what `cogn migrate --all --dry-run --json` prints (test_migration_review.py)
    plan_file.write_text(json.dumps({"plans": plans, "summary": {"dry_run": True}}), encoding="utf-8")
    script = 'status_file=$1; plan=$2; shift 2; cat "$plan" | "$@" review -; echo $? > "$status_file"'
    try:
        tmux.start(["sh", "-c", script, "sh", str(status_file), str(plan_file), *inner], cwd=tmp_path)
        screen = wait_for(tmux, lambda s: "<stdin>" in s and "read-only" in s, "the review of the piped plan")
        assert "legacy-summarizer" in screen and "api-naming-reviewer" in screen
        tmux.keys("J")  # keys come from the terminal: J moves to the first module
        wait_for(tmux, lambda s: "v2.1 → v2.2" in s or "v0 → v2.2" in s, "the first module's summary")
        tmux.keys("Escape")
        deadline = time.monotonic() + TIMEOUT
        while not status_file.exists():
            if time.monotonic() > deadline:
                pytest.fail(f"cogtui review - did not exit after escape; the screen:\n{tmux.screen()}")
            time.sleep(0.1)
        assert status_file.read_text(encoding="utf-8").strip() == "0", tmux.screen()
        assert "Traceback" not in tmux.screen()
    finally:
        tmux.kill()
