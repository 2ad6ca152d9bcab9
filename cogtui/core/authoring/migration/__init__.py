"""Migrating modules to v2.2 / v2.5 (module-formats.md §迁移, SPEC-v2.2 §6, SPEC-v2.5 §10).

    from cogtui.core.module.loader import load_module
    from cogtui.core.authoring.migration import plan_migration, render_plan_text, apply_plan, undo_latest

    plan = plan_migration(load_module("modules/commit-message-writer"), to="2.2")
    print(render_plan_text(plan))          # what --dry-run prints
    result = apply_plan(plan)               # atomic, backed up, validated
    undo_latest(plan.module, plan.path)     # restores the latest backup

A plan is pure data (nothing is written until `apply_plan`); the CLI and the
TUI's migration preview render the same plan. docs/migration.md describes
each upgrade and the JSON form of a plan.
"""

from __future__ import annotations

from cogtui.core.authoring.migration.apply import (
    ApplyResult,
    MigrationError,
    StalePlan,
    UndoResult,
    apply_plan,
    backed_up_modules,
    backups_for,
    staleness,
    undo_latest,
)
from cogtui.core.authoring.migration.plan import FileChange, MigrationIssue, MigrationPlan
from cogtui.core.authoring.migration.planner import blocking_issues, normalize_target, plan_migration
from cogtui.core.authoring.migration.render import plan_lines, render_plan, render_plan_text

__all__ = [
    "ApplyResult",
    "FileChange",
    "MigrationError",
    "MigrationIssue",
    "MigrationPlan",
    "StalePlan",
    "UndoResult",
    "apply_plan",
    "backed_up_modules",
    "backups_for",
    "blocking_issues",
    "normalize_target",
    "plan_lines",
    "plan_migration",
    "render_plan",
    "render_plan_text",
    "staleness",
    "undo_latest",
]
