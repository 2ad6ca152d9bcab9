"""Going places: the one place that pushes screens for the app's `Navigate` handler, the palette and tests.

Screens post `Navigate(place)` (messages.py); the app calls `go`. Nothing
here imports the app: the app is reached through the `Workbench` protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .messages import ReportsReady
from .places import (
    EditModule,
    Evaluation,
    GoldenTests,
    Insights,
    Migration,
    NewModule,
    Place,
    PlanPreview,
    RunHistory,
    RunModule,
)
from .workbench import workbench

if TYPE_CHECKING:
    from textual.app import App

    from cogtui.core.authoring.migration.plan import MigrationPlan


def go(app: App[Any], place: Place) -> None:
    match place:
        case EditModule(path, file):
            open_module(app, path, file)
        case RunModule(path, input_value, autorun):
            run_module(app, path, input_value, autorun)
        case GoldenTests(path):
            goldens(app, path)
        case RunHistory(path):
            history(app, path)
        case Evaluation(path):
            evaluate(app, path)
        case Insights(module):
            insights(app, module)
        case Migration(paths):
            migrate(app, list(paths))
        case PlanPreview(plan, title):
            preview_plan(app, plan, title)
        case NewModule():
            new_module(app)


def open_module(app: App[Any], path: Path, file: Path | None = None) -> None:
    from .screens.editor import EditorScreen

    app.push_screen(EditorScreen(path, focus_file=file))


def run_module(app: App[Any], path: Path, input_value: Any = None, autorun: bool = False) -> None:
    from .screens.run import RunScreen

    app.push_screen(RunScreen(path, input_value=input_value, autorun=autorun))


def goldens(app: App[Any], path: Path) -> None:
    from .screens.goldens import GoldensScreen

    app.push_screen(GoldensScreen(path))


def evaluate(app: App[Any], path: Path) -> None:
    from .screens.eval import EvalScreen

    bench = workbench(app)
    app.push_screen(EvalScreen(path, bench.config, bench.store.load, bench.run_drafts))


def history(app: App[Any], path: Path) -> None:
    from .screens.history import HistoryScreen

    app.push_screen(HistoryScreen(path))


def insights(app: App[Any], module: str | None) -> None:
    from .screens.insights import InsightsScreen

    app.push_screen(InsightsScreen(module))


def migrate(app: App[Any], paths: list[Path]) -> None:
    from .screens.migrate import MigrationScreen

    app.push_screen(MigrationScreen.for_modules(paths))


def migrate_all(app: App[Any]) -> None:
    migrate(app, [e.path for e in workbench(app).store.winners])


def new_module(app: App[Any]) -> None:
    from .screens.modals import NewModuleModal

    bench = workbench(app)

    def created(path: Path | None) -> None:
        if path is None:
            return
        app.post_message(ReportsReady([], rediscover=True))
        app.call_later(bench.validate_all)
        app.notify(f"Created {bench.store.display(path)}", title="New module", markup=False)
        if bench.watching:
            app.call_later(bench.start_watching)
        app.call_later(open_module, app, path)

    app.push_screen(NewModuleModal(bench.store.search_path, bench.store.index), created)


def toggle_watching(app: App[Any]) -> None:
    bench = workbench(app)
    bench.watching = not bench.watching
    if bench.watching:
        bench.start_watching()
    else:
        app.workers.cancel_group(app, "fs-watch")
        bench.watch_changed.publish(None)
    app.notify("Watching files" if bench.watching else "Not watching files")
    bench.persist("watch", bench.watching)


def preview_plan(app: App[Any], plan: MigrationPlan, title: str = "Review the change") -> None:
    """Show any MigrationPlan in the migration preview; applying it uses the same confirm/apply/undo flow."""
    from .screens.migrate import MigrationScreen

    app.push_screen(MigrationScreen.for_plan(plan, title=title))
