"""Quitting while work is in flight: every screen that runs something says what quitting cuts short, and stops it.

The app's one quit action (app.py) asks `quit_note` of the screens on the stack (a screen under another one keeps
running), asks the user when there is something, and on confirm calls `stop_everything`, which calls `then` once
every such screen has settled: the run screen first records each cancelled run in the history as interrupted; an
eval or a golden run is cancelled at once (neither is recorded unfinished).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, runtime_checkable

from textual.app import App


class InFlight(NamedTuple):
    """What a screen has running: how many, of what (singular noun), and what quitting does to them (`{it}` is
    "it" for one and "each" for more)."""

    number: int
    noun: str
    fate: str


@runtime_checkable
class StopsOnQuit(Protocol):
    """A screen whose work quitting must not cut short silently."""

    quitting: bool  # a confirmed quit waits for this screen to settle

    def in_flight(self) -> InFlight | None: ...

    def stop_for_quit(self, settled: Callable[[], object]) -> None:
        """Cancel what runs and start nothing new; call `settled` once (at once when nothing needs finishing)."""
        ...


def _stoppers(app: App[Any]) -> list[StopsOnQuit]:
    return [s for s in app.screen_stack if isinstance(s, StopsOnQuit)]


def quit_note(app: App[Any]) -> str | None:
    """What quitting would cut short, one sentence per kind of work ("1 run is still running: …"), or None."""
    totals: dict[tuple[str, str], int] = {}
    for screen in _stoppers(app):
        if (work := screen.in_flight()) is not None and work.number:
            totals[work.noun, work.fate] = totals.get((work.noun, work.fate), 0) + work.number
    notes = []
    for (noun, fate), count in totals.items():
        what = f"1 {noun} is" if count == 1 else f"{count} {noun}s are"
        notes.append(f"{what} still running: {fate.format(it='it' if count == 1 else 'each')}.")
    return " ".join(notes) or None


def quit_pending(app: App[Any]) -> bool:
    """A confirmed quit is waiting for its cancelled work to settle (the runs to be recorded)."""
    return any(s.quitting for s in _stoppers(app))


def stop_everything(app: App[Any], then: Callable[[], object]) -> None:
    """Quitting: stop the work of every screen, then call `then` (once) when each has settled."""
    screens = _stoppers(app)
    left = [len(screens)]

    def settled() -> None:
        left[0] -= 1
        if left[0] == 0:
            then()

    for screen in screens:
        screen.quitting = True
        screen.stop_for_quit(settled)
    if not screens:
        then()
