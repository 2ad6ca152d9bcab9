"""The real `cogtui` binary in a detached tmux session: startup, live validation of a file edited elsewhere, quit.

Catches what Pilot cannot: the console script, terminal setup, the default
config (file watching on), the watcher thread and a clean exit. tmux runs on
its own socket with no user config; the app gets its own HOME, config and data
folders. CI installs tmux (.ci/run): without it this test fails, it does not skip.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from tuikit import HANG_S, copy_modules
from unreadable import as_unprivileged

from cogtui.core.run.providers.registry import secret_variables

pytestmark = pytest.mark.e2e

TIMEOUT = HANG_S  # a bound for a hang (tuikit.HANG_S)
WIDTH, HEIGHT = 120, 36


class Tmux:
    """One tmux server on a private socket, with one session running one command."""

    def __init__(self, binary: str, workdir: Path) -> None:
        self.binary = binary
        self.socket = f"cogtui-e2e-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.session = "cogtui"
        self.socket_path: Path | None = None
        # No ~/.tmux.conf; keep the pane after the command exits, so a crash's traceback can be shown.
        self.conf = workdir / "tmux.conf"
        self.conf.write_text("set -g remain-on-exit on\n", encoding="utf-8")

    def __call__(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.binary, "-L", self.socket, "-f", str(self.conf), *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=TIMEOUT,
        )

    def start(self, command: list[str], cwd: Path) -> None:
        self(
            "new-session",
            "-d",
            "-x",
            str(WIDTH),
            "-y",
            str(HEIGHT),
            "-s",
            self.session,
            "-c",
            str(cwd),
            shlex.join(command),
        )
        self.socket_path = Path(self.pane("#{socket_path}"))

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", self.session).stdout

    def pane(self, fmt: str) -> str:
        return self("display-message", "-p", "-t", self.session, fmt).stdout.strip()

    def keys(self, *keys: str) -> None:
        self("send-keys", "-t", self.session, *keys)

    def kill(self) -> None:
        self("kill-server", check=False)
        if self.socket_path is not None:  # tmux leaves the socket file behind
            self.socket_path.unlink(missing_ok=True)


def wait_for(tmux: Tmux, predicate: Callable[[str], bool], what: str) -> str:
    """Poll the pane until `predicate(screen text)` holds; fail with the screen after TIMEOUT seconds."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        screen = tmux.screen()
        if predicate(screen):
            return screen
        if tmux.pane("#{pane_dead}") == "1":
            pytest.fail(f"cogtui exited while waiting for {what}; the screen:\n{screen}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {TIMEOUT:.0f} s waiting for {what}; the screen:\n{screen}")
        time.sleep(0.1)


def label(status: str, name: str) -> re.Pattern[str]:
    """A module's tree label: its status (✓, ⚠n, ✗n) right before its name."""
    return re.compile(rf"{status}\d*\s+{re.escape(name)} ")


def cogtui_in_tmux(tmp_path: Path, root: Path, unprivileged: bool = False) -> tuple[Tmux, list[str], Path]:
    """A tmux server for the real `cogtui --path ROOT` with its own HOME, config and data; the command runs in
    a shell that writes its exit status to the returned file. `unprivileged`: file permissions bind the app
    even when the tests run as root (tests/unreadable.py)."""
    tmux_binary = shutil.which("tmux")
    if tmux_binary is None:
        pytest.fail("tmux is not installed: the end-to-end test needs it (`apt-get install tmux`; .ci/run installs it)")
    cogtui = Path(sys.executable).parent / "cogtui"
    assert cogtui.is_file(), f"{cogtui} is missing: install the package in this venv (`make dev`)"
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    # COLUMNS and LINES: pytest imports readline, and GNU readline exports COLUMNS=80 LINES=24 into the C
    # environment (not os.environ). The tmux server and so the app would inherit them and draw at 80×24.
    unset = (
        "COLUMNS",
        "LINES",
        "COGNITIVE_MODULES_PATH",
        "COGNITIVE_PROVIDER",
        "COGNITIVE_MODEL",
        *secret_variables(),  # every provider's key
    )
    command = [
        "env",
        *(arg for name in unset for arg in ("-u", name)),
        f"HOME={home}",
        f"XDG_CONFIG_HOME={tmp_path / 'xdg-config'}",
        f"COGTUI_CONFIG_FILE={tmp_path / 'config.yaml'}",
        f"COGTUI_DATA_DIR={tmp_path / 'data'}",
        f"COGTUI_CACHE_DIR={tmp_path / 'cache'}",
        f"COGTUI_STATE_DIR={tmp_path / 'state'}",
        "TERM=xterm-256color",
        str(cogtui),
        "--path",
        str(root),
    ]
    if unprivileged:
        command = as_unprivileged(command)
    # A shell records the exit status: tmux 3.3 does not always reap a pane's process, so #{pane_dead_status}
    # can stay empty after the app has exited.
    status_file = tmp_path / "exit-status"
    command = ["sh", "-c", 'status_file=$1; shift; "$@"; echo $? > "$status_file"', "sh", str(status_file), *command]

    return Tmux(tmux_binary, tmp_path), command, status_file


def test_live_validation_of_a_file_edited_elsewhere_then_quit(tmp_path: Path) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    copy_modules(root, "code-reviewer", "product-ideas")
    manifest = root / "code-reviewer" / "module.yaml"
    original = manifest.read_bytes()
    tmux, command, status_file = cogtui_in_tmux(tmp_path, root)
    try:
        tmux.start(command, cwd=tmp_path)
        # The status line may sit under the startup toast (the terminal's colour notice) for a moment.
        screen = wait_for(
            tmux,
            lambda s: (
                bool(label("✓", "code-reviewer").search(s) and label("✓", "product-ideas").search(s))
                and "watching files" in s
            ),
            "both modules, validated, and the status line saying files are watched",
        )
        assert tmux.pane("#{pane_width}x#{pane_height}") == f"{WIDTH}x{HEIGHT}"
        assert max(len(line) for line in screen.splitlines()) > 80, f"the app did not use the whole pane:\n{screen}"

        if "modules/code-reviewer" not in screen:  # the browser shows the first module's details by itself
            tmux.keys("/", "code-reviewer", "Enter")  # filter, then enter goes to the first match
        wait_for(tmux, lambda s: "modules/code-reviewer" in s and "Responsibility" in s, "code-reviewer's details")

        manifest.write_bytes(re.sub(rb"(?m)^tier: .*$", b"tier: bogus", original))
        wait_for(tmux, lambda s: bool(label("✗", "code-reviewer").search(s)), "✗ in the tree after the edit")
        # Problems head the details, so the new diagnostic is on screen without scrolling.
        wait_for(tmux, lambda s: "M003" in s and "tier 'bogus'" in s, "M003 in the details")

        manifest.write_bytes(original)
        wait_for(
            tmux,
            lambda s: "M003" not in s and bool(label("✓", "code-reviewer").search(s)),
            "code-reviewer valid again after the file was restored",
        )

        tmux.keys("q")
        deadline = time.monotonic() + TIMEOUT
        while not status_file.exists() or tmux.pane("#{pane_dead}") != "1":
            if time.monotonic() > deadline:
                pytest.fail(f"cogtui did not exit after q; the screen:\n{tmux.screen()}")
            time.sleep(0.1)
        status = status_file.read_text(encoding="utf-8").strip()
        assert status == "0", f"cogtui exited with status {status}:\n{tmux.screen()}"
        assert "Traceback" not in tmux.screen()
        tmux("kill-session", "-t", tmux.session)  # the pane stays after exit only because of remain-on-exit
        assert tmux("has-session", "-t", tmux.session, check=False).returncode != 0
    finally:
        tmux.kill()


def test_a_terminal_that_hangs_up_ends_cogtui_even_when_no_sighup_reaches_it(tmp_path: Path) -> None:
    """Closed under a wrapper that keeps SIGHUP from it (as `make run` does), cogtui sees its terminal hang up and
    quits, instead of living on with a dead terminal while Textual's input thread spins on end-of-file."""
    root = tmp_path / "modules"
    root.mkdir()
    copy_modules(root, "code-reviewer")
    tmux, command, status_file = cogtui_in_tmux(tmp_path, root)
    assert command[:2] == ["sh", "-c"]
    command[2] = 'trap "" HUP; ' + command[2]  # SIGHUP ignored by the shell, and so by cogtui, which inherits it
    try:
        tmux.start(command, cwd=tmp_path)
        wait_for(tmux, lambda s: bool(label("✓", "code-reviewer").search(s)), "the module, validated")
        tmux("kill-session", "-t", tmux.session)  # the terminal goes away
        deadline = time.monotonic() + TIMEOUT
        while not status_file.exists():
            if time.monotonic() > deadline:
                pytest.fail("cogtui did not exit after its terminal hung up")
            time.sleep(0.1)
        assert status_file.read_text(encoding="utf-8").strip() == "0"
    finally:
        tmux.kill()
