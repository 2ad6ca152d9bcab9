"""Model- and file-written text that looks like markup (`[/]`, `[b]`, `[link=x]`, an unclosed `[/tmp`) is shown
literally everywhere: the run panes and their meta card, the insights tables and module filter, the module detail
and the problem list (test_hostile_sinks.py covers the other screens, modals and notifications). None of it may
crash the app (a str given to Tree.add, a DataTable cell or Static.update is parsed as markup)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static, TabbedContent, TextArea
from tuikit import copy_modules, isolate, make_app, press_run_again, screen_of, until

from cogtui.core.history.store import History, RunRecord
from cogtui.core.module.loader import load_module
from cogtui.core.workspace import check_path
from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.diagnostics_panel import DiagnosticsPanel, diagnostic_content
from cogtui.tui.widgets.insight_tables import CustomEnumTable, InsightTable
from cogtui.tui.widgets.json_tree import JsonTree
from cogtui.tui.widgets.module_detail import ModuleDetail, module_content
from cogtui.tui.widgets.run_pane import RunPane
from cogtui.tui.widgets.stream_text import StreamText

HOSTILE = ["[/]", "[b]", "[link=x]", "[/b]", "[B]x[/B]", "[$error]", "see [/tmp", "a\\[b]"]
KEYS = {"[/]": "closing", "[b]": "[link=x]open", "[link=x]": {"[/b]": ["[/]", "[b]"]}, "see [/tmp": 1}


def _hostile_answer(expected: dict[str, Any]) -> dict[str, Any]:
    """A golden answer with hostile keys and values where the contract allows them (extra data fields, texts)."""
    answer = json.loads(json.dumps(expected))
    answer["data"].update(KEYS)
    answer["data"]["summary"] = " ".join(HOSTILE)
    answer["data"]["rationale"] = "Because [/] and [b]bold[/b] and [link=x]x[/link] and see [/tmp"
    answer["data"]["issues"][0]["title"] = "[/]"
    answer["data"]["issues"][0]["category"] = {"custom": "[/]", "reason": "[/b] no predefined [link=x] fits"}
    answer["data"]["extensions"]["insights"][0]["suggested_mapping"] = "data.[b]x[/]"
    answer["meta"]["explain"] = "[/] [b] [link=x]"
    return answer


def _tree_labels(tree: JsonTree) -> list[str]:
    out: list[str] = []

    def walk(node: Any) -> None:
        for child in node.children:
            out.append(tree.render_label(child, tree.rich_style, tree.rich_style).plain)
            walk(child)

    walk(tree.root)
    return out


async def test_a_run_with_hostile_keys_and_values_shows_them_literally(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    expected_file = module / "tests" / "case1.expected.json"
    answer = _hostile_answer(json.loads(expected_file.read_text()))
    expected_file.write_text(json.dumps(answer, ensure_ascii=False), encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        screen = screen_of(app, RunScreen)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        await pilot.pause()
        pane = screen.query_one(RunPane)
        assert pane.result is not None and pane.result.ok, pane.result.envelope if pane.result else None
        tree = pane.query_one(JsonTree)
        assert set(KEYS) <= set(tree.fields)
        labels = _tree_labels(tree)
        assert '[/]: "closing"' in labels and '[b]: "[link=x]open"' in labels and "▼ [link=x] {1}" in labels
        assert "▶ [/b] [2]" in labels and "see [/tmp: 1" in labels and 'custom: "[/]"' in labels
        assert pane.query_one(StreamText).text == answer["data"]["rationale"]
        assert "envelope valid" in str(pane.query_one(".run-outcome", Static).render())
        # The history recorded it: the insights screen over those values (custom enum, reason, mapping).
        await until(lambda: _history_count(tmp_path) == 1, pilot)
        await _check_insights(app, pilot)


async def test_hostile_errors_and_input_messages_show_literally(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    expected_file = module / "tests" / "case1.expected.json"
    answer = json.loads(expected_file.read_text())
    # Not in the enum: an error envelope quoting it.
    answer["data"]["verdict"] = "[/b] [link=x]"
    answer["data"]["[/]"] = {"[b]": "[/]"}
    expected_file.write_text(json.dumps(answer, ensure_ascii=False), encoding="utf-8")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        screen = screen_of(app, RunScreen)
        await pilot.press("ctrl+r")
        await until(lambda: bool(screen.query(RunPane)) and screen.query_one(RunPane).result is not None, pilot)
        await pilot.pause()
        pane = screen.query_one(RunPane)
        assert pane.result is not None and not pane.result.ok
        outcome = str(pane.query_one(".run-outcome", Static).render())
        assert "[/b] [link=x]" in outcome
        assert "[/]" in pane.query_one(JsonTree).fields  # the partial data, hostile key and all
        # The input editor's live validation quotes the input back.
        screen.query_one("#run-input", TextArea).text = json.dumps({"diff": "x", "focus": ["[/b] see [/tmp"]})
        status = screen.query_one("#run-input-status", Static)
        await until(lambda: "[/b] see [/tmp" in str(status.render()), pilot)
        # A hostile model name in the tab title (a valid input again: the E1002 explain would reach MetaCard).
        screen.query_one("#run-input", TextArea).text = (module / "tests" / "case2.input.json").read_text()
        screen.query_one("#run-model", Input).value = "[/] see [/tmp"
        monkeypatch.setattr("cogtui.tui.screens.run.launch.make_provider", _replay_anyway)
        await press_run_again(pilot)
        await until(lambda: len(screen.query(RunPane)) == 2 and screen.query(RunPane)[1].result is not None, pilot)
        await pilot.pause()
        tab = screen.query_one("#runs", TabbedContent).get_tab("run-tab-2")
        assert tab.label.plain == "2 · replay/[/] see [/tmp"


def _replay_anyway(name: str, model: str | None, config: Any) -> Any:
    """Replay's answers under the typed model's name, as a provider that uses model names would carry it."""
    from cogtui.core.run.providers.replay.provider import ReplayProvider

    provider = ReplayProvider()
    provider.model = model or provider.model
    return provider


def _history_count(tmp_path: Path) -> int:
    db = tmp_path / "data" / "history.sqlite3"
    if not db.exists():
        return 0
    with History(db) as history:
        return history.count("code-reviewer")


async def _check_insights(app: CogtuiApp, pilot: Pilot[None]) -> None:
    nav.insights(app, None)
    await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
    screen = screen_of(app, InsightsScreen)
    await pilot.pause()
    insights = screen.query_one(InsightTable)
    assert any(d["suggested_mapping"] == "data.[b]x[/]" for d in insights.documents)
    row = next(i for i, d in enumerate(insights.documents) if d["suggested_mapping"] == "data.[b]x[/]")
    assert insights.get_row_at(row)[0].plain == "data.[b]x[/]"
    await pilot.press("t")  # the custom enums tab
    await pilot.pause()
    enums = screen.query_one(CustomEnumTable)
    cells = [enums.get_row_at(i) for i in range(enums.row_count)]
    assert any(c[2].plain == "[/]" and c[4].plain == "[/b] no predefined [link=x] fits" for c in cells)
    enums.focus()
    await pilot.pause()


@pytest.fixture
def hostile_history(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    runs = []
    for i, text in enumerate(HOSTILE):
        issues = [
            {
                "file": "a.py",
                "category": {"custom": text, "reason": f"{text} because [/b]"},
                "severity": "low",
                "title": "t",
                "detail": "d",
            }
        ]
        env = {
            "ok": True,
            "meta": {"confidence": 0.8, "risk": "low", "explain": text},
            "data": {
                "verdict": "comment",
                "summary": text,
                "issues": issues,
                "rationale": text,
                "extensions": {"insights": [{"text": text, "suggested_mapping": f"data.{text}", "evidence": text}]},
            },
        }
        runs.append(
            RunRecord(
                "code-reviewer",
                "1.0.0",
                "v2.2",
                "replay",
                text,
                {"diff": text},
                None,
                env,
                1_700_000_000.0 + i,
                1.0,
                2.0,
                None,
                "ok",
            )
        )
    with History.open_default() as history:
        history.record_many(runs)
    return root


async def test_insights_over_a_hostile_history(hostile_history: Path, tmp_path: Path) -> None:
    app = make_app(hostile_history, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
        screen = screen_of(app, InsightsScreen)
        insights = screen.query_one(InsightTable)
        shown = {insights.get_row_at(i)[0].plain for i in range(insights.row_count)}
        assert {f"data.{t}" for t in HOSTILE} <= shown
        detail = screen.query_one("#insight-detail-body", Static)
        for row in range(insights.row_count):  # every row's detail pane shows its mapping literally
            mapping = insights.get_row_at(row)[0].plain
            await until(
                lambda row=row, mapping=mapping: insights.cursor_row == row and mapping in str(detail.render()), pilot
            )
            await pilot.press("down")
        enums = screen.query_one(CustomEnumTable)
        values = {enums.get_row_at(i)[2].plain: enums.get_row_at(i)[4].plain for i in range(enums.row_count)}
        assert values == {t: f"{t} because [/b]" for t in HOSTILE}
        await pilot.press("t")  # the custom enums tab, its table focused
        await until(lambda: screen.query_one(TabbedContent).active == "enums-tab" and enums.has_focus, pilot)
        for row in range(enums.row_count):  # and each enum value's detail: the value and its reason, literally
            value, reason = enums.get_row_at(row)[2].plain, enums.get_row_at(row)[4].plain
            shows = (f"{value}  ·  ", f"• {reason}")  # the value in the heading, its reason in the list

            def detailed(row: int = row, shows: tuple[str, str] = shows) -> bool:
                return enums.cursor_row == row and all(s in str(detail.render()) for s in shows)

            await until(detailed, pilot)
            await pilot.press("down")


def _hostile_module(root: Path) -> Path:
    (module,) = copy_modules(root, "code-reviewer")
    yaml = (module / "module.yaml").read_text()
    yaml = "\n".join(
        "responsibility: '[/] [b] [link=x] see [/tmp'"
        if line.startswith("responsibility:")
        else "tier: '[/b] see [/tmp'"
        if line.startswith("tier:")
        else line
        for line in yaml.splitlines()
    )
    (module / "module.yaml").write_text(yaml, encoding="utf-8")
    return module


def test_module_content_and_diagnostics_keep_file_text_literal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = _hostile_module(isolate(monkeypatch, tmp_path))
    report = check_path(module)

    class Store:
        def display(self, path: Path) -> str:
            return str(path)

    content = module_content(load_module(module), report, None, Store())  # type: ignore[arg-type]
    assert "[/] [b] [link=x] see [/tmp" in content.plain
    quoted = [d for d in report.diagnostics if "[/b]" in d.message]
    assert quoted, "the bad tier is a diagnostic quoting it"
    assert quoted[0].message in diagnostic_content(quoted[0], module).plain


async def test_the_browser_and_editor_show_hostile_module_text(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cogtui.tui.widgets.module_tree import ModuleTree

    root = isolate(monkeypatch, tmp_path)
    module = _hostile_module(root)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(lambda: bool(app.store.entries) and all(app.store.report(e.path) for e in app.store.entries), pilot)
        tree = app.screen.query_one(ModuleTree)
        tree.move_cursor(tree.module_nodes[module])
        body = app.screen.query_one(ModuleDetail).query_one("#detail-body", Static)
        await until(lambda: "[/] [b] [link=x] see [/tmp" in str(body.render()), pilot)
        assert "[/b] see [/tmp" in str(body.render())  # the diagnostic quoting the tier
        nav.open_module(app, module)
        await until(lambda: any("[/b]" in d.message for d in app.screen.query_one(DiagnosticsPanel).diagnostics), pilot)
        panel = app.screen.query_one(DiagnosticsPanel)
        await pilot.pause()
        index = next(i for i, d in enumerate(panel.diagnostics) if "[/b]" in d.message)
        prompt = panel.get_option_at_index(index).prompt
        assert isinstance(prompt, Content) and panel.diagnostics[index].message in prompt.plain


# ---------------------------------------------------------------- the meta card and the insights filter


async def test_meta_card_shows_an_unclosed_tag_literally(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cogtui.tui.widgets.meta_card import MetaCard

    root = isolate(monkeypatch, tmp_path)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        card = MetaCard()
        await app.screen.mount(card)
        card.show_meta({"confidence": 0.5, "risk": "low", "explain": "see [/tmp"})
        await pilot.pause()
        assert "see [/tmp" in str(card.render())
        for text in HOSTILE:  # in explain and in risk (shown upper-case in the badge)
            card.show_meta({"confidence": 0.95, "risk": text, "explain": text})
            await pilot.pause()
            shown = str(card.render())
            assert text in shown and f" {text.upper()} " in shown, shown


async def test_insights_module_filter_with_a_hostile_module_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    env = {
        "ok": True,
        "meta": {"confidence": 0.8, "risk": "low", "explain": "x"},
        "data": {"rationale": "r", "extensions": {"insights": [{"text": "t", "suggested_mapping": "m"}]}},
    }
    with History.open_default() as history:
        history.record_many(
            [RunRecord("see [/tmp", "1", "v2.2", "replay", "replay", {}, None, env, 1.7e9, 1.0, 2.0, None, "ok")]
        )
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        nav.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
        await pilot.press("f", "enter")
        await pilot.pause()
        screen = screen_of(app, InsightsScreen)
        select = screen.query_one("#insights-module", Select)
        select.value = "see [/tmp"  # the filter: the status line names the module
        await until(lambda: screen.filled and screen.module == "see [/tmp", pilot)
        assert "see [/tmp" in str(screen.query_one("#status", Static).render())
        options = select.query_one(OptionList)  # the drop-down's options: the module names, literally
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert "see [/tmp" in prompts, prompts
