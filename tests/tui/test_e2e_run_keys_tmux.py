"""The run key in the real binary, in tmux, against a scripted OpenAI-compatible server that counts requests
(issue 30, TUI-5): every request is a paid call, so the count is what the user pays for.

- `r` and `ctrl+r` sent together: the press reaches the run screen while it reads the module (made slow to read
  with many goldens), is kept, and starts one run once the module is read (it used to be dropped).
- Five `ctrl+r` 60-80 ms apart: one run, and the title line says the presses were one run (it used to be 4-5).
- Two presses more than the burst window apart: two runs.

Each count is read once the screen shows that every press was handled and the run it started has ended: no press
is left that could still start a request."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from llmserver import ScriptedLLMServer, Text
from test_e2e_tmux import cogtui_in_tmux, label, wait_for
from tuikit import copy_modules

from cogtui.core.run.run_state import BURST_WINDOW

pytestmark = pytest.mark.e2e

GOLDENS = 200  # inputs on offer: reading the module takes long enough for a press to arrive during it


def slow_to_read(module: Path) -> None:
    tests = module / "tests"
    given = (tests / "case1.input.json").read_text(encoding="utf-8")
    expected = (tests / "case1.expected.json").read_text(encoding="utf-8")
    for i in range(GOLDENS):
        (tests / f"extra{i:03}.input.json").write_text(given, encoding="utf-8")
        (tests / f"extra{i:03}.expected.json").write_text(expected, encoding="utf-8")


def with_env(command: list[str], **env: str) -> list[str]:
    """The harness's command with more variables set for the app (before its own HOME=…)."""
    at = next(i for i, arg in enumerate(command) if arg.startswith("HOME="))
    return [*command[:at], *(f"{k}={v}" for k, v in env.items()), *command[at:]]


def ended(tab: int) -> re.Pattern[str]:
    """The run in tab `tab` shown as ended (its tab label, and the outcome of the active tab)."""
    return re.compile(rf"{tab} · openai.*envelope valid", re.S)


def test_the_run_key_costs_one_request_per_run(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    (module,) = copy_modules(root, "code-reviewer")
    slow_to_read(module)
    answer = (module / "tests" / "case1.expected.json").read_text(encoding="utf-8")
    # About a second of streaming: the burst below arrives while the first run streams.
    llm_server.respond_with(lambda _request: Text(answer, chunk_size=24, delay=0.02))
    (tmp_path / "config.yaml").write_text(
        f"provider: openai\nproviders:\n  openai:\n    base_url: {llm_server.openai_base_url}\n", encoding="utf-8"
    )
    tmux, command, _status = cogtui_in_tmux(tmp_path, root)
    try:
        tmux.start(with_env(command, OPENAI_API_KEY="test-key"), cwd=tmp_path)
        wait_for(tmux, lambda s: bool(label("[✓⚠]", "code-reviewer").search(s)), "code-reviewer, validated")

        # 1. `ctrl+r` with `r`, while the run screen reads the module: kept, then one run.
        tmux.keys("r", "C-r")
        wait_for(tmux, lambda s: bool(ended(1).search(s)), "the kept press's run, ended")
        assert llm_server.request_count == 1

        # 2. A burst, on a run screen opened afresh: one run, and the screen says so.
        tmux.keys("Escape")
        wait_for(tmux, lambda s: "provider / model" not in s, "back in the browser")
        tmux.keys("r")
        wait_for(tmux, lambda s: "code-reviewer · openai gpt-4o-mini" in s and "input matches" in s, "the run screen")
        for gap in (0.06, 0.08, 0.07, 0.06, 0.0):
            tmux.keys("C-r")
            time.sleep(gap)  # the burst itself, as typed: no check waits on it
        sent = time.monotonic()  # the burst's last press left before this
        wait_for(tmux, lambda s: "ctrl+r ×5 within 0.5 s: one run" in s, "every press handled, said as one run")
        screen = wait_for(tmux, lambda s: bool(ended(1).search(s)), "the burst's run, ended")
        assert "2 · openai" not in screen and llm_server.request_count == 2

        # 3. A press more than the window after the last: a second run, in a second tab.
        time.sleep(max(0.0, sent + BURST_WINDOW + 0.2 - time.monotonic()))  # the gap this is about, not a check
        tmux.keys("C-r")
        wait_for(tmux, lambda s: bool(ended(2).search(s)), "the second run, ended")
        assert llm_server.request_count == 3
    finally:
        tmux.kill()
