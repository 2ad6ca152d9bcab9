"""Reading a module off the UI thread for the screens that show or run it: one read at a time.

The run, golden tests and eval screens read the module from disk as they open and again for every run
(`ctrl+r`): a schema, prompt or golden changed since the screen opened is run as it is now (`store.load_now`).
Reading and parsing grows with the module (every golden is read), too long for the UI thread: `ModuleLoads.start` loads it
in a thread worker that posts one `ModuleLoaded` to the screen, whose handler hands it to `arrived` and goes on
from there. While a load is under way another `start` is refused: two overlapping loads never start two runs
(TUI-4; the run screen keeps a press made meanwhile and runs it once the module is read, TUI-5). The editor reads its module and every file it opens as tabs the same way as it opens,
and lists the module's folder for its tab list (`f2`) with a `FolderReads` of its own (TUI-4).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.message import Message

from cogtui.core.module.model import Module  # at run time: ModuleLoads is a FolderReads[Module]

from .store import load_now

if TYPE_CHECKING:
    from textual.screen import Screen

T = TypeVar("T")


class ModuleLoaded(Message):
    """What a read of the module folder found (or why it could not: a str), for what the screen asked it for
    (`purpose`: None when the screen opens, else what the screen keeps for what it does once read); `reads` is the
    `FolderReads` that asked, for a screen that reads more than one thing."""

    bubble = False  # the screen that asked is the one that answers

    def __init__(self, loaded: Any, purpose: Any = None, reads: FolderReads[Any] | None = None) -> None:
        super().__init__()
        self.loaded, self.purpose, self.reads = loaded, purpose, reads


class FolderReads(Generic[T]):
    """The reads of one module folder for one screen: `start` one, and `arrived` once its `ModuleLoaded` is
    handled. `read(path)` runs in the thread worker and returns what was read, or a str saying why it could not be;
    the worker is called `what`."""

    def __init__(self, screen: Screen[Any], path: Path, read: Callable[[Path], T | str], what: str) -> None:
        self.screen, self.path, self.read, self.what = screen, path, read, what
        self.loading = False  # a read is under way: `start` is refused until it has arrived

    def start(self, purpose: Any = None) -> bool:
        """Read in a thread worker, which posts `ModuleLoaded(…, purpose)`; False (nothing starts) while a read is
        under way."""
        if self.loading:
            return False
        self.loading = True
        screen, path, read = self.screen, self.path, self.read

        def work() -> None:
            loaded: T | str = f"Cannot read {path}"
            try:
                loaded = read(path)
            finally:  # an unexpected failure is reported as any worker's is, and the next start works again
                screen.post_message(ModuleLoaded(loaded, purpose, self))

        screen.run_worker(work, thread=True, group=f"read:{self.what}", exit_on_error=False, name=self.what)
        return True

    def arrived(self, message: ModuleLoaded) -> T | str:
        """The read `message` answers is over: the next `start` may read again."""
        self.loading = False
        loaded: T | str = message.loaded
        return loaded


class ModuleLoads(FolderReads[Module]):
    """The loads of one module for one screen (the module as its files are now: `store.load_now`)."""

    def __init__(self, screen: Screen[Any], path: Path) -> None:
        super().__init__(screen, path, load_now, "load the module")
