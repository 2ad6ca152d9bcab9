"""Following file changes under the search path's folders (watchfiles), for the TUI and the servers.

A plain recursive watch first. Should it fail because a folder under a root cannot be read, a `WatchPlan`
leaves such folders out (core/files/watch_plan.py) and the rest stays watched; when a change reaches one of
them (its permissions changed), the plan is made again. What the watch leaves out, or why it stopped, is
said through `on_state(text, stopped)`; each batch of changes goes to `on_changes` (scratch files never do).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cogtui.core.files.watch_plan import WatchPlan, plan_watch
from cogtui.core.module.file_changes import is_scratch_file

Changes = set[tuple[Any, str]]  # watchfiles' (Change, path) pairs

# awatch's defaults wait over a second; a save should show within a frame or two.
DEBOUNCE_MS = 60
STEP_MS = 20
MAX_PLANS = 3  # watches that fail in a row, each with a new plan, before watching stops


def watch_note(plan: WatchPlan) -> str:
    """What is said next to "watching files" under this plan."""
    n = len(plan.unreadable)
    return f"{n} folder{'s' * (n != 1)} unreadable" if n else ""


async def follow_changes(
    roots: list[Path],
    on_changes: Callable[[Changes], None],
    on_state: Callable[[str, bool], None],
    debounce_ms: int = DEBOUNCE_MS,
) -> None:
    """Watch `roots` until cancelled (or until nothing can be watched); an unexpected failure is said through
    `on_state(reason, True)` and raised."""

    async def follow(paths: list[Path], recursive: bool, stop: asyncio.Event, left_out: set[Path]) -> None:
        from watchfiles import awatch

        async for changes in awatch(
            *paths,
            debounce=debounce_ms,
            step=STEP_MS,
            recursive=recursive,
            stop_event=stop,
            watch_filter=lambda _change, p: not is_scratch_file(p),
        ):
            on_changes(changes)
            if any(Path(p) in left_out for _, p in changes):  # an unreadable folder changed: plan again
                stop.set()

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
                on_state("no folder on the search path can be read", True)
                return
            on_state(watch_note(plan), False)
    except Exception as exc:
        on_state(exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__, True)
        raise
