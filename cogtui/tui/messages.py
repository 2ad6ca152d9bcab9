"""App-level messages: workers and screens post them, one handler on the app applies each.

`Navigate` carries a place (a small frozen dataclass per screen one can go to):
screens never import each other or the app to open a screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from pathlib import Path

    from cogtui.core.authoring.migration.plan import MigrationPlan
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


# ------------------------------------------------------------ going places


@dataclass(frozen=True)
class EditModule:
    path: Path
    file: Path | None = None  # the tab to open first (else the manifest)


@dataclass(frozen=True)
class RunModule:
    path: Path
    input_value: Any = None  # the input to start from (else the module's own choice)
    autorun: bool = False


@dataclass(frozen=True)
class GoldenTests:
    path: Path


@dataclass(frozen=True)
class RunHistory:
    path: Path


@dataclass(frozen=True)
class Evaluation:
    path: Path  # the module whose eval runs


@dataclass(frozen=True)
class Insights:
    module: str | None  # None: every module


@dataclass(frozen=True)
class Migration:
    paths: tuple[Path, ...]


@dataclass(frozen=True)
class PlanPreview:
    """Any MigrationPlan (a promotion from the insights dashboard) shown and applied like a migration."""

    plan: MigrationPlan
    title: str = "Review the change"


@dataclass(frozen=True)
class NewModule:
    pass


Place = EditModule | RunModule | GoldenTests | RunHistory | Evaluation | Insights | Migration | PlanPreview | NewModule


class Navigate(Message):
    """Go to a place: screens post it to the app (`self.app.post_message`), whose one handler pushes the screen
    (navigation.go). Posted straight to the app, it is queued ahead of the key pipeline's marker for the key
    that asked for it, so the next key typed goes to the new screen (key_pipeline.py)."""

    def __init__(self, place: Place) -> None:
        super().__init__()
        self.place = place
