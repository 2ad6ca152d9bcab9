"""App-level messages: workers post them, one handler on the app applies them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from ..core.workspace import ModuleReport


class ReportsReady(Message):
    """Fresh reports for some modules; `rediscover` when modules appeared or vanished."""

    def __init__(self, reports: list[ModuleReport], rediscover: bool = False) -> None:
        super().__init__()
        self.reports = reports
        self.rediscover = rediscover
