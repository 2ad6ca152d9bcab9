"""Going places: every screen the browser, the palette and other screens open, in one module."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cogtui.core.authoring.migration.plan import MigrationPlan

    from .app import CogtuiApp


def open_module(app: CogtuiApp, path: Path, file: Path | None = None) -> None:
    from .screens.editor import EditorScreen

    app.push_screen(EditorScreen(path, focus_file=file))


def run_module(app: CogtuiApp, path: Path) -> None:
    from .screens.run import RunScreen

    app.push_screen(RunScreen(path))


def goldens(app: CogtuiApp, path: Path) -> None:
    from .screens.goldens import GoldensScreen

    app.push_screen(GoldensScreen(path))


def evaluate(app: CogtuiApp, path: Path) -> None:
    from .screens.eval import EvalScreen

    app.push_screen(EvalScreen(path, app.config, app.store.load))


def history(app: CogtuiApp, path: Path) -> None:
    from .screens.history import HistoryScreen

    app.push_screen(HistoryScreen(path))


def insights(app: CogtuiApp, module: str | None) -> None:
    from .screens.insights import InsightsScreen

    app.push_screen(InsightsScreen(module))


def migrate(app: CogtuiApp, paths: list[Path]) -> None:
    from .screens.migrate import MigrationScreen

    app.push_screen(MigrationScreen.for_modules(paths))


def migrate_all(app: CogtuiApp) -> None:
    migrate(app, [e.path for e in app.store.winners])


def new_module(app: CogtuiApp) -> None:
    from .screens.modals import NewModuleModal

    def created(path: Path | None) -> None:
        if path is None:
            return
        from .messages import ReportsReady

        app.post_message(ReportsReady([], rediscover=True))
        app.call_later(app.validate_all)
        app.notify(f"Created {app.store.display(path)}", title="New module", markup=False)
        if app.watching:
            app.call_later(app.start_watching)
        app.call_later(open_module, app, path)

    app.push_screen(NewModuleModal(app.store.search_path, app.store.index), created)


def toggle_watching(app: CogtuiApp) -> None:
    app.watching = not app.watching
    if app.watching:
        app.start_watching()
    else:
        app.workers.cancel_group(app, "fs-watch")
    app.notify("Watching files" if app.watching else "Not watching files")
    app.persist("watch", app.watching)


def preview_plan(app: CogtuiApp, plan: MigrationPlan, title: str = "Review the change") -> None:
    """Show any MigrationPlan (a migration, or a promotion from the insights dashboard) in the migration
    preview; applying it uses the same confirm/apply/undo flow."""
    from .screens.migrate import MigrationScreen

    app.push_screen(MigrationScreen.for_plan(plan, title=title))
