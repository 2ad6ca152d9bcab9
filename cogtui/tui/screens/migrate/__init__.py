"""The migration preview: modules' upgrade plans, applied and undone; any plan reviewed so (its screen: screen.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cogtui.core.records import record

from ...places import Place, ScreenSpec

if TYPE_CHECKING:
    from cogtui.core.authoring.migration.plan import MigrationPlan


@record
class Migration(Place):
    paths: tuple[Path, ...]


@record
class PlanPreview(Place):
    """Any MigrationPlan (a promotion from the insights dashboard) shown and applied like a migration."""

    plan: MigrationPlan
    title: str = "Review the change"
    remake: Callable[[], MigrationPlan | str] | None = None  # the plan made again when its files change (MIG-9)


SPECS = (
    ScreenSpec(
        "migration",
        Migration,
        "cogtui.tui.screens.migrate.screen:MigrationScreen",
        opener="cogtui.tui.navigation:migrate",  # one live preview per set of modules (TUI-2)
        order=30,
        for_module=lambda path, _name: Migration((path,)),
        anywhere=Migration,
        key="m",
        key_name="migrate",
        key_label="Migrate",
        key_doc="migration preview",
        scene=lambda root: Migration((root / "legacy-summarizer",)),
        keys_heading="Migration preview and `cogtui review`",
        key_groups=("migrate",),
        main_key=True,
        palette_module=("Migrate {name}", "preview the upgrade plan"),
        palette_anywhere=("Migrate all modules…", "preview and apply upgrades of every legacy module"),
    ),
    # No key or palette entry: a plan to review comes from another screen (the insights dashboard's promotions).
    ScreenSpec(
        "plan-preview",
        PlanPreview,
        "cogtui.tui.screens.migrate.screen:MigrationScreen",
        opener="cogtui.tui.navigation:preview_plan",
        order=90,
    ),
)
