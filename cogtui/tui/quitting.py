"""Quitting while work is in flight: every screen that runs something says what quitting cuts short, and stops it.

The app's one quit action (app.py) asks `quit_note` of the screens on the stack (a screen under another one keeps
running), asks the user when there is something, and on confirm calls `stop_everything`, which calls `then` once
every such screen has settled: the run screen first records each cancelled run in the history as interrupted; an
eval or a golden run is cancelled at once (neither is recorded unfinished).

Unsaved edits are the editors' (`HoldsEdits`): the quit dialog names each editor's unsaved files, and "Save all
and quit" saves them editor by editor (each save may ask: a merge, a deleted file) before quitting; a save that
does not happen keeps the app open.
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


@runtime_checkable
class HoldsEdits(Protocol):
    """A screen that may hold unsaved edits (an editor)."""

    def unsaved_files(self) -> tuple[str, list[str]]: ...  # (whose: the module's name, the unsaved files' names)

    def save_all(self, then: Callable[[], object]) -> None:
        """Save every unsaved file, then call `then`; never calls it when a save does not happen."""
        ...


def _editors(app: App[Any]) -> list[HoldsEdits]:
    return [s for s in app.screen_stack if isinstance(s, HoldsEdits) and s.unsaved_files()[1]]


def unsaved_note(app: App[Any]) -> str | None:
    """The unsaved files by module ("Unsaved edits in code-reviewer: module.yaml, prompt.md."), or None."""
    held = [editor.unsaved_files() for editor in _editors(app)]
    if not held:
        return None
    return "Unsaved edits in " + "; ".join(f"{whose}: {', '.join(files)}" for whose, files in held) + "."


def save_everything(app: App[Any], then: Callable[[], object]) -> None:
    """Save every editor's unsaved files, one editor after another, then call `then`."""
    editors = _editors(app)

    def next_editor() -> None:
        if editors:
            editors.pop(0).save_all(next_editor)
        else:
            then()

    next_editor()


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
