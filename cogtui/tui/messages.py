"""App-level messages: workers and screens post them, one handler on the app applies each.

`Navigate` carries a place (places.py: a small frozen record declared with each screen one can go to):
screens never import each other or the app to open a screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from pathlib import Path

    from cogtui.core.workspace import ModuleReport

    from .places import Place


class ReportsReady(Message):
    """Fresh reports for some modules; `rediscover` when modules appeared or vanished.

    `stamps` are the store's request stamps the reports answer (ModuleStore.request), so an older
    validation that finishes late cannot overwrite a newer one.
    """

    def __init__(
        self, reports: list[ModuleReport], rediscover: bool = False, stamps: dict[Path, int] | None = None
    ) -> None:
        super().__init__()
        self.reports = reports
        self.rediscover = rediscover
        self.stamps = stamps


class ThemesChanged(Message):
    """A file in the user's theme folder changed: the app reloads the themes in its handler."""


class WatchState(Message):
    """What the module watcher can watch: `note` is what it leaves out ("" when nothing), or, when `stopped`,
    why it stopped watching. The app keeps it for the browser's status (`Workbench.watch_note`)."""

    def __init__(self, note: str, stopped: bool = False) -> None:
        super().__init__()
        self.note = note
        self.stopped = stopped


class HistoryWaiting(Message):
    """How many runs wait in the history's outbox (kept when the history could not take them): posted after a
    run is recorded or kept, and when cogtui has delivered what was waiting as it starts."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count


class Navigate(Message):
    """Go to a place: screens post it to the app (`self.app.post_message`), whose one handler pushes the screen
    (navigation.go). Posted straight to the app, it is queued ahead of the key pipeline's marker for the key
    that asked for it, so the next key typed goes to the new screen (key_pipeline.py)."""

    def __init__(self, place: Place) -> None:
        super().__init__()
        self.place = place
