"""The core as one API: discover, load, validate, check.

from cogtui.core.workspace import Workspace
ws = Workspace.from_environment(["modules"])
for report in ws.validate_all():
    print(report.name, report.errors, report.warnings)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogtui.core.diagnostics import Diagnostic, counts, diag, did_you_mean
from cogtui.core.files.module_folder import folder_read_error, module_folder_at, written_as_path
from cogtui.core.module.loader import NotAModule, load_module
from cogtui.core.module.model import Module
from cogtui.core.records import field, record
from cogtui.core.rules.requirements import ProviderCaps
from cogtui.core.rules.validate_module import validate_module

if TYPE_CHECKING:  # discovery is imported when a search path is scanned (a module given by its path needs none)
    from cogtui.core.module.discovery import ModuleEntry, ModuleIndex, SearchPath


@record(frozen=False)
class ModuleReport:
    """A module's summary and diagnostics.

    `module` is the loaded Module when validation ran in this process; reports
    made by worker processes (large `validate_all` runs) carry the summary only.
    """

    path: Path
    module: Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    entry: ModuleEntry | None = None
    format: str | None = None
    version: str | None = None
    tier: str | None = None
    badge: str = "?"

    def __post_init__(self) -> None:
        if self.module is not None:
            self.format = self.module.format.value
            self.version = self.module.version
            self.tier = self.module.known_tier
            self.badge = self.module.format.badge

    @property
    def name(self) -> str:
        return self.module.name if self.module else self.path.name

    @property
    def errors(self) -> int:
        return counts(self.diagnostics)[0]

    @property
    def warnings(self) -> int:
        return counts(self.diagnostics)[1]

    def summary(self) -> ModuleReport:
        """The same report without the Module, small enough to send between processes."""
        return ModuleReport(
            self.path, None, self.diagnostics, self.entry, self.format, self.version, self.tier, self.badge
        )

    def to_json(self) -> dict[str, object]:
        return {
            "module": self.name,
            "path": str(self.path),
            "format": self.format,
            "errors": self.errors,
            "warnings": self.warnings,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


_CAPS_MEMO: dict[tuple[Any, ...], ProviderCaps | None] = {}


def provider_capabilities(name: str | None = None) -> ProviderCaps | None:
    """(name, capability declaration) of provider `name`, else of the default one (COGNITIVE_PROVIDER,
    config.yaml, replay): what validate checks runtime_requirements against (M021). None for an
    unknown name. Remembered while the environment and the config file stay the same."""
    from cogtui.core.settings.locations import config_file

    cfg = config_file()
    try:
        stamp: int | None = cfg.stat().st_mtime_ns
    except OSError:
        stamp = None
    key = (name, os.environ.get("COGNITIVE_PROVIDER"), os.environ.get("COGNITIVE_MODEL"), str(cfg), stamp)
    if key not in _CAPS_MEMO:
        from cogtui.core.run.providers import UnknownProvider, declared

        try:
            _CAPS_MEMO[key] = declared(name)
        except (UnknownProvider, ValueError, OSError):
            _CAPS_MEMO[key] = None
    return _CAPS_MEMO[key]


def resolve_target(target: str, extra_paths: Iterable[str | Path] = ()) -> Path | None:
    """`target`'s module folder, as `Workspace.resolve` finds it on the search path (`extra_paths` first).

    A target written as a path (it holds a separator) to a module folder or manifest is that folder whatever
    the search path holds, since no module name holds a separator: it is found without scanning the search
    path, or importing discovery (a one-module `cogn validate DIR` starts fast).
    """
    if written_as_path(target):
        folder = module_folder_at(target)
        if folder is not None:
            return folder
    return Workspace.from_environment(extra_paths).resolve(target)


def check_path(
    path: Path,
    v22: bool = False,
    entry: ModuleEntry | None = None,
    strict: bool = False,
    provider: ProviderCaps | None = None,
    has_module: Callable[[str], bool] | None = None,
) -> ModuleReport:
    """A module's report; runtime_requirements are checked against `provider`, else the default provider; the
    prompt is linted (run/prompt_lint.py), its `@call:` targets found by `has_module`, else beside the module
    and on the search path."""
    try:
        module = load_module(path)
    except NotAModule as exc:
        return ModuleReport(path, None, [diag("P003", str(exc), path)], entry)
    except OSError as exc:  # a folder that vanished or cannot be listed mid-scan
        return ModuleReport(path, None, [diag("P003", f"cannot read {path}: {exc}", path)], entry)
    caps = provider or provider_capabilities()
    from cogtui.core.run.prompt_lint import lint_prompt

    found = validate_module(module, v22, strict, caps) + lint_prompt(module, has_module or module_finder(module))
    return ModuleReport(path, module, sorted(found, key=Diagnostic.sort_key), entry)


def module_finder(module: Module) -> Callable[[str], bool]:
    """Whether a module of a name exists where a run of `module` looks for its `@call:`s: beside it, or in a
    folder of the search path (found by a look at that one folder, not a scan of the search path)."""

    def exists(name: str) -> bool:
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            return False
        if module_folder_at(str(module.path.parent / name)) is not None:
            return True
        from cogtui.core.module.discovery import SearchPath

        return any(module_folder_at(str(root.path / name)) is not None for root in SearchPath.from_environment().roots)

    return exists


def check_batch(batch: list[tuple[ModuleEntry, bool, bool, ProviderCaps | None]]) -> list[ModuleReport]:
    return [check_path(entry.path, v22, entry, strict, caps).summary() for entry, v22, strict, caps in batch]


# Below this many modules a process pool costs more than it saves.
PARALLEL_THRESHOLD = 150


def check_many(
    entries: list[ModuleEntry],
    v22: bool = False,
    jobs: int | None = None,
    strict: bool = False,
    provider: ProviderCaps | None = None,
) -> Iterator[ModuleReport]:
    """Reports in entry order; large sets are validated in worker processes (summaries only)."""
    provider = provider or provider_capabilities()
    if jobs is None:
        env_jobs = os.environ.get("COGTUI_JOBS", "")
        jobs = int(env_jobs) if env_jobs.isdigit() else min(os.cpu_count() or 1, 8)
    if jobs <= 1 or len(entries) < PARALLEL_THRESHOLD:
        for entry in entries:
            yield check_path(entry.path, v22, entry, strict, provider)
        return
    import gc
    import multiprocessing  # only here: keeps one-module commands fast to start
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    size = max(1, len(entries) // (jobs * 4))
    batches = [[(e, v22, strict, provider) for e in entries[i : i + size]] for i in range(0, len(entries), size)]
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() and sys.platform == "linux" else "spawn"
    done = 0  # reports yielded so far: a pool that breaks midway is finished in-line from there, none twice
    try:
        # Forked workers inherit the parent's collector state, which `cogn validate` pauses: theirs runs.
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=gc.enable) as pool:
            for reports in pool.map(check_batch, batches):
                for report in reports:
                    yield report
                    done += 1
    except (OSError, BrokenProcessPool):  # no processes allowed here, or a worker died: do the rest in-line
        for entry in entries[done:]:
            yield check_path(entry.path, v22, entry, strict, provider)


@record(frozen=False)
class Workspace:
    """A search path and the modules found on it."""

    search_path: SearchPath
    index: ModuleIndex

    @classmethod
    def from_environment(cls, extra_paths: Iterable[str | Path] = ()) -> Workspace:
        from cogtui.core.module.discovery import SearchPath, discover

        sp = SearchPath.from_environment(extra_paths)
        return cls(sp, discover(sp))

    def refresh(self) -> None:
        from cogtui.core.module.discovery import discover

        self.index = discover(self.search_path)

    def resolve(self, target: str) -> Path | None:
        from cogtui.core.module.discovery import resolve

        return resolve(target, self.index)

    def load(self, target: str) -> Module:
        path = self.resolve(target)
        if path is None:
            raise NotAModule(self.not_found(target))
        return load_module(path)

    def find(self, target: str) -> Module | None:
        """The module `target` names, or None when it names none: how a run loads the module of an `@call`."""
        try:
            return self.load(target)
        except NotAModule:
            return None

    def not_found(self, target: str) -> str:
        """What every command says when `target` names no module: where it was looked for, or that the folder
        it names (as a path, or as a folder on the search path) cannot be read."""
        problem = folder_read_error(target)
        if problem is not None:
            return problem
        for d in self.index.diagnostics:  # an unreadable folder of that name on the search path
            if d.code == "P003" and d.file is not None and d.file.name == target:
                return f"{d.message} (a module named {target!r} may be in it)"
        searched = ", ".join(str(r.path) for r in self.search_path.roots)
        guess = "" if written_as_path(target) else did_you_mean(target, self.names())
        return f"no module named {target!r} on the search path ({searched}), and no module folder at that path{guess}"

    def names(self) -> list[str]:
        """The names of the modules on the search path, each once."""
        return list(dict.fromkeys(e.name for e in self.index.entries))

    def entries(self, include_shadowed: bool = True) -> list[ModuleEntry]:
        return list(self.index.entries) if include_shadowed else self.index.winners

    def validate_all(
        self,
        v22: bool = False,
        include_shadowed: bool = False,
        jobs: int | None = None,
        strict: bool = False,
        provider: ProviderCaps | None = None,
    ) -> Iterator[ModuleReport]:
        """Every module's report; `jobs` > 1 (the default on multi-core machines) validates large sets in parallel."""
        yield from check_many(self.entries(include_shadowed), v22, jobs, strict, provider)


# ---------------------------------------------------------------- a cache of reports
# Keyed by what is on disk: (path, size, mtime) of every file a module was built from, and of each
# folder holding one (so an added or removed file counts). The TUI keeps one for its lifetime; its
# watcher calls `invalidate` for what it saw change (a rewrite within the file system's timestamp
# resolution can keep size and mtime). Checks of unsaved editor buffers bypass it (`check_path`).

Fingerprint = tuple[tuple[str, int, int], ...]
FINGERPRINT_LIMIT = 2000  # entries; a bigger folder is not cached
_SKIPPED = frozenset({".git", "node_modules", "__pycache__"})


def fingerprint(folder: Path) -> Fingerprint | None:
    """(path, size, mtime_ns) of the folder and everything under it (links not followed); None if unlistable."""
    out: list[tuple[str, int, int]] = []
    pending = [str(folder)]
    try:
        st = os.stat(folder)
        out.append((str(folder), st.st_size, st.st_mtime_ns))
        while pending:
            with os.scandir(pending.pop()) as it:
                for item in it:
                    st = item.stat(follow_symlinks=False)
                    out.append((item.path, st.st_size, st.st_mtime_ns))
                    if item.is_dir(follow_symlinks=False) and item.name not in _SKIPPED:
                        pending.append(item.path)
                    if len(out) > FINGERPRINT_LIMIT:
                        return None
    except OSError:
        return None
    out.sort()
    return tuple(out)


class ReportCache:
    """Module reports that stay valid while their files do (thread-safe: the TUI checks in workers)."""

    def __init__(self) -> None:
        import threading  # the TUI's: the CLI never builds a cache (and spares the import)

        self._lock = threading.Lock()
        self._reports: dict[tuple[Path, bool, str | None], tuple[Fingerprint, ModuleReport]] = {}
        self.hits = 0
        self.misses = 0

    def check(self, path: Path, v22: bool = False, entry: ModuleEntry | None = None) -> ModuleReport:
        """The cached report while nothing the module was built from changed; a fresh one otherwise."""
        caps = provider_capabilities()  # a report holds M021 for one provider: the key names it
        key = (Path(path).absolute(), v22, caps[0] if caps else None)
        with self._lock:
            cached = self._reports.get(key)
        if cached is not None:
            fp, report = cached
            if fingerprint(key[0]) == fp:
                self.hits += 1
                return report if entry is None or report.entry is entry else _with_entry(report, entry)
        self.misses += 1
        before = fingerprint(key[0])
        report = check_path(path, v22, entry, provider=caps)
        if report.module is not None and before is not None and fingerprint(key[0]) == before:
            with self._lock:  # cached only when nothing changed while it was being checked
                self._reports[key] = (before, report)
        return report

    def invalidate(self, paths: Iterable[Path]) -> None:
        """Forget every module at or under one of `paths` (or holding one of them)."""
        targets = [Path(p).absolute() for p in paths]
        with self._lock:
            for key in list(self._reports):
                folder = key[0]
                if any(t == folder or t.is_relative_to(folder) or folder.is_relative_to(t) for t in targets):
                    del self._reports[key]


def _with_entry(report: ModuleReport, entry: ModuleEntry) -> ModuleReport:
    return ModuleReport(report.path, report.module, report.diagnostics, entry)
