"""Loading a module off the UI thread for the screens that run it (run, golden tests, eval): one load at a time.

Each of them reads the module from disk as it opens and again for every run (`ctrl+r`): a schema, prompt or golden
changed since the screen opened is run as it is now (`store.load_now`). Reading and parsing takes about 150 ms
with 500 goldens, too long for the UI thread: `ModuleLoads.start` loads it in a thread worker that posts one
`ModuleLoaded` to the screen, whose handler hands it to `arrived` and goes on from there. While a load is under way
another `start` is refused: a burst of `ctrl+r` is one load, and one run, not one per press (D153c).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from .store import load_now

if TYPE_CHECKING:
    from textual.screen import Screen

    from cogtui.core.module.model import Module


class ModuleLoaded(Message):
    """The module as its files are now (or why it cannot be loaded), for what the screen asked it for (`purpose`:
    None when the screen opens, else what the screen keeps for the run it starts once loaded)."""

    bubble = False  # the screen that asked is the one that answers

    def __init__(self, loaded: Module | str, purpose: Any = None) -> None:
        super().__init__()
        self.loaded, self.purpose = loaded, purpose


class ModuleLoads:
    """The loads of one module for one screen: `start` one, and `arrived` once its `ModuleLoaded` is handled."""

    def __init__(self, screen: Screen[Any], path: Path) -> None:
        self.screen, self.path = screen, path
        self.loading = False  # a load is under way: `start` is refused until it has arrived

    def start(self, purpose: Any = None) -> bool:
        """Load the module in a thread worker, which posts `ModuleLoaded(…, purpose)`; False (nothing starts) while
        a load is under way."""
        if self.loading:
            return False
        self.loading = True
        screen, path = self.screen, self.path

        def load() -> None:
            loaded: Module | str = f"Cannot load {path}"
            try:
                loaded = load_now(path)
            finally:  # an unexpected failure is reported as any worker's is, and the next start works again
                screen.post_message(ModuleLoaded(loaded, purpose))

        screen.run_worker(load, thread=True, group="module-load", exit_on_error=False, name="load the module")
        return True

    def arrived(self, message: ModuleLoaded) -> Module | str:
        """The load `message` answers is over: the next `start` may load again."""
        self.loading = False
        return message.loaded
