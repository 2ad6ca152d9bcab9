"""Places one can go to: a small frozen dataclass per screen, carried by `Navigate` (messages.py).

Screens post `Navigate(place)`; the app's one handler calls navigation.go.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from cogtui.core.authoring.migration.plan import MigrationPlan


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
    remake: Callable[[], MigrationPlan | str] | None = None  # the plan made again when its files change (MIG-9)


@dataclass(frozen=True)
class NewModule:
    pass


Place = EditModule | RunModule | GoldenTests | RunHistory | Evaluation | Insights | Migration | PlanPreview | NewModule
