"""`check_many` over a process pool: a pool that breaks midway is finished in-line, each module reported once."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from cogtui.core import workspace
from cogtui.core.module.discovery import ModuleEntry, SearchPath, discover
from cogtui.core.rules.requirements import ProviderCaps
from cogtui.core.workspace import ModuleReport

MODULES = Path(__file__).resolve().parents[1] / "modules"


def _entries(tmp_path: Path, count: int) -> list[ModuleEntry]:
    for i in range(count):
        shutil.copytree(MODULES / "code-reviewer", tmp_path / f"reviewer-{i:03}")
    index = discover(SearchPath.from_environment([tmp_path]))
    entries = [e for e in index.entries if e.path.parent == tmp_path]
    assert len(entries) == count
    return entries


ANSWER = workspace.check_batch
FIRST: list[Path] = []  # the first batch's first module, set before the pool forks its workers
TAKEN: list[Path] = []  # the file the parent creates once it took the first batch's reports


def _dies_after_the_first(batch: list[tuple[ModuleEntry, bool, bool, ProviderCaps | None]]) -> list[ModuleReport]:
    """A batch's check in a worker (module-level: the pool sends it by name): the first batch is answered, the
    others wait until the parent took those reports, then their worker dies, which breaks the pool."""
    if batch[0][0].path == FIRST[0]:
        return ANSWER(batch)
    while not TAKEN[0].exists():
        time.sleep(0.01)
    os._exit(1)


def test_a_pool_that_breaks_midway_reports_each_module_once_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first batch is answered; then, once its reports were taken, every other worker dies (the pool
    breaks). The rest is checked in-line: each module is reported exactly once, in the entries' order."""
    entries = _entries(tmp_path / "mods", workspace.PARALLEL_THRESHOLD + 10)
    FIRST[:], TAKEN[:] = [entries[0].path], [tmp_path / "first-batch-taken"]
    monkeypatch.setattr(workspace, "check_batch", _dies_after_the_first)
    reports = workspace.check_many(entries, jobs=2)
    seen = [next(reports).path]
    TAKEN[0].touch()
    seen += [report.path for report in reports]
    assert seen == [entry.path for entry in entries]
