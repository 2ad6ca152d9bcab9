"""Every screen at 80×24 and 120×40, in the default and the ANSI theme, snapshotted with pytest-textual-snapshot.

The scenes (how each screen is reached and held still) are those of `make screenshots`
(tools/screenshots.py); the data is fixed here. Modules are copied into tmp_path and the
app runs with cwd=tmp_path, so every path shows as `modules/NAME`; HOME, config and data are
isolated (tuikit.isolate: replay runs are instant); recorded runs have fixed timestamps and
timings, and the clock reads UTC. The scenes turn cursor blink off, clear toasts, wait for
workers and overwrite the run pane's measured timings before the snapshot is taken.

Regenerate after a deliberate UI change, then review the SVG diffs like code:

    .venv/bin/python -m pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import difflib
import html
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension
from syrupy.assertion import SnapshotAssertion
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent
from tuikit import copy_modules, isolate, make_app, written_until_seen

from cogtui.core.history.store import History, RunRecord
from cogtui.tui.screens.editor.merge import MergeModal
from cogtui.tui.screens.editor.picker import TabPickerModal
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.insights.row import InsightRowScreen
from cogtui.tui.widgets.contract_tree import ContractTree
from cogtui.tui.widgets.key_footer import KeyFooter
from cogtui.tui.widgets.module_tree import ModuleTree
from tools.screenshots import (
    Scene,
    Stage,
    browser_ready,
    declared_scenes,
    no_blink,
    save_plan,
    scenes,
    settle,
    still,
    until,
)

MODULE_NAMES = ("code-reviewer", "legacy-summarizer", "product-ideas", "release-notes")
T0 = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC


@pytest.fixture
def stage(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Stage]:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, *MODULE_NAMES)
    saved_tz = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"  # the history table shows local times
    time.tzset()
    try:
        yield Stage(root)
    finally:
        if saved_tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved_tz
        time.tzset()


# ------------------------------------------------------------------ fixed data


def _record(runs: list[RunRecord]) -> None:
    with History.open_default() as history:
        history.record_many(runs)


def _case1(module: Path) -> tuple[Any, dict[str, Any]]:
    tests = module / "tests"
    return (
        json.loads((tests / "case1.input.json").read_text(encoding="utf-8")),
        json.loads((tests / "case1.expected.json").read_text(encoding="utf-8")),
    )


def two_runs(stage: Stage) -> Stage:
    """code-reviewer's first golden, run twice: the second answer less sure and only commenting."""
    module = stage.module("code-reviewer")
    input_value, expected = _case1(module)
    second = json.loads(json.dumps(expected))
    second["meta"]["confidence"] = 0.7
    second["data"]["verdict"] = "comment"
    _record(
        [
            RunRecord(
                "code-reviewer",
                "2.2.1",
                "v2.2",
                "replay",
                "replay",
                input_value,
                None,
                env,
                T0 + i * 95,
                4.0 + i,
                21.0 + 9 * i,
                None,
                "ok",
            )
            for i, env in enumerate((expected, second))
        ]
    )
    return stage


def _envelope(insights: list[dict[str, str]], categories: list[Any]) -> dict[str, Any]:
    issues = [{"file": "app.py", "category": c, "severity": "low", "title": "t", "detail": "d"} for c in categories]
    return {
        "ok": True,
        "meta": {"confidence": 0.8, "risk": "low", "explain": "x"},
        "data": {
            "verdict": "comment",
            "summary": "s",
            "issues": issues,
            "rationale": "r",
            "extensions": {"insights": insights},
        },
    }


def small_insight_history(stage: Stage) -> Stage:
    """Three code-reviewer runs an hour apart, with a recurring insight and custom categories."""
    assumes = {
        "text": "The change assumes the cache is warm.",
        "suggested_mapping": "data.assumptions",
        "evidence": "line 3",
    }
    owner = {"text": "Alice owns the checkout module.", "suggested_mapping": "issues[].owner"}
    race = {"custom": "concurrency", "reason": "two writers race on the session row"}
    envelopes = [
        _envelope([assumes, owner], [race, "security"]),
        _envelope([assumes], [race]),
        _envelope([assumes], [{"custom": "flaky_test", "reason": "depends on wall-clock time"}]),
    ]
    _record(
        [
            RunRecord(
                "code-reviewer",
                "2.2.1",
                "v2.2",
                "replay",
                "replay",
                {"diff": "x"},
                None,
                env,
                T0 + i * 3600,
                1.0,
                2.0,
                None,
                "ok",
            )
            for i, env in enumerate(envelopes)
        ]
    )
    return stage


def saved_plan(stage: Stage) -> Stage:
    """`cogn migrate legacy-summarizer --dry-run --json`, as if saved on another machine (review shows its path)."""
    plan_file = save_plan(stage.root.parent / "PLAN.json", [stage.module("legacy-summarizer")])
    document = json.loads(plan_file.read_text(encoding="utf-8"))
    for plan in document["modules"]:
        plan["path"] = f"/home/dev/project/modules/{plan['module']}"
    plan_file.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return Stage(stage.root, plan_file)


# ------------------------------------------------------------------ scenes only the tests need


async def browser_filter(pilot: Pilot[None], stage: Stage) -> None:
    """`/` and `re` typed: the tree shows code-reviewer and release-notes; the details stay on code-reviewer."""
    await browser_ready(pilot, stage.module("code-reviewer"))
    await pilot.press("slash")  # the filter box is mounted on first use
    await until(pilot, lambda: bool(pilot.app.screen.query("#filter")), "the filter box")
    no_blink(pilot.app.screen.query_one("#filter", Input))
    await pilot.press("r", "e")
    tree = pilot.app.screen.query_one(ModuleTree)
    await until(pilot, lambda: tree.filter_text == "re", "the filtered tree")
    await settle(pilot)


async def migration_side_by_side(pilot: Pilot[None], stage: Stage) -> None:
    """`s` in the migration preview (side by side is the default only from 140 columns)."""
    await scenes()["migration"].drive(pilot, stage)
    await pilot.press("s")
    await settle(pilot)


async def editor_contract(pilot: Pilot[None], stage: Stage) -> None:
    """The editor's read-only contract tab: code-reviewer's schema as a tree with the goldens behind each field."""
    await scenes()["editor"].drive(pilot, stage)
    screen = pilot.app.screen
    screen.query_one(TabbedContent).active = "contract"
    tree = screen.query_one(ContractTree)
    tree.focus()
    await until(pilot, lambda: tree.option_count > 10, "the contract tree")
    await settle(pilot)


async def editor_merge(pilot: Pilot[None], stage: Stage) -> None:
    """A save over a file another program changed: the three-way merge view (one hunk each side)."""
    await scenes()["editor"].drive(pilot, stage)
    screen = pilot.app.screen
    assert isinstance(screen, EditorScreen)
    manifest = stage.module("code-reviewer") / "module.yaml"
    changed = manifest.read_text(encoding="utf-8").replace("max_input_tokens: 16000", "max_input_tokens: 32000")

    def write() -> None:
        manifest.write_text(changed, encoding="utf-8")

    write()
    buffer = next(b for b in screen.state.files.values() if b.rel == "module.yaml")
    await written_until_seen(pilot, write, lambda: buffer.stale)  # the changed-on-disk mark
    await pilot.press("ctrl+s", "enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, MergeModal), "the merge view")
    await settle(pilot)


async def editor_tabs(pilot: Pilot[None], stage: Stage) -> None:
    """The tab list (f2): every open file with its marks and problem count."""
    await scenes()["editor"].drive(pilot, stage)
    await pilot.press("f2")
    await until(
        pilot, lambda: isinstance(pilot.app.screen, TabPickerModal) and pilot.app.screen.pending is None, "the list"
    )
    await settle(pilot)


async def editor_find(pilot: Pilot[None], stage: Stage) -> None:
    """ctrl+f `deny` enter: the first match selected, the count in the find bar."""
    await scenes()["editor"].drive(pilot, stage)
    await pilot.press("ctrl+f")
    await until(pilot, lambda: pilot.app.screen.query_one("#find-input", Input).has_focus, "the find bar")
    no_blink(pilot.app.screen.query_one("#find-input", Input))
    await pilot.press(*"deny", "enter")
    await settle(pilot)


async def insight_row(pilot: Pilot[None], stage: Stage) -> None:
    """enter on the dashboard's first row: the row in full, with the runs behind it."""
    await scenes()["insights"].drive(pilot, stage)
    await pilot.press("enter")
    await until(
        pilot,
        lambda: isinstance(pilot.app.screen, InsightRowScreen) and pilot.app.screen.phase == "ready",
        "the row in full",
    )
    await settle(pilot)


ALL_SCENES = {
    **scenes(),
    "filter": Scene("filter", browser_filter),
    "migration-split": Scene("migration-split", migration_side_by_side),
    "editor-contract": Scene("editor-contract", editor_contract),
    "editor-merge": Scene("editor-merge", editor_merge),
    "editor-tabs": Scene("editor-tabs", editor_tabs),
    "editor-find": Scene("editor-find", editor_find),
    "insight-row": Scene("insight-row", insight_row),
}
PREPARE: dict[str, Callable[[Stage], Stage]] = {
    "history": two_runs,
    "insights": small_insight_history,
    "insight-row": small_insight_history,
    "review": saved_plan,
}
SNAPSHOTS = tuple(
    dict.fromkeys(  # in this order; a declared screen's scene once
        (
            "browser",
            "filter",
            "help",
            "palette",
            "new-module",
            "editor",
            "editor-contract",
            "editor-merge",
            "editor-tabs",
            "editor-find",
            "migration",
            "review",
            "run-idle",
            "run",
            "run-compare",
            "history",
            "goldens",
            "eval",
            "insights",
            "insight-row",
            *declared_scenes(),  # every screen one can go to, from its declaration
        )
    )
)


# ------------------------------------------------------------------ the snapshots

SIZES = ((80, 24), (120, 40))
THEMES = [pytest.param(None, id="default"), pytest.param("cogtui-ansi", id="ansi")]


async def snapshot_sizes(pilot: Pilot[None], name: str, snapshot: SnapshotAssertion, node: str) -> None:
    """Snapshot the scene at each size in turn, from one app run.

    Driving a scene costs far more than drawing it, so the scene is driven once (at 80×24) and the
    terminal is then resized, as a user would resize it; each size is compared as pytest-textual-snapshot
    compares one (`test_screen[NAME-THEME][80x24].svg`, ...). At 80×24 the header, the footer and every
    footer key must also fit (issue 12). The theme is chosen at start, not switched: a switch would test
    Textual's restyling, and the command palette keeps the theme it opened with.
    """
    app = pilot.app
    failed: list[str] = []
    for size in SIZES:
        if size != SIZES[0]:
            await pilot.resize_terminal(*size)
        await settle(pilot)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        svg = app.export_screenshot(title=app.title, simplify=True)
        variant = f"{size[0]}x{size[1]}"
        if size == (80, 24):
            assert_fits_80x24(app, svg, name)
        matches = snapshot(name=variant) == svg  # syrupy records the comparison (and updates with --snapshot-update)
        if not matches:
            failed.append(f"{variant}:\n{row_diff(SNAPSHOT_DIR / f'{node}[{variant}].svg', svg)}")
    assert not failed, f"{name}: the screen differs from its snapshot at " + "\n".join(failed)


SNAPSHOT_DIR = Path(__file__).parent / "__snapshots__" / "test_snapshots"


def row_diff(stored: Path, svg: str) -> str:
    """The rows whose text differs (styles alone can differ too: then say so), to read a failure in CI's log."""
    before = screen_rows(stored.read_text(encoding="utf-8")) if stored.exists() else []
    lines = list(difflib.unified_diff(before, screen_rows(svg), "snapshot", "now", n=0, lineterm=""))
    return "\n".join(lines[:40]) if lines else "(the same text: only colours or styles differ)"


def assert_fits_80x24(app: App[Any], svg: str, what: str) -> None:
    rows = screen_rows(svg)  # blank rows have no text: [0] is the header, [-1] the footer
    assert "…" not in rows[0], f"{what}: the header is cut: {rows[0]!r}"
    assert "…" not in rows[-1], f"{what}: the footer is cut: {rows[-1]!r}"
    shown = [item for footer in app.screen.query(KeyFooter) for item in footer.items]  # a dialog has none
    for item in shown:  # every key with its description: none was dropped
        assert f"{item.key_display} {item.description}" in rows[-1], f"{what}: {item} is not in {rows[-1]!r}"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("name", SNAPSHOTS)
async def test_screen(name: str, theme: str | None, stage: Stage, tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    """Every screen at 80×24 and 120×40, in the default and the ANSI theme."""
    scene = ALL_SCENES[name]
    theme_id = "ansi" if theme else "default"
    stage = PREPARE.get(name, lambda s: s)(stage)
    app = still(make_app(stage.root, tmp_path, review=stage.plan_file if scene.review else None, theme=theme))
    async with app.run_test(size=SIZES[0]) as pilot:
        await scene.drive(pilot, stage)
        await snapshot_sizes(pilot, name, snapshot.use_extension(SVGImageExtension), f"test_screen[{name}-{theme_id}]")


def test_migration_side_by_side(stage: Stage, tmp_path: Path, snap_compare: Any) -> None:
    """At 120 columns only: 80 is too narrow to be worth a side-by-side snapshot."""

    async def run_before(pilot: Pilot[None]) -> None:
        await ALL_SCENES["migration-split"].drive(pilot, stage)

    assert snap_compare(still(make_app(stage.root, tmp_path)), terminal_size=(120, 40), run_before=run_before)


def screen_rows(svg: str) -> list[str]:
    """The text of each terminal row of an SVG screenshot."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(match.group(2)), []).append((float(match.group(1)), html.unescape(match.group(3))))
    return ["".join(t for _x, t in sorted(parts)).replace("\xa0", " ") for _y, parts in sorted(rows.items())]
