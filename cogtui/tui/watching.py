"""Workers that keep module state fresh: validation in a thread, file watching with watchfiles.

They never touch widgets or the store: they post ReportsReady and the app
applies it (AGENTS.md invariant 8).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, get_current_worker

from cogtui.core.files.watch_plan import WatchPlan, plan_watch
from cogtui.core.module.discovery import ModuleEntry
from cogtui.core.module.file_changes import is_scratch_file, modules_touched

from .messages import ReportsReady, ThemesChanged, WatchState
from .themes import user_theme_dir
from .workbench import workbench

if TYPE_CHECKING:
    from textual.app import App

BATCH = 25
# awatch's defaults wait over a second; a save should show within a frame or two.
DEBOUNCE_MS = 60
STEP_MS = 20
MAX_PLANS = 3  # watches that fail in a row, each with a new plan, before watching stops


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

    A plain recursive watch first. Should it fail because a folder under a root cannot be read, a `WatchPlan`
    leaves such folders out (core/files/watch_plan.py) and the rest stays watched; when a change reaches one
    of them (its permissions changed), the plan is made again.
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

    async def follow(paths: list[Path], recursive: bool, stop: asyncio.Event, left_out: set[Path]) -> None:
        from watchfiles import awatch

        async for changes in awatch(
            *paths,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            recursive=recursive,
            stop_event=stop,
            watch_filter=lambda _change, p: not is_scratch_file(p),
        ):
            apply(changes)
            if any(Path(p) in left_out for _, p in changes):  # an unreadable folder changed: plan again
                stop.set()

    async def work() -> None:
        plan: WatchPlan | None = None
        failures = 0
        try:
            while True:
                stop = asyncio.Event()
                try:
                    if plan is None:
                        await follow(roots, True, stop, set())
                    else:
                        left_out = set(plan.unreadable)
                        async with asyncio.TaskGroup() as group:
                            for paths, recursive in ((plan.recursive, True), (plan.shallow, False)):
                                if paths:
                                    group.create_task(follow(paths, recursive, stop, left_out))
                    failures = 0
                except* OSError as errors:  # a folder that cannot be read (or the system's watch limit)
                    failures += 1
                    if failures > MAX_PLANS:
                        raise errors.exceptions[0] from None
                plan = plan_watch(roots)
                if not plan.recursive and not plan.shallow:  # every root unreadable: nothing is watched at all
                    app.post_message(WatchState("no folder on the search path can be read", stopped=True))
                    return
                app.post_message(WatchState(watch_note(plan)))
        except Exception as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            app.post_message(WatchState(reason, stopped=True))
            raise

    # The function, not a coroutine made now: an app that quits before the worker starts leaves none un-awaited.
    # (Typed: mypy infers the worker's result from the variable.)
    _watch: Worker[None] = app.run_worker(
        work, exclusive=True, group="fs-watch", name="watch modules", exit_on_error=False
    )


def watch_note(plan: WatchPlan) -> str:
    """What the browser's status says next to "watching files" under this plan."""
    n = len(plan.unreadable)
    return f"{n} folder{'s' * (n != 1)} unreadable" if n else ""


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
