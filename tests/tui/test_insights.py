"""The insights dashboard (`i`) with Pilot: rows, filter, sparkline, promote, the empty state, at 80×24."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Select, Sparkline, Static
from tuikit import screen_of, until

from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.history.store import History, RunRecord
from cogtui.core.settings import locations as paths
from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ChoiceModal, ConfirmModal
from cogtui.tui.widgets.diff_view import DiffView
from cogtui.tui.widgets.insight_detail import InsightDetail
from cogtui.tui.widgets.insight_tables import CustomEnumTable, InsightTable

CODE_REVIEWER = Path(__file__).resolve().parents[2] / "modules" / "code-reviewer"
T0 = 1_700_000_000.0


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME, config and data in tmp_path; code-reviewer on the search path under tmp_path/modules."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "config.yaml"))
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))  # user themes
    monkeypatch.delenv("COGNITIVE_MODULES_PATH", raising=False)
    root = tmp_path / "modules"
    shutil.copytree(CODE_REVIEWER, root / "code-reviewer")
    return root


def envelope(
    insights: list[dict[str, str]], categories: list[Any], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    issues = [{"file": "a.py", "category": c, "severity": "low", "title": "t", "detail": "d"} for c in categories]
    return {
        "ok": True,
        "meta": {"confidence": 0.8, "risk": "low", "explain": "x"},
        "data": {
            "verdict": "comment",
            "summary": "s",
            "issues": issues,
            "rationale": "r",
            **(extra or {}),
            "extensions": {"insights": insights},
        },
    }


def record(module: str, env_: dict[str, Any], at: float) -> RunRecord:
    return RunRecord(module, "1.0.0", "v2.2", "replay", "replay", {"diff": "x"}, None, env_, at, 1.0, 2.0, None, "ok")


def assumption(text: str = "The change assumes the cache is warm.") -> dict[str, str]:
    return {"text": text, "suggested_mapping": "assumptions", "evidence": "line 3"}


CONCURRENCY = {"custom": "concurrency", "reason": "a race between two writers"}


@pytest.fixture
def history(env: Path) -> Path:
    """code-reviewer: 3 runs (assumptions ×3, issues[].owner ×1, custom categories concurrency ×2 and flaky ×1);
    summariser (not on the search path): 2 runs (assumptions ×2, a custom tone)."""
    runs = [
        record(
            "code-reviewer",
            envelope(
                [assumption(), {"text": "Alice owns it", "suggested_mapping": "issues[].owner"}],
                [CONCURRENCY, "security"],
            ),
            T0,
        ),
        record("code-reviewer", envelope([assumption()], [CONCURRENCY]), T0 + 3600),
        record("code-reviewer", envelope([assumption()], [{"custom": "flaky", "reason": "tests"}]), T0 + 7200),
        record(
            "summariser",
            envelope(
                [assumption("Assumes English input.")],
                [],
                {"tone": {"custom": "wry", "reason": "the input was a joke"}},
            ),
            T0 + 1800,
        ),
        record("summariser", envelope([assumption("Assumes one author.")], []), T0 + 5400),
    ]
    with History.open_default() as h:
        h.record_many(runs)
    return paths.history_path()


def make_app(root: Path) -> CogtuiApp:
    return CogtuiApp(paths=[str(root)], cwd=root.parent, watch=False)


def record_notifications(app: CogtuiApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every notification's text (screens notify through the app)."""
    messages: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        messages.append(message)
        original(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", notify)
    return messages


async def dashboard(pilot: Pilot[None], module: str | None = None, press_i: bool = False) -> InsightsScreen:
    app = pilot.app
    assert isinstance(app, CogtuiApp)
    await pilot.pause()
    if press_i:
        await pilot.press("i")
    else:
        navigation.insights(app, module)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, InsightsScreen)
    await until(lambda: screen.filled, pilot)
    return screen


def capture_previews(monkeypatch: pytest.MonkeyPatch) -> list[tuple[MigrationPlan, str]]:
    seen: list[tuple[MigrationPlan, str]] = []
    monkeypatch.setattr(navigation, "preview_plan", lambda app, plan, title="", remake=None: seen.append((plan, title)))
    return seen


def added_lines(plan: MigrationPlan) -> list[str]:
    return [
        line[1:].strip()
        for line in plan.files[0].diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]


# ---------------------------------------------------------------- what it shows


async def test_grouped_rows_counts_modules_and_sparkline(history: Path, env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot, press_i=True)
        table = screen.query_one(InsightTable)
        assert table.row_count == 2
        rows = [(d["suggested_mapping"], d["count"], d["modules"]) for d in table.documents]
        assert rows == [("assumptions", 5, ["code-reviewer", "summariser"]), ("issues[].owner", 1, ["code-reviewer"])]
        assert [str(c) for c in table.get_row_at(0)[:2]] == ["assumptions", "5"]
        enums = screen.query_one(CustomEnumTable)
        assert [(d["module"], d["field"], d["value"], d["count"]) for d in enums.documents] == [
            ("code-reviewer", "issues[].category", "concurrency", 2),
            ("code-reviewer", "issues[].category", "flaky", 1),
            ("summariser", "tone", "wry", 1),
        ]
        spark = screen.query_one(Sparkline)
        assert spark.data is not None and sum(spark.data) == 6 and max(spark.data) > 0
        # The highlighted row's samples are in the detail pane.
        detail = str(screen.query_one("#insight-detail-body", Static).render())
        assert "assumptions" in detail and "Assumes one author." in detail and "line 3" in detail
        # Usable at 80×24: the table has room for rows and every part is on screen.
        for widget in (table, screen.query_one(InsightDetail), screen.query_one(Select), spark):
            assert widget.region.height >= 1 and widget.region.right <= 80 and widget.region.bottom <= 24
        assert table.region.height >= 6
        await pilot.press("down")
        assert "Alice owns it" in str(screen.query_one("#insight-detail-body", Static).render())
        await pilot.press("t")
        assert "a race between two writers" in str(screen.query_one("#insight-detail-body", Static).render())
        assert screen.query_one(CustomEnumTable).has_focus
        await pilot.press("escape")
        assert not isinstance(app.screen, InsightsScreen)


async def test_module_filter_narrows(history: Path, env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot)
        select = screen.query_one(Select)
        assert select.value != "summariser"
        select.value = "summariser"
        await pilot.pause()
        await until(lambda: screen.filled and screen.module == "summariser", pilot)
        assert [
            (d["suggested_mapping"], d["count"], d["modules"]) for d in screen.query_one(InsightTable).documents
        ] == [("assumptions", 2, ["summariser"])]
        assert [d["value"] for d in screen.query_one(CustomEnumTable).documents] == ["wry"]
        assert sum(screen.query_one(Sparkline).data or []) == 2


async def test_a_module_given_is_preselected(history: Path, env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot, "code-reviewer")
        assert screen.query_one(Select).value == "code-reviewer"
        assert [d["count"] for d in screen.query_one(InsightTable).documents] == [3, 1]
        assert {d["module"] for d in screen.query_one(CustomEnumTable).documents} == {"code-reviewer"}


async def test_an_empty_history_shows_the_hint(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot)
        hint = screen.query_one("#insights-empty", Static)
        assert hint.display and "No runs recorded yet" in str(hint.render()) and "cogn run" in str(hint.render())
        assert not screen.query_one("#insights-tabs").display
    assert not paths.history_path().exists()  # looking does not create a history


async def test_an_unreadable_history_is_a_notification(env: Path) -> None:
    paths.history_path().parent.mkdir(parents=True)
    paths.history_path().write_bytes(b"this is not sqlite" * 100)
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        navigation.insights(app, None)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "could not be read" in str(app.screen.query_one("#status", Static).render())


# ---------------------------------------------------------------- promoting


async def test_p_on_a_custom_enum_row_previews_the_plan(
    history: Path, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = capture_previews(monkeypatch)
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await dashboard(pilot)
        await pilot.press("t", "p")
        await until(lambda: bool(seen), pilot)
    plan, title = seen[0]
    assert plan.module == "code-reviewer" and plan.files[0].path == "schema.json"
    assert added_lines(plan) == ['"concurrency",']
    assert "concurrency" in title and "issues[].category" in title
    assert b"concurrency" not in (env / "code-reviewer" / "schema.json").read_bytes()  # nothing written yet


async def test_a_multi_module_insight_asks_which_module(
    history: Path, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = capture_previews(monkeypatch)
    app = make_app(env)
    notes = record_notifications(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await dashboard(pilot)
        await pilot.press("p")
        await until(lambda: isinstance(app.screen, ChoiceModal), pilot)
        await pilot.press("enter")  # the first choice, code-reviewer
        await until(lambda: bool(seen), pilot)
        plan, _ = seen[0]
        assert plan.module == "code-reviewer" and '"assumptions": {' in added_lines(plan)
        new = json.loads(plan.files[0].new_text or "")
        assert new["data"]["properties"]["assumptions"]["type"] == "array"
        # summariser is not on the search path: promoting into it is refused with a notification.
        await pilot.press("p")
        await until(lambda: isinstance(app.screen, ChoiceModal), pilot)
        await pilot.press("tab", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(seen) == 1
        assert any("not on the search path" in n for n in notes)


async def test_a_value_already_in_the_schema_is_marked_and_not_offered(
    history: Path, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12 (promoted rows are marked): a value the schema already has (added outside cogtui) is marked
    ✓ promoted, `p` is not offered for it and does nothing, and `u` is not offered (no backup of it)."""
    seen = capture_previews(monkeypatch)
    schema = env / "code-reviewer" / "schema.json"
    schema.write_text(
        schema.read_text(encoding="utf-8").replace('"style",', '"style",\n"concurrency",'), encoding="utf-8"
    )
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot, "code-reviewer")
        await until(lambda: screen.state.promotions_read_at >= 0, pilot)
        await pilot.press("t")
        table = screen.query_one(CustomEnumTable)
        assert screen.state.current is not None and screen.state.current["value"] == "concurrency"
        assert str(table.get_row_at(0)[2]).startswith("✓ concurrency")
        assert not str(table.get_row_at(1)[2]).startswith("✓")  # flaky is not in the schema
        offered = {active.binding.action for active in screen.active_bindings.values()}
        # Already in the schema, not by a promotion cogtui can undo: u is offered to say why not (MIG-10).
        assert "promote" not in offered and "undo_promotion" in offered and "select_cursor" in offered
        assert "✓ promoted" in str(screen.query_one("#insight-detail-body", Static).render())
        await pilot.press("p")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert seen == []


async def test_the_migration_preview_shows_a_promotion(
    history: Path, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real preview (not captured): the diff, then a applies the promotion, u undoes it; the notices say what
    happened (a promotion, never "Migrated")."""
    schema = env / "code-reviewer" / "schema.json"
    before = schema.read_bytes()
    app = make_app(env)
    titles: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        titles.append(f"{kwargs.get('title') or ''}: {message}")
        original(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", notify)
    async with app.run_test(size=(80, 24)) as pilot:
        await dashboard(pilot, "code-reviewer")
        await pilot.press("t", "p")
        await until(lambda: isinstance(app.screen, MigrationScreen) and app.screen.slots[0].plan is not None, pilot)
        preview = app.screen
        assert isinstance(preview, MigrationScreen)
        head = str(preview.query_one("#migrate-head", Static).render())
        assert "Add 'concurrency' to issues[].category in code-reviewer" in head
        await pilot.press("j")  # the schema's diff
        assert preview.file_index == 1 and preview.query_one(DiffView).line_count > 0
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.click("#confirm")
        await until(lambda: preview.slots[0].applied is not None and preview.slots[0].busy is None, pilot)
        assert b'"concurrency"' in schema.read_bytes()
        assert any(t.startswith("Applied: Add 'concurrency' to issues[].category") for t in titles), titles
        await pilot.press("u")
        await until(lambda: preview.slots[0].undone is not None and preview.slots[0].busy is None, pilot)
        assert schema.read_bytes() == before
        assert any(t.startswith("Undid the change to code-reviewer") for t in titles), titles
        await pilot.press("u")  # nothing left to undo: said as a promotion too
        await until(lambda: any("There is no promotion of code-reviewer to undo" in t for t in titles), pilot)
        assert not any("Migrated" in t or "the migration" in t or "no migration" in t for t in titles), titles


async def test_a_promotion_whose_schema_changed_on_disk_is_planned_again(
    history: Path, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """schema.json edited elsewhere under the preview (MIG-9): `a` writes nothing, the promotion is made again from
    the schema as it is now (keeping the edit), said so, and the next `a` applies it."""
    schema = env / "code-reviewer" / "schema.json"
    app = make_app(env)
    messages = record_notifications(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await dashboard(pilot, "code-reviewer")
        await pilot.press("t", "p")
        await until(lambda: isinstance(app.screen, MigrationScreen) and app.screen.slots[0].plan is not None, pilot)
        preview = screen_of(app, MigrationScreen)
        slot = preview.slots[0]
        first = slot.plan
        edited = schema.read_bytes().rstrip() + b"\n\n"  # another program's edit: a blank line at the end
        schema.write_bytes(edited)
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.click("#confirm")
        await until(lambda: slot.plan is not first and slot.busy is None, pilot)
        assert schema.read_bytes() == edited and slot.failure is None and slot.can_apply
        assert any("Nothing was written; the plan was made again" in m for m in messages), messages
        assert "planned again" in str(preview.query_one("#migrate-summary-text", Static).render())
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmModal), pilot)
        await pilot.click("#confirm")
        await until(lambda: slot.applied is not None and slot.busy is None, pilot)
        assert b'"concurrency"' in schema.read_bytes() and schema.read_bytes().endswith(b"}\n\n")
