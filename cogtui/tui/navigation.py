"""Going places: the one place that pushes screens for the app's `Navigate` handler, the palette and tests.

Screens post `Navigate(place)` (messages.py); the app calls `go`. Nothing
here imports the app: the app is reached through the `Workbench` protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import ModalScreen

from cogtui.core.files.terminal_text import visible

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
    from collections.abc import Callable

    from textual.app import App
    from textual.screen import Screen

    from cogtui.core.authoring.migration.plan import MigrationPlan

    from .screens.editor import EditorScreen


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
        case PlanPreview(plan, title, remake):
            preview_plan(app, plan, title, remake)
        case NewModule():
            new_module(app)


def open_module(app: App[Any], path: Path, file: Path | None = None) -> None:
    """Edit a module: one editor per module (D148a). When its editor is already on the screen stack, go back to
    it (its unsaved edits as they are) rather than stack a second one that shows the disk's version as clean."""
    from .screens.editor import EditorScreen

    target = Path(path).absolute()
    for screen in app.screen_stack:
        if isinstance(screen, EditorScreen) and screen.module_path == target:
            back_to_editor(app, screen, file)
            return
    app.push_screen(EditorScreen(path, focus_file=file))


def back_to_editor(app: App[Any], editor: EditorScreen, file: Path | None) -> None:
    """Close the screens above `editor`, unless one of them holds work that closing would lose or cut short:
    then nothing closes and a notification says what to close first."""
    name = visible(editor.module_path.name, single_line=True)
    above = app.screen_stack[app.screen_stack.index(editor) + 1 :]
    held = [note for screen in above if (note := closing_loses(screen)) is not None]
    if held:
        app.notify(
            f"{name} is already open in an editor, under screens that closing would cut short "
            f"({'; '.join(held)}). Finish or close them first (escape), then open it again.",
            title="Already open",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return
    if above:
        editor.pop_until_active()
    if file is not None and (buf := editor.buffer_for(Path(file).absolute())) is not None:
        editor.navigator.activate(buf.pane_id)
    kept = ": its unsaved edits are kept" if editor.has_unsaved_changes() else ""
    app.notify(f"{name} is already open: back to its editor{kept}.", title="Already open", markup=False)


def closing_loses(screen: Screen[Any]) -> str | None:
    """What closing `screen` now would lose or cut short, said in a few words; None when nothing."""
    from .quitting import StopsOnQuit
    from .screens.editor import EditorScreen
    from .screens.migrate import MigrationScreen

    if isinstance(screen, EditorScreen) and screen.has_unsaved_changes():
        return f"unsaved edits in the editor of {visible(screen.module_path.name, single_line=True)}"
    if isinstance(screen, StopsOnQuit) and (work := screen.in_flight()) is not None and work.number:
        return f"{work.number} {work.noun}{'s' * (work.number != 1)} still running"
    if isinstance(screen, MigrationScreen) and screen.state.writing:
        return "a migration writing files"
    if isinstance(screen, ModalScreen):
        return "an open dialog"
    return None


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


def preview_plan(
    app: App[Any],
    plan: MigrationPlan,
    title: str = "Review the change",
    remake: Callable[[], MigrationPlan | str] | None = None,
) -> None:
    """Show any MigrationPlan in the migration preview; applying it uses the same confirm/apply/undo flow.
    `remake` makes the plan again from the files as they are (when they change under it); without it, a plan
    whose files changed can only be refused."""
    from .screens.migrate import MigrationScreen

    app.push_screen(MigrationScreen.for_plan(plan, title=title, remake=remake))
