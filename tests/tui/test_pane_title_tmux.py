"""The real binary in tmux: a module named with OSC 0/2 (title) sequences cannot retitle the pane.

A control in the same tmux server shows that the sequences do retitle a pane when written raw, so the check
could fail. The app gets its own HOME, config, data and tmux socket (test_e2e_tmux.cogtui_in_tmux).
"""

from __future__ import annotations

import json
import shutil
import time

import pytest
from test_e2e_tmux import cogtui_in_tmux, wait_for
from tuikit import MODULES

pytestmark = pytest.mark.e2e

TITLE = "\x1b]2;PWNED2\x1b\\\x1b]0;PWNED0\x07\x1bkPWNEDW\x1b\\"  # pane title (OSC 2, OSC 0) and window name


def test_a_hostile_module_name_cannot_retitle_the_pane(tmp_path) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    module = root / f"evil{TITLE}"
    shutil.copytree(MODULES / "code-reviewer", module)
    manifest = (module / "module.yaml").read_text(encoding="utf-8")
    manifest = manifest.replace("name: code-reviewer", f"name: {json.dumps(module.name)}")
    (module / "module.yaml").write_text(manifest.replace("responsibility: ", f"responsibility: {json.dumps(TITLE)} "))
    tmux, command, _status = cogtui_in_tmux(tmp_path, root)
    try:
        tmux.start(command, cwd=tmp_path)
        before = tmux.pane("#{pane_title}")
        # The name is in the tree and the details (the first module is selected at start), escaped.
        wait_for(
            tmux,
            lambda s: s.count("evil\\x1b]2;PWNED2") >= 2 and "Responsibility" in s,
            "the hostile name, escaped, in the tree and the details",
        )
        assert tmux.pane("#{pane_title}") == before and "PWNED" not in before
        # The window name follows the running command (automatic-rename); the sequence never sets it.
        assert "PWNED" not in tmux.pane("#{window_name}")

        # The control: the same bytes written raw to a pane of this server do retitle it.
        raw = tmp_path / "title.bin"
        raw.write_bytes(TITLE.encode())
        tmux("new-window", "-d", "-t", tmux.session, "-n", "control", f"cat {raw}; sleep 30")
        deadline = time.monotonic() + 10
        while "PWNED" not in (
            control := tmux("display-message", "-p", "-t", f"{tmux.session}:control", "#{pane_title}").stdout.strip()
        ):
            assert time.monotonic() < deadline, f"the control pane was not retitled: {control!r}"
            time.sleep(0.05)
    finally:
        tmux.kill()
