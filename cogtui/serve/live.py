"""A catalogue kept up to date while a server runs, and the server's log (stderr: stdout may be a protocol).

The search path's folders are watched (core/module/watching.py, as the TUI watches them); each batch of
changes refreshes the catalogue in a thread, and when the list of offered modules or what a client sees
of one changed, every listener is told (MCP's list_changed notifications). A module that does not validate
is logged with its diagnostics once per new set of reasons, and is not offered.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from cogtui.core.files.terminal_text import visible
from cogtui.core.serving.catalogue import Catalogue, CatalogueChange

Listener = Callable[[CatalogueChange], Awaitable[None]]


class Log:
    """One line per event on stderr, prefixed by the command, with any text from files or clients escaped."""

    def __init__(self, prog: str) -> None:
        self.prog = prog

    def __call__(self, text: str) -> None:
        print(f"{self.prog}: {visible(text)}", file=sys.stderr, flush=True)


class LiveCatalogue:
    """A catalogue, refreshed as files change; listeners hear of every change a client would see."""

    def __init__(self, catalogue: Catalogue, log: Log) -> None:
        self.catalogue = catalogue
        self.log = log
        self.listeners: list[Listener] = []
        self.lock = asyncio.Lock()
        self.refreshed = 0  # refreshes done (tests wait on the catalogue through what clients see, not on this)

    def first_look(self) -> None:
        """The first refresh, before the server answers anyone; refusals are logged."""
        self.report(self.catalogue.refresh())

    def report(self, change: CatalogueChange) -> None:
        for refusal in change.refused:
            self.log(f"not offered: {refusal.name} ({refusal.path}), because:")
            for reason in refusal.reasons[:20]:
                self.log(f"  {reason}")
        for what, names in (("offered", change.appeared), ("changed", change.changed)):
            if names and self.refreshed:
                self.log(f"{what}: {', '.join(names)}")
        gone = [n for n in change.vanished if n not in {r.name for r in change.refused}]
        if gone:
            self.log(f"no longer offered: {', '.join(gone)}")
        self.refreshed += 1

    async def refresh(self, changed: list[Path]) -> None:
        async with self.lock:
            change = await asyncio.to_thread(self.catalogue.refresh, changed)
            self.report(change)
        if change.listing_changed:
            for listener in list(self.listeners):
                await listener(change)

    async def follow(self) -> None:
        """Watch the search path until cancelled; each batch of changes refreshes the catalogue."""
        from cogtui.core.module.watching import follow_changes

        roots = self.catalogue.roots
        if not roots:
            return
        pending: asyncio.Queue[list[Path]] = asyncio.Queue()

        def on_state(text: str, stopped: bool) -> None:
            if text:
                self.log(("stopped watching the search path: " if stopped else "watching files; ") + text)

        async def refresher() -> None:
            while True:
                changed = await pending.get()
                while not pending.empty():  # changes that came meanwhile: one refresh for all of them
                    changed += pending.get_nowait()
                try:
                    await self.refresh(changed)
                except Exception as exc:  # noqa: BLE001 - a bug must not stop the watch; it is said, and the next change tries again
                    self.log(f"internal error while looking at the search path again: {type(exc).__name__}: {exc}")

        task = asyncio.get_running_loop().create_task(refresher())
        try:
            await follow_changes(roots, lambda changes: pending.put_nowait([Path(p) for _, p in changes]), on_state)
        finally:
            task.cancel()
