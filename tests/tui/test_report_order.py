"""Module reports arrive from several workers: the newest asked for wins, and none is thrown away."""

from __future__ import annotations

from pathlib import Path

import pytest
from tuikit import copy_modules, isolate, make_app, until

from cogtui.core.workspace import check_path
from cogtui.tui.messages import ReportsReady
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.store import ModuleStore
from cogtui.tui.watching import validate_entries

BROKEN_TIER = "tier: bogus"


def _break(module: Path) -> None:
    manifest = module / "module.yaml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8")
        .replace("tier: decision", BROKEN_TIER)
        .replace("tier: exec", BROKEN_TIER)
        .replace("tier: exploration", BROKEN_TIER),
        encoding="utf-8",
    )


def test_an_older_report_never_overwrites_a_newer_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "code-reviewer")
    store = ModuleStore.from_paths([str(root)], tmp_path)
    old_stamps = store.request([module])
    old_report = check_path(module)  # read before the edit
    _break(module)
    new_stamps = store.request([module])
    new_report = check_path(module)
    assert store.apply([new_report], new_stamps) == [new_report]
    assert store.apply([old_report], old_stamps) == []  # finished late: dropped
    assert store.report(module) is new_report
    assert store.apply([old_report]) == [old_report]  # unstamped reports (no request) are simply applied


async def test_overlapping_revalidations_all_land(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    modules = copy_modules(root, "code-reviewer", "release-notes", "product-ideas")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and len(app.store.reports) == 3, pilot)
        for module in modules:
            _break(module)
        validate_entries(app, modules[:2], group="revalidate")
        validate_entries(app, modules[2:], group="revalidate")  # used to cancel the first, losing its reports

        def broken_everywhere() -> bool:
            reports = [app.store.report(m) for m in modules]
            return all(r is not None and any(d.code == "M003" for d in r.diagnostics) for r in reports)

        await until(broken_everywhere, pilot)


async def test_browser_validate_all_goes_through_the_apps_handler(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    seen: list[ReportsReady] = []
    async with app.run_test(
        size=(100, 30), message_hook=lambda m: seen.append(m) if isinstance(m, ReportsReady) else None
    ) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and len(app.store.reports) == 1, pilot)
        copy_modules(root, "release-notes")
        await pilot.press("v")  # browser.validate
        await until(lambda: len(app.store.reports) == 2, pilot)
        assert any(m.rediscover for m in seen)
