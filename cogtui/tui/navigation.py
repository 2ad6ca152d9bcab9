"""Going places: the one place that pushes screens for the app's `Navigate` handler, the palette and tests.

Screens post `Navigate(place)` (messages.py); the app calls `go`. Nothing
here imports the app: the app is reached through the `Workbench` protocol.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.screen import ModalScreen

from cogtui.core.files.terminal_text import visible
from cogtui.core.records import record_fields

from .messages import ReportsReady
from .places import Place, ScreenSpec, spec_of
from .workbench import workbench

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App
    from textual.screen import Screen

    from cogtui.core.authoring.migration.plan import MigrationPlan

    from .screens.migrate.screen import MigrationScreen

S = TypeVar("S", bound="Screen[Any]")


def go(app: App[Any], place: Place) -> None:
    """Open the screen whose declaration (screens/<name>/__init__.py) names this place: through its opener, or one per place."""
    if not app.screen_stack:  # the app is closing: a key's binding that ran as it closed leads nowhere
        return
    spec = spec_of(place)
    values = [getattr(place, f.name) for f in record_fields(place)]
    if spec.opener is not None:
        module, _, name = spec.opener.partition(":")
        getattr(importlib.import_module(module), name)(app, *values)
    else:
        open_one(app, spec, place, values)


def open_one(app: App[Any], spec: ScreenSpec, place: Place, values: list[Any]) -> None:
    """A screen without rules of its own: one per place. Pushed as `Screen(*the place's fields)`, or, when one at
    this place is on the stack, gone back to (TUI-2)."""
    leave_help(app)
    kind = spec.screen_class()
    shown = next((s for s in app.screen_stack if isinstance(s, kind) and getattr(s, "place", None) == place), None)
    if shown is None:
        screen = kind(*values)
        screen.place = place  # what `go` compares the next time this place is asked for
        app.push_screen(screen)
    elif back_to(app, shown, f"a {spec.name} screen"):
        app.notify("Already open: back to it.", title="Already open", markup=False)


def open_module(app: App[Any], path: Path, file: Path | None = None) -> None:
    """Edit a module: one editor per module (TUI-2). When its editor is already on the screen stack, go back to
    it (its unsaved edits as they are) rather than stack a second one that shows the disk's version as clean."""
    from .screens.editor.screen import EditorScreen

    leave_help(app)
    editor = open_on(app, EditorScreen, path)
    if editor is None:
        app.push_screen(EditorScreen(path, focus_file=file))
        return
    if not back_to(app, editor, "an editor"):
        return
    # Its files as a new editor would show them: a tab closed, or a file made since, opens (again).
    app.call_later(editor.reopen, Path(file).absolute() if file is not None else None)
    kept = ": its unsaved edits are kept" if editor.has_unsaved_changes() else ""
    said_back(app, editor, f"its editor{kept}")


def leave_help(app: App[Any]) -> None:
    """Going somewhere closes the help shown on top (TUI-3): it holds nothing, and left under the new screen it
    would come back when that one closes."""
    from .screens.help import HelpScreen

    while isinstance(app.screen, HelpScreen):
        app.pop_screen()


def open_on(app: App[Any], kind: type[S], path: Path) -> S | None:
    """The screen of this kind already open on the module at `path` (the lowest on the stack), or None."""
    target = Path(path).absolute()
    for screen in app.screen_stack:
        if isinstance(screen, kind) and Path(getattr(screen, "module_path", "")).absolute() == target:
            return screen
    return None


def back_to(app: App[Any], screen: Screen[Any], shown_in: str, warn: bool = True) -> bool:
    """Close the screens above `screen` (one screen per module and kind: TUI-2), unless one of them holds
    work that closing would lose or cut short: then nothing closes, a notification (with `warn`) says what to close
    first, and the answer is False."""
    name = module_name(screen)
    above = app.screen_stack[app.screen_stack.index(screen) + 1 :]
    held = [note for above_one in above if (note := closing_loses(above_one)) is not None]
    if held:
        if warn:
            app.notify(
                f"{name} is already open in {shown_in}, under screens that closing would cut short "
                f"({'; '.join(held)}). Finish or close them first (escape), then open it again.",
                title="Already open",
                severity="warning",
                timeout=8,
                markup=False,
            )
        return False
    if above:
        screen.pop_until_active()
    return True


def module_name(screen: Screen[Any]) -> str:
    return visible(Path(getattr(screen, "module_path", "")).name, single_line=True)


def said_back(app: App[Any], screen: Screen[Any], where: str) -> None:
    app.notify(f"{module_name(screen)} is already open: back to {where}.", title="Already open", markup=False)


def closing_loses(screen: Screen[Any]) -> str | None:
    """What closing `screen` now would lose or cut short, said in a few words; None when nothing."""
    from .quitting import StopsOnQuit
    from .screens.editor.screen import EditorScreen
    from .screens.help import HelpScreen
    from .screens.migrate.screen import MigrationScreen

    if isinstance(screen, EditorScreen) and screen.has_unsaved_changes():
        return f"unsaved edits in the editor of {visible(screen.module_path.name, single_line=True)}"
    if isinstance(screen, StopsOnQuit) and (work := screen.in_flight()) is not None and work.number:
        return f"{work.number} {work.noun}{'s' * (work.number != 1)} still running"
    if isinstance(screen, MigrationScreen) and screen.state.writing:
        return "a migration writing files"
    # a dialog may hold a choice not yet made; help holds nothing, so closing it loses nothing (TUI-3)
    if isinstance(screen, ModalScreen) and not isinstance(screen, HelpScreen):
        return "an open dialog"
    return None


def run_module(app: App[Any], path: Path, input_value: Any = None, autorun: bool = False) -> None:
    """One run screen per module (TUI-2): its runs are tabs, so a second screen would only split them (and its
    draft); going back to it, an input asked for replaces the one shown and `autorun` starts a run in a new tab."""
    from .screens.run.screen import RunScreen

    leave_help(app)
    screen = open_on(app, RunScreen, path)
    if screen is None:
        app.push_screen(RunScreen(path, input_value=input_value, autorun=autorun))
    elif back_to(app, screen, "a run screen"):
        said_back(app, screen, "its run screen")
        screen.take_input(input_value, autorun)


def goldens(app: App[Any], path: Path) -> None:
    from .screens.goldens.screen import GoldensScreen

    leave_help(app)
    screen = open_on(app, GoldensScreen, path)
    if screen is None:
        app.push_screen(GoldensScreen(path))
    elif back_to(app, screen, "a golden tests screen"):
        said_back(app, screen, "its golden tests (ctrl+r runs them again)")


def evaluate(app: App[Any], path: Path) -> None:
    from .screens.eval.screen import EvalScreen

    leave_help(app)
    bench = workbench(app)
    screen = open_on(app, EvalScreen, path)
    if screen is None:
        app.push_screen(EvalScreen(path, bench.config, bench.store.load, bench.run_drafts))
    elif back_to(app, screen, "an eval screen"):
        said_back(app, screen, "its eval (ctrl+r runs it again)")


def history(app: App[Any], path: Path) -> None:
    """A history screen only shows the history (it reads it again when shown): going back to the one open is
    tidier, but when screens above it hold work a new one opens on top rather than refuse (TUI-2)."""
    from .screens.history.screen import HistoryScreen

    leave_help(app)
    screen = open_on(app, HistoryScreen, path)
    if screen is None or not back_to(app, screen, "a history screen", warn=False):
        app.push_screen(HistoryScreen(path))
    else:
        said_back(app, screen, "its history")


def insights(app: App[Any], module: str | None) -> None:
    from .screens.insights.screen import InsightsScreen

    leave_help(app)
    screen = next((s for s in app.screen_stack if isinstance(s, InsightsScreen) and s.module == module), None)
    if screen is None or not back_to(app, screen, "an insights dashboard", warn=False):
        app.push_screen(InsightsScreen(module))
    else:
        app.notify("Already open: back to the insights dashboard.", title="Already open", markup=False)


def migrate(app: App[Any], paths: list[Path]) -> None:
    """One live migration preview per set of modules (TUI-2); a promotion's or a review's preview is another
    thing (each shows a plan of its own) and never reused."""
    from .screens.migrate.screen import MigrationScreen

    leave_help(app)
    wanted = {Path(p).absolute() for p in paths}
    for screen in app.screen_stack:
        if isinstance(screen, MigrationScreen) and live_paths(screen) == wanted:
            if back_to(app, screen, "a migration preview"):
                app.notify("Already open: back to its migration preview.", title="Already open", markup=False)
            return
    app.push_screen(MigrationScreen.for_modules(paths))


def live_paths(screen: MigrationScreen) -> set[Path] | None:
    """The modules a live migration previews; None for a promotion's or a review's preview."""
    if screen.preset is not None or screen.state.review:
        return None
    return {Path(slot.path).absolute() for slot in screen.state.slots if slot.path is not None}


def migrate_all(app: App[Any]) -> None:
    migrate(app, [e.path for e in workbench(app).store.winners])


def new_module(app: App[Any]) -> None:
    from .screens.new_module.screen import NewModuleModal

    bench = workbench(app)

    def created(path: Path | None) -> None:
        if path is None:
            return
        app.post_message(ReportsReady([], rediscover=True))
        app.call_later(select_in_browser, app, path)  # after the rediscovery: the next `r` runs the new module
        app.call_later(bench.validate_all)
        app.notify(f"Created {bench.store.display(path)}", title="New module", markup=False)
        if bench.watching:
            app.call_later(bench.start_watching)
        app.call_later(open_module, app, path)

    app.push_screen(NewModuleModal(bench.store.search_path, bench.store.index), created)


def select_in_browser(app: App[Any], path: Path) -> None:
    """The browser (the bottom screen) selects the module at `path`, for when its editor closes."""
    from .screens.browser import BrowserScreen

    browser = app.screen_stack[0] if app.screen_stack else None
    if isinstance(browser, BrowserScreen):
        browser.select_module(path)


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
    from .screens.migrate.screen import MigrationScreen

    app.push_screen(MigrationScreen.for_plan(plan, title=title, remake=remake))
