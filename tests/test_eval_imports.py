"""What `cogn eval` imports (issue 14's start-up): only what the command asked for.

An eval without --junit, --baseline or a history imports no XML library and no run store; the replay
provider, no HTTP client. Asked for them, it imports them (the listing is real). How long the imports
take is measured in bench/bench_eval.py, never asserted here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MODULES = Path(__file__).resolve().parents[1] / "modules"
ASKED_FOR_ONLY = {"xml", "sqlite3", "httpx", "anthropic", "click", "textual"}


def imported(tmp_path: Path, *args: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "FORCE_COLOR")}
    env.update(HOME=str(tmp_path / "home"), COGTUI_DATA_DIR=str(tmp_path / "data"), NO_COLOR="1")
    env.update(COGTUI_CONFIG_FILE=str(tmp_path / "config.yaml"), COGTUI_REPLAY_INTERVAL="0")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cogtui.cli", "--path", str(MODULES), "eval", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]  # 1: a golden failed
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "cogtui.core.eval.engine" in names, proc.stderr[-2000:]  # the listing was read
    return {name.split(".")[0] for name in names} | {name for name in names if name.startswith("cogtui.")}


def test_an_eval_imports_only_what_it_was_asked_for(tmp_path: Path) -> None:
    plain = imported(tmp_path, "code-reviewer", "--provider", "replay", "--no-history")
    assert plain & ASKED_FOR_ONLY == set()
    assert "cogtui.core.eval.junit" not in plain and "cogtui.core.eval.baseline" not in plain
    asked = imported(tmp_path, "code-reviewer", "--provider", "replay", "--junit", str(tmp_path / "junit.xml"))
    assert {"xml", "sqlite3", "cogtui.core.eval.junit"} <= asked
    assert (tmp_path / "junit.xml").read_text(encoding="utf-8").startswith("<?xml")
