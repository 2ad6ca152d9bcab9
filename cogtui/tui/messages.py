"""App-level messages: workers post them, one handler on the app applies them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from pathlib import Path

    from cogtui.core.workspace import ModuleReport


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
