"""Workers that keep module state fresh: validation in a thread, file watching with watchfiles.

They never touch widgets or the store: they post ReportsReady and the app
applies it (AGENTS.md invariant 8).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from cogtui.core.files.module_folder import is_module_dir
from cogtui.core.module.discovery import ModuleEntry, is_candidate_name

from .messages import ReportsReady, ThemesChanged
from .themes import user_theme_dir

if TYPE_CHECKING:
    from .app import CogtuiApp

BATCH = 25
# awatch's defaults wait over a second; a save should show within a frame or two.
DEBOUNCE_MS = 60
STEP_MS = 20


def ignored(path: str) -> bool:
    name = Path(path).name
    return name.endswith((".cogtui-tmp", "~", ".swp", ".swx")) or name.startswith(".#") or "__pycache__" in path


def validate_entries(
    app: CogtuiApp, entries: Iterable[ModuleEntry | Path], rediscover: bool = False, group: str = "validate"
) -> None:
    """Validate in a thread, posting reports in batches.

    Every call stamps its modules first (on the event loop), so whichever worker finishes last, the
    app keeps the newest report of each module. Only a full validation ("validate") cancels the one
    before it, since it asks for every module again; revalidations of a few modules all run to the end.
    """
    todo = [e if isinstance(e, ModuleEntry) else (app.store.entry_for(e) or e) for e in entries]
    stamps = app.store.request(e.path if isinstance(e, ModuleEntry) else e for e in todo)

    def work() -> None:
        cache = app.store.report_cache  # imports the core in the worker, after the first frame
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

    app.run_worker(work, thread=True, exclusive=group == "validate", group=group, name="validate modules")


def modules_touched(app: CogtuiApp, changed: Iterable[str]) -> tuple[set[Path], bool]:
    """(module folders whose files changed, whether modules appeared or vanished)."""
    known = {e.path for e in app.store.entries}
    touched: set[Path] = set()
    structural = False
    for raw in changed:
        path = Path(raw)
        for root in app.store.search_path.roots:
            try:
                rel = path.relative_to(root.path)
            except ValueError:
                continue
            if root.path in known:  # a root that is itself a module
                touched.add(root.path)
                break
            if not rel.parts or not is_candidate_name(rel.parts[0]):
                break
            folder = root.path / rel.parts[0]
            if folder in known:
                touched.add(folder)
                if not is_module_dir(folder):
                    structural = True
            elif is_module_dir(folder):
                structural = True
            break
    return touched, structural


def watch_search_path(app: CogtuiApp) -> None:
    roots = [r.path for r in app.store.search_path.roots if r.path.is_dir()]
    if not roots:
        return

    async def work() -> None:
        from watchfiles import awatch

        async for changes in awatch(
            *roots, debounce=DEBOUNCE_MS, step=STEP_MS, recursive=True, watch_filter=lambda _change, p: not ignored(p)
        ):
            touched, structural = modules_touched(app, (p for _, p in changes))
            app.store.report_cache.invalidate(Path(p) for _, p in changes)
            if structural:
                app.post_message(ReportsReady([], rediscover=True))
                app.call_later(app.validate_unreported, touched)  # new modules and the changed ones, not all
            elif touched:
                validate_entries(app, sorted(touched), group="revalidate")

    app.run_worker(work(), exclusive=True, group="fs-watch", name="watch modules")


def watch_themes(app: CogtuiApp) -> None:
    folder = user_theme_dir()
    if not folder.is_dir():
        return

    async def work() -> None:
        from watchfiles import awatch

        async for _ in awatch(folder, debounce=DEBOUNCE_MS, step=STEP_MS):
            app.post_message(ThemesChanged())

    app.run_worker(work(), exclusive=True, group="theme-watch", name="watch themes")
