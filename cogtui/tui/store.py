"""The modules the app knows about: the search path, what discovery found, each module's latest report.

The store only holds state and calls the core; it never touches widgets. The
app owns it: workers compute reports and post them, and the app's one
handler applies them here and announces the change (AGENTS.md invariant 8).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from cogtui.core.files.terminal_text import visible
from cogtui.core.module.discovery import ModuleEntry, ModuleIndex, SearchPath, discover

if TYPE_CHECKING:
    from cogtui.core.module.model import Module
    from cogtui.core.workspace import ModuleReport, ReportCache


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Relative to the working folder when inside it, `~/...` under the home folder, else absolute."""
    cwd = cwd or Path.cwd()
    try:
        rel = path.relative_to(cwd)
        return "." if str(rel) == "." else str(rel)
    except ValueError:
        pass
    home = Path(os.path.expanduser("~"))
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


def load_now(path: Path) -> Module | str:
    """The module as its files are on disk now, or why it cannot be loaded.

    The run, goldens and eval screens load it again for every run (ctrl+r): a file changed since the screen
    opened (the schema, the prompt, a golden) is run as it is now, never as the copy the screen opened with."""
    from cogtui.core.module.loader import NotAModule, load_module

    try:
        return load_module(path)
    except (NotAModule, OSError) as exc:
        return f"Cannot load {path}: {exc}"


class ModuleStore:
    """The modules on the search path and their latest reports, each stamped with the request it answers."""

    def __init__(self, search_path: SearchPath, index: ModuleIndex, cwd: Path | None = None) -> None:
        self.search_path = search_path
        self.index = index
        self.reports: dict[Path, ModuleReport] = {}
        self.cwd = Path.cwd() if cwd is None else cwd
        # Per module, the stamp of the latest validation asked for: a slower, older report never wins.
        self.requested: dict[Path, int] = {}

    @classmethod
    def from_paths(cls, extra: Iterable[str | Path], cwd: Path | None = None) -> ModuleStore:
        cwd = cwd or Path.cwd()
        sp = SearchPath.from_environment(extra, cwd=cwd)
        return cls(sp, discover(sp), cwd=cwd)

    @cached_property
    def report_cache(self) -> ReportCache:
        """Reports keyed by what is on disk (core/workspace.py); first used by a validation worker."""
        from cogtui.core.workspace import ReportCache

        return ReportCache()

    def rediscover(self) -> None:
        """Find modules again (a new module, a deleted folder); reports of vanished modules are dropped."""
        self.index = discover(self.search_path)
        alive = {e.path for e in self.index.entries}
        self.reports = {p: r for p, r in self.reports.items() if p in alive}

    def unsearched_note(self) -> str | None:
        """Where modules the search path does not reach are (./cognitive/modules) and how to add them (PATH-4)."""
        from cogtui.core.module.discovery import unsearched_modules

        found = unsearched_modules(self.search_path)
        return found.note if found is not None else None

    @property
    def entries(self) -> list[ModuleEntry]:
        return list(self.index.entries)

    @property
    def winners(self) -> list[ModuleEntry]:
        return self.index.winners

    def entry_for(self, path: Path) -> ModuleEntry | None:
        return next((e for e in self.index.entries if e.path == path), None)

    def report(self, path: Path) -> ModuleReport | None:
        return self.reports.get(path)

    def request(self, paths: Iterable[Path]) -> dict[Path, int]:
        """Stamp a new validation of `paths`; its reports are applied only if no newer one was asked for."""
        stamps = {}
        for path in paths:
            stamps[path] = self.requested[path] = self.requested.get(path, 0) + 1
        return stamps

    def apply(self, reports: Iterable[ModuleReport], stamps: dict[Path, int] | None = None) -> list[ModuleReport]:
        """Store the reports that are still the newest asked for; returns those."""
        applied = []
        for report in reports:
            if stamps is not None and stamps.get(report.path, 0) < self.requested.get(report.path, 0):
                continue  # a newer validation of this module is under way or done
            self.reports[report.path] = report
            applied.append(report)
        return applied

    def totals(self) -> tuple[int, int, int]:
        """(modules, errors, warnings) over the winners that have been validated."""
        errors = warnings = 0
        for entry in self.winners:
            r = self.reports.get(entry.path)
            if r is not None:
                errors += r.errors
                warnings += r.warnings
        return len(self.winners), errors, warnings

    def load(self, name: str) -> Module | None:
        """A module by name (the winner of that name), for subagent calls."""
        from cogtui.core.module.loader import NotAModule, load_module

        entry = self.index.get(name)
        if entry is None:
            return None
        try:
            return load_module(entry.path)
        except (NotAModule, OSError):
            return None

    def display(self, path: Path) -> str:
        """The path as the user reads it, visibly escaped (a folder name may hold escape sequences)."""
        return visible(display_path(path, self.cwd), single_line=True)
