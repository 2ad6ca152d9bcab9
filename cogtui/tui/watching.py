"""Workers that keep module state fresh: validation in a thread, file watching with watchfiles.

They never touch widgets or the store: they post ReportsReady and the app
applies it (AGENTS.md invariant 8).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, get_current_worker

from cogtui.core.module.discovery import ModuleEntry
from cogtui.core.module.file_changes import modules_touched
from cogtui.core.module.watching import DEBOUNCE_MS as DEBOUNCE_MS  # the editor watches its files alike
from cogtui.core.module.watching import STEP_MS as STEP_MS
from cogtui.core.module.watching import follow_changes

from .messages import ReportsReady, ThemesChanged, WatchState
from .themes import user_theme_dir
from .workbench import workbench

if TYPE_CHECKING:
    from textual.app import App

BATCH = 25


def validate_entries(
    app: App[Any], entries: Iterable[ModuleEntry | Path], rediscover: bool = False, group: str = "validate"
) -> None:
    """Validate in a thread, posting reports in batches.

    Every call stamps its modules first (on the event loop), so whichever worker finishes last, the
    app keeps the newest report of each module. Only a full validation ("validate") cancels the one
    before it, since it asks for every module again; revalidations of a few modules all run to the end.
    """
    store = workbench(app).store
    todo = [e if isinstance(e, ModuleEntry) else (store.entry_for(e) or e) for e in entries]
    stamps = store.request(e.path if isinstance(e, ModuleEntry) else e for e in todo)

    def work() -> None:
        cache = store.report_cache  # imports the core in the worker, after the first frame
        worker = get_current_worker()
        batch = []
        for entry in todo:
            if worker.is_cancelled:
                return
            path = entry.path if isinstance(entry, ModuleEntry) else entry
            batch.append(cache.check(path, entry=entry if isinstance(entry, ModuleEntry) else None))
            if len(batch) >= BATCH:
                app.post_message(ReportsReady(batch, stamps=stamps))
                batch = []
        app.post_message(ReportsReady(batch, rediscover=rediscover, stamps=stamps))

    app.run_worker(
        work, thread=True, exclusive=group == "validate", group=group, name="validate modules", exit_on_error=False
    )


def watch_search_path(app: App[Any]) -> None:
    """Watch the search path's roots; what cannot be watched is said in the browser's status (`WatchState`).

    How: core/module/watching.py (`follow_changes`), which the servers (`cogn mcp`) watch with too.
    """
    bench = workbench(app)
    roots = [r.path for r in bench.store.search_path.roots if r.path.is_dir()]
    if not roots:
        return

    def apply(changes: set[tuple[Any, str]]) -> None:
        store = bench.store
        known = {e.path for e in store.entries}
        found = modules_touched((p for _, p in changes), (r.path for r in store.search_path.roots), known)
        store.report_cache.invalidate(Path(p) for _, p in changes)
        if found.structural:
            app.post_message(ReportsReady([], rediscover=True))
            app.call_later(bench.validate_unreported, found.touched)  # new modules and the changed ones, not all
        elif found.touched:
            validate_entries(app, sorted(found.touched), group="revalidate")

    def state(text: str, stopped: bool) -> None:
        app.post_message(WatchState(text, stopped=stopped))

    async def work() -> None:
        await follow_changes(roots, apply, state)

    # The function, not a coroutine made now: an app that quits before the worker starts leaves none un-awaited.
    # (Typed: mypy infers the worker's result from the variable.)
    _watch: Worker[None] = app.run_worker(
        work, exclusive=True, group="fs-watch", name="watch modules", exit_on_error=False
    )


def watch_themes(app: App[Any]) -> None:
    folder = user_theme_dir()
    if not folder.is_dir():
        return

    async def work() -> None:
        from watchfiles import awatch

        async for _ in awatch(folder, debounce=DEBOUNCE_MS, step=STEP_MS):
            app.post_message(ThemesChanged())

    _watch: Worker[None] = app.run_worker(
        work, exclusive=True, group="theme-watch", name="watch themes", exit_on_error=False
    )
