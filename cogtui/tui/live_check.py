"""The editor's check as you type, run in a process of its own (TUI-20).

A check is pure Python work that holds the interpreter's lock for its whole length: in a thread of the editor's
process, every key typed meanwhile waits for that lock at each step of its handling, so on a module with
thousands of problems the keys waited for the check. In a process of its own the check runs beside the editor
(on another core when there is one), and the editor's worker thread only waits for the answer on a pipe.

`LiveChecker` owns one worker process (`python -m cogtui.tui.live_check_worker`, which runs `main`),
started at the first check with the editor's environment and working directory, so it finds what the editor
would, and ended by `close`. The two speak in pickles over the worker's stdin and stdout (pipes between this
process and its own child, which nothing else writes to): a request is (module folder, overlay), an answer a
`LiveReport` or a failure's text. The answer is what the editor shows (the problems, the module's name and its
contract map), because the loaded `Module` holds compiled validators that cannot leave the process that made
them.

When no process can be started here, or the worker died, the check runs in the calling thread instead: slower
to type beside, never lost. Nothing here imports Textual: the worker process imports this module, and starts
with the checks' imports only.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.sourcemap import file_overlay
from cogtui.core.module.contract_map import ContractMap, contract_map
from cogtui.core.records import record
from cogtui.core.workspace import check_path


@record
class LiveReport:
    """A check's answer, as the editor shows it."""

    diagnostics: list[Diagnostic]
    name: str | None  # the module's name; None when it did not load
    contract: ContractMap | None  # its schema as a tree with the goldens behind each field; None likewise


WORKER = "cogtui.tui.live_check_worker"  # the program the worker process runs (main, below)


class CheckFailed(Exception):
    """The check raised in the worker process (its text: the exception's type and message)."""


def check_overlaid(root: Path, overlay: dict[Path, str]) -> LiveReport:
    """The module at `root` checked with the texts of `overlay` in place of those files on disk."""
    with file_overlay(overlay):
        report = check_path(root)
    module = report.module
    if module is None:
        return LiveReport(list(report.diagnostics), None, None)
    return LiveReport(list(report.diagnostics), module.name, contract_map(module))


class LiveChecker:
    """Checks a module in its worker process. `check` blocks until the answer, so it is called from a worker
    thread; `close` may be called from any thread."""

    def __init__(self, *, in_process: bool = False) -> None:
        self.in_process = in_process  # True: every check runs in the calling thread (no process could be started)
        self.worker: subprocess.Popen[bytes] | None = None
        self.closed = False
        self.lock = threading.Lock()  # one request on the pipe at a time

    def check(self, root: Path, overlay: dict[Path, str]) -> LiveReport | None:
        """The module checked with `overlay`; None when the checker was closed meanwhile (nobody waits for it)."""
        with self.lock:
            worker = self.started()
            if worker is None:
                return None if self.closed else check_overlaid(root, overlay)
            assert worker.stdin is not None and worker.stdout is not None
            try:
                pickle.dump((root, overlay), worker.stdin)
                worker.stdin.flush()
                ok, answer = pickle.load(worker.stdout)
            except (OSError, EOFError, pickle.UnpicklingError):
                if self.closed:
                    return None
                self.worker = None  # it died (killed, out of memory): this check here, the next in a new one
                ended(worker)
                return check_overlaid(root, overlay)
        if not ok:
            raise CheckFailed(answer)
        report: LiveReport = answer
        return report

    def started(self) -> subprocess.Popen[bytes] | None:
        """The worker process, started now when it is not running; None when checks run in this thread."""
        if self.in_process or self.closed or self.worker is not None:
            return self.worker
        try:
            self.worker = subprocess.Popen(
                [sys.executable, "-m", WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # never onto the editor's screen
            )
        except OSError:  # no processes may be started here
            self.in_process = True
        return self.worker

    def close(self) -> None:
        """End the worker process, with the check it may be running (whose answer nobody waits for any more)."""
        self.closed = True
        worker, self.worker = self.worker, None
        if worker is not None:
            ended(worker)


def ended(worker: subprocess.Popen[bytes]) -> None:
    """The worker process killed (it holds nothing to save), waited for, and its pipes closed."""
    worker.kill()
    worker.wait()
    for stream in (worker.stdin, worker.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):  # a request left unsent to the dead process: closed all the same
                stream.close()


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """The worker's loop: a request from `requests`, its answer to `answers`, until the editor closes the pipe."""
    while True:
        try:
            root, overlay = pickle.load(requests)
        except EOFError:
            return
        try:
            answer: tuple[bool, object] = (True, check_overlaid(root, overlay))
        except Exception as exc:  # noqa: BLE001 - a rule's bug: reported (WorkerFailed), the worker goes on
            answer = (False, f"{type(exc).__name__}: {exc}")
        pickle.dump(answer, answers)
        answers.flush()


def main() -> None:
    # The answers get stdout to themselves: anything else printed goes where stderr goes (nowhere).
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, answers)
