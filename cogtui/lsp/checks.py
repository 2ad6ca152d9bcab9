"""When the server checks a module, and what it publishes.

Every change to a file of a module (an edit of an open buffer, a save, a file changed on disk) counts as a change
of that module. A check starts once the changes pause for DEBOUNCE_S, off the message loop (in one worker thread:
the loop keeps answering hover and completion meanwhile), and reads the open buffers as they are when it starts.
One check runs per module at a time; changes made while it runs make it stale: its answer is dropped (a newer
edit supersedes an older check) and one more check follows, so a burst of typing costs at most two checks.

A check publishes for every file of the module it read: the files with diagnostics get them, and every file that
had some before and has none now, open or not, is cleared. So editing schema.json republishes (or clears) the
goldens' and examples' diagnostics even when they are not open. The server remembers, per module, only the URIs
it published to and its change counts; modules are forgotten (their diagnostics cleared) beyond MAX_MODULES.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cogtui.core.assist.checked import Checked, check_buffers

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.03  # a pause in typing this long starts a check
MAX_MODULES = 64  # modules whose published files are remembered; the least recently changed is forgotten first


@dataclass
class ModuleChecks:
    """One module's checks: how many changes it had, which one the running check answers, what was published."""

    root: Path
    changes: int = 0
    running: bool = False
    timer: asyncio.TimerHandle | None = None
    published: set[Path] = field(default_factory=set)
    checks: int = 0  # checks started, for the server's own accounting (the protocol tests count them)


Publish = Callable[[Checked | None, "ModuleChecks"], set[Path]]  # publishes a check; returns the paths published to
Buffers = Callable[[Path], dict[Path, str]]  # the open buffers under a module folder


class Checker:
    """Schedules and runs the checks of every module the editor touches."""

    def __init__(self, buffers: Buffers, publish: Publish, failed: Callable[[Path, BaseException], None]) -> None:
        self.buffers, self.publish, self.failed = buffers, publish, failed
        self.modules: OrderedDict[Path, ModuleChecks] = OrderedDict()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cogn-lsp-check")
        self.debounce_s = DEBOUNCE_S

    def changed(self, root: Path, at_once: bool = False) -> None:
        """A file of the module at `root` changed: check it once the changes pause (`at_once`: now)."""
        state = self.modules.get(root)
        if state is None:
            state = self.modules[root] = ModuleChecks(root)
            self._forget_beyond_limit()
        self.modules.move_to_end(root)
        state.changes += 1
        if state.timer is not None:
            state.timer.cancel()
        loop = asyncio.get_running_loop()
        state.timer = loop.call_later(0 if at_once else self.debounce_s, self._start, state)

    def _start(self, state: ModuleChecks) -> None:
        state.timer = None
        if state.running:  # its end starts the next one
            return
        state.running = True
        state.checks += 1
        answers = state.changes
        buffers = self.buffers(state.root)
        loop = asyncio.get_running_loop()
        future: Future[Checked] = self.pool.submit(check_buffers, state.root, buffers)
        future.add_done_callback(lambda f: loop.call_soon_threadsafe(self._ended, state, answers, f))

    def _ended(self, state: ModuleChecks, answers: int, future: Future[Checked]) -> None:
        state.running = False
        if state.changes != answers:  # superseded: a newer edit came while it ran
            if state.timer is None and self.modules.get(state.root) is state:
                self._start(state)
            return
        error = future.exception()
        if error is not None:
            self.failed(state.root, error)
            return
        state.published = self.publish(future.result(), state)

    def _forget_beyond_limit(self) -> None:
        while len(self.modules) > MAX_MODULES:
            _root, old = self.modules.popitem(last=False)
            if old.timer is not None:
                old.timer.cancel()
            self.publish(None, old)  # clears what it published

    def shutdown(self) -> None:
        for state in self.modules.values():
            if state.timer is not None:
                state.timer.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)
