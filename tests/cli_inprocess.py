"""`cogn ARGS` run inside the test process, seen from outside exactly as a child process would be.

A child `python -m cogtui.cli` pays an interpreter start and every import again (the anthropic SDK alone
costs about 2 s of CPU): most CLI tests are about what a command prints, returns and stores, not about
the process boundary, so they run it here. What the child would get is what the call gets: its own
environment (the whole of `env`, nothing inherited), working folder, stdin, `sys.argv`, and its
output captured at the file-descriptor level (what any thread or library writes to fd 1 or 2 is
caught, as a pipe would). The exit status is `main()`'s return or `SystemExit`'s code; an exception
that escapes `main()` is printed as Python prints it (a "Traceback" the callers look for) with status 1.

The command runs in its own thread, so a test that is itself a coroutine can call it (`asyncio.run`
inside the command needs a thread without a running loop) and a hang ends at `timeout` as
`subprocess.TimeoutExpired`. Calls are serialised: the environment and the working folder are the
process's. What needs a real process (a fault point that kills it, the TUI) uses `subprocess`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path

_ONE_AT_A_TIME = threading.Lock()


def run_cli(
    args: Sequence[str], *, cwd: str | Path, env: Mapping[str, str], timeout: float = 60, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m cogtui.cli ARGS` with `env` as the whole environment, in `cwd`; like `subprocess.run(...,
    capture_output=True, text=True)`."""
    from cogtui.cli import main

    argv = ["cogn", *args]
    encoding, _, errors = (env.get("PYTHONIOENCODING") or "utf-8").partition(":")
    status: list[int] = []

    def command() -> None:
        try:
            status.append(main(list(args), prog="cogn"))
        except SystemExit as stop:
            if stop.code is None or isinstance(stop.code, int):
                status.append(stop.code or 0)
            else:
                print(stop.code, file=sys.stderr)
                status.append(1)
        except BaseException:  # noqa: BLE001 - what the interpreter would print and exit with
            traceback.print_exc()
            status.append(1)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()

    with _ONE_AT_A_TIME, _Captured(encoding, errors or "strict", input or "") as captured:
        saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.argv = argv
        try:
            thread = threading.Thread(target=command, name="cogn-in-process", daemon=True)
            thread.start()
            thread.join(timeout)
        finally:
            sys.argv = saved_argv
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
    if thread.is_alive():
        raise subprocess.TimeoutExpired(argv, timeout, captured.stdout, captured.stderr)
    return subprocess.CompletedProcess(argv, status[0], captured.stdout, captured.stderr)


class _Captured:
    """fd 0/1/2 and sys.stdin/stdout/stderr pointed at temporary files for the duration of the block."""

    def __init__(self, encoding: str, errors: str, stdin_text: str) -> None:
        self.encoding, self.errors, self.stdin_text = encoding, errors, stdin_text
        self.stdout = self.stderr = ""

    def __enter__(self) -> _Captured:
        sys.stdout.flush()
        sys.stderr.flush()
        self.files = [tempfile.TemporaryFile() for _ in range(3)]  # noqa: SIM115 - closed in __exit__
        self.files[0].write(self.stdin_text.encode(self.encoding))
        self.files[0].seek(0)
        self.saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
        for fd, file in enumerate(self.files):
            os.dup2(file.fileno(), fd)
        self.saved_streams = (sys.stdin, sys.stdout, sys.stderr)
        sys.stdin, sys.stdout, sys.stderr = (
            open(fd, mode, encoding=self.encoding, errors=self.errors, closefd=False)  # noqa: SIM115
            for fd, mode in ((0, "r"), (1, "w"), (2, "w"))
        )
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdin, sys.stdout, sys.stderr = self.saved_streams
        for fd, saved in enumerate(self.saved_fds):
            os.dup2(saved, fd)
            os.close(saved)
        out = []
        for file in self.files[1:]:
            file.seek(0)
            out.append(file.read().decode(self.encoding, "replace"))
            file.close()
        self.files[0].close()
        # Universal newlines, as `subprocess.run(text=True)` reads a pipe.
        self.stdout, self.stderr = (text.replace("\r\n", "\n").replace("\r", "\n") for text in out)
