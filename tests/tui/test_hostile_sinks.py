"""Every other place text from files, models, config or the history reaches a markup-parsing sink: the code view,
the history screen, the modals, notifications (app, browser, new module, migration, insights), the insights filter
and status. Hostile strings (`[/]`, `[b]`, `see [/tmp`, `[$x]`, `[link=x]`) show literally and crash nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Label, OptionList, Select, Static
from tuikit import click, copy_modules, editor_ready, isolate, make_app, screen_of, until

from cogtui.core.history.store import History, HistoryError, RunRecord
from cogtui.core.settings.config import load_config
from cogtui.tui import navigation as nav
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.modals import ChoiceModal, ConfirmModal
from cogtui.tui.screens.new_module.screen import NewModuleModal
from cogtui.tui.widgets.file_diff import FileDiffModal
from cogtui.tui.widgets.insight_tables import CustomEnumTable, InsightTable
from cogtui.tui.widgets.module_tree import ModuleTree
from cogtui.tui.widgets.text_views import CodeView

HOSTILE = ["[/]", "[b]", "see [/tmp", "[$x]", "[link=x]", "[b]x[/b]", "[B]", "a\\[b]"]
ALL = " ".join(HOSTILE)


def rendered(widget: Widget) -> str:
    return str(widget.render())


def label(button: Button) -> str:
    """The button's label as shown: the label the button was given, parsed as markup only if it was markup."""
    text = button.label
    assert isinstance(text, Content)  # Button keeps its label as Content
    return text.plain


def notes(app: App[Any], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every notification as the toast shows it: the message parsed as markup unless `markup=False`."""
    seen: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        shown = Content.from_markup(message) if kwargs.get("markup", True) else Content(message)
        seen.append(shown.plain)
        original(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", notify)
    return seen


def hostile_dir(parent: Path) -> Path:
    """A folder whose path reads `.../dir [b] [$x] [link=x] see [/tmp`."""
    folder = parent / "dir [b] [$x] [link=x] see [" / "tmp"
    folder.mkdir(parents=True)
    return folder


# ---------------------------------------------------------------- the code view


async def test_code_view_shows_plain_text_and_content_literally(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = make_app(isolate(monkeypatch, tmp_path), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        view = CodeView()
        await app.screen.mount(view)
        body = view.query_one(Static)
        for text in HOSTILE:
            view.show_plain(text, "$error")
            await pilot.pause()
            assert view.text == text and rendered(body) == text
            view.show_content(Content.from_markup("[b]$t[/b] [$text-muted]after[/]", t=text))
            await pilot.pause()
            assert view.text == f"{text} after" and rendered(body) == f"{text} after"
            view.show_diff("", empty=text)
            await pilot.pause()
            assert view.text == text and rendered(body) == text
        view.show_text("[$text-muted]markup from code[/] [b]still works[/b]")  # theme variables too
        await pilot.pause()
        assert view.text == rendered(body) == "markup from code still works"


# ---------------------------------------------------------------- the history screen


def _run(module: str, provider: str, model: str, at: float) -> RunRecord:
    env = {"ok": True, "meta": {"confidence": 0.5, "risk": "low", "explain": ALL}, "data": {"rationale": ALL}}
    return RunRecord(module, "1", "v2.2", provider, model, {"x": ALL}, None, env, at, 1.0, 2.0, None, "ok")


async def test_history_screen_with_hostile_names_and_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    name = "mod [b] [$x] [link=x] see ["  # a folder name: no "/"
    with History.open_default() as history:
        history.record_many([_run(name, "[/]", "see [/tmp", 1.7e9), _run(name, "[b]", "[$x]", 1.7e9 + 1)])
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.push_screen(HistoryScreen(tmp_path / name))
        await until(lambda: isinstance(app.screen, HistoryScreen) and len(app.screen.runs) == 2, pilot)
        screen = screen_of(app, HistoryScreen)
        assert rendered(screen.query_one("#history-title", Static)) == f"{name} — 2 runs"
        view = screen.query_one(CodeView)
        await until(lambda: '"explain": "[/] [b] see [/tmp [$x]' in view.text, pilot)  # the highlighted run's envelope
        await pilot.press("space", "down", "d")  # mark, move, compare: equal envelopes say so
        await until(lambda: "have the same envelope" in view.text, pilot)
        table = screen.query_one(DataTable)
        assert {str(table.get_row_at(i)[-1]) for i in range(table.row_count)} == {"[/]/see [/tmp", "[b]/[$x]"}

        # The history cannot be read: its error (which may quote a path) is shown as it is.
        def broken() -> History:
            raise HistoryError(tmp_path, f"cannot open {ALL}")

        monkeypatch.setattr(History, "open_default", staticmethod(broken))
        await pilot.press("escape")
        app.push_screen(HistoryScreen(tmp_path / name))
        await until(
            lambda: isinstance(app.screen, HistoryScreen) and app.screen.query_one(CodeView).text.startswith("cannot"),
            pilot,
        )
        view = app.screen.query_one(CodeView)
        assert view.text == f"cannot open {ALL}" and rendered(view.query_one(Static)) == view.text


# ---------------------------------------------------------------- modals


async def test_modals_show_titles_bodies_and_labels_literally(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    app = make_app(isolate(monkeypatch, tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        answers: list[Any] = []
        app.push_screen(ConfirmModal(f"Title {ALL}", f"Body {ALL}", confirm="[b]go"), answers.append)
        await until(lambda: isinstance(app.screen, ConfirmModal) and app.screen.query_one("#cancel"), pilot)
        modal = screen_of(app, ConfirmModal)
        assert rendered(modal.query_one(".dialog-title", Label)) == f"Title {ALL}"
        assert rendered(modal.query_one(".dialog-body", Static)) == f"Body {ALL}"
        assert label(modal.query_one("#confirm", Button)) == "[b]go"
        await pilot.press("escape")
        app.push_screen(ChoiceModal(ALL, ALL, [(f"m{i}", text) for i, text in enumerate(HOSTILE)]), answers.append)
        await until(lambda: isinstance(app.screen, ChoiceModal) and app.screen.query_one("#cancel"), pilot)
        labels = [label(b) for b in app.screen.query(Button) if (b.id or "").startswith("choice-")]
        assert labels == HOSTILE
        await click(pilot, "#choice-m2")
        await until(lambda: len(answers) == 2, pilot)
        assert answers == [False, "m2"]
        app.push_screen(FileDiffModal(f"{ALL} changed on disk", "--- a\n+++ b\n@@ -1 +1 @@\n-[b]\n+see [/tmp\n"))
        await until(lambda: isinstance(app.screen, FileDiffModal) and app.screen.query_one("#back"), pilot)
        assert rendered(app.screen.query_one(".dialog-title", Label)) == f"{ALL} changed on disk"
        await pilot.press("escape")


async def test_new_module_and_browser_with_a_hostile_search_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    isolate(monkeypatch, tmp_path)
    root = hostile_dir(tmp_path)
    copy_modules(root, "code-reviewer")
    not_a_folder = hostile_dir(tmp_path / "file") / "x [b].txt"
    not_a_folder.write_text("x", encoding="utf-8")
    app = make_app(root, tmp_path)
    app.store = type(app.store).from_paths([str(root), str(not_a_folder)], tmp_path)
    seen = notes(app, monkeypatch)  # before the start: the search path's problems are said once, then
    async with app.run_test(size=(120, 36)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.store.entries), pilot)
        await until(lambda: any(str(not_a_folder) in n for n in seen), pilot)
        tree = app.screen.query_one(ModuleTree)
        await until(lambda: tree.cursor_entry is not None, pilot)
        screen_of(app, BrowserScreen).action_copy_path()
        assert f"Copied {root / 'code-reviewer'}" in seen
        # The new-module form: the search roots in its Select, and a problem quoting the folder.
        nav.new_module(app)
        await until(lambda: isinstance(app.screen, NewModuleModal) and app.screen.query_one("#create"), pilot)
        modal = screen_of(app, NewModuleModal)
        roots = modal.query_one("#root", Select).query_one(OptionList)
        prompts = [str(roots.get_option_at_index(i).prompt) for i in range(roots.option_count)]
        assert f"path: {app.store.display(root)}" in prompts, prompts
        modal.query_one("#root", Select).value = str(root)
        modal.query_one("#name", Input).value = "code-reviewer"
        problem = modal.query_one("#problem", Static)
        await until(lambda: "already exists" in rendered(problem), pilot)
        assert str(root / "code-reviewer") in rendered(problem)
        modal.query_one("#name", Input).value = "fresh-module"
        await click(pilot, "#create")
        await until(lambda: any(n.startswith("Created ") for n in seen), pilot)
        created = next(n for n in seen if n.startswith("Created "))
        assert created == f"Created {app.store.display(root / 'fresh-module')}" and "[b]" in created
        # The new module opens in the editor: let it read the module and draw its tabs before the app shuts down.
        await until(lambda: editor_ready(app), pilot)
        await pilot.pause()


async def test_app_notifications_about_config_and_themes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    config_file = hostile_dir(tmp_path / "cfg") / "config [b].yaml"
    config_file.write_text("theme: '[/] see [/tmp'\nproviders:\n  '[b]':\n    api_key: x\n", encoding="utf-8")
    user_themes = tmp_path / "xdg-config" / "cogtui" / "themes"
    user_themes.mkdir(parents=True)
    (user_themes / "see [b] [$x].yaml").write_text("name: x\nprimary: [not, a, colour\n", encoding="utf-8")
    config = load_config(config_file)
    assert config.problems
    app = make_app(root, tmp_path, config=config)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notes(app, monkeypatch)
        await pilot.pause()
        app.install_themes(announce=True)  # the theme problems and the missing theme, to the recorder
        app.on_mount()  # the config problems, as at start
        assert any("see [b] [$x].yaml" in n for n in seen), seen
        assert any("'[/] see [/tmp' is not available" in n for n in seen), seen
        assert any("providers.[b].api_key ignored" in n and str(config_file) in n for n in seen), seen
        app.apply_theme("[$x] [link=x]", fallback=True)
        assert any("'[$x] [link=x]' is not available" in n for n in seen), seen
        config_file.write_text("- not a mapping\n", encoding="utf-8")
        app.persist("watch", True)
        await app.workers.wait_for_complete()
        await until(lambda: any(n.startswith("Could not save watch") for n in seen), pilot)
        assert any(str(config_file) in n for n in seen if n.startswith("Could not save")), seen


# ---------------------------------------------------------------- migration notifications


async def test_migration_notifications_name_a_hostile_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    name = "legacy [b] [$x] see ["  # the folder's name is the module's
    (copied,) = copy_modules(root, "legacy-summarizer")
    module = copied.rename(root / name)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notes(app, monkeypatch)
        await until(lambda: isinstance(app.screen, BrowserScreen), pilot)
        nav.migrate(app, [module])
        await until(lambda: isinstance(app.screen, MigrationScreen) and all(s.plan for s in app.screen.slots), pilot)
        screen = screen_of(app, MigrationScreen)
        await pilot.pause()
        slot_name = screen.slots[0].name
        assert slot_name == name
        await pilot.press("u")  # nothing to undo: the notification names the module
        await until(lambda: any("There is no migration of" in n for n in seen), pilot)
        assert f"There is no migration of {slot_name} to undo." in seen
        assert screen.slots[0].can_apply
        await pilot.press("a")  # the confirmation quotes the module too
        await until(lambda: isinstance(app.screen, ConfirmModal) and app.screen.query_one("#cancel"), pilot)
        modal = screen_of(app, ConfirmModal)
        assert slot_name in rendered(modal.query_one(".dialog-title", Label)) + rendered(
            modal.query_one(".dialog-body", Static)
        )
        await click(pilot, "#confirm")  # applied, then undone: both notifications quote the module and its backup
        await until(lambda: screen.slots[0].applied is not None, pilot)
        applied = screen.slots[0].applied
        assert applied is not None
        backup = applied.backup_dir
        assert name in str(backup) and any(str(backup) in n for n in seen), seen
        await pilot.press("u")
        await until(lambda: any(n.startswith(f"Restored from {backup}") for n in seen), pilot)


# ---------------------------------------------------------------- insights: status, filter, promote


async def test_insights_promote_and_choose_with_hostile_module_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    modules = ["see [/tmp", "[b]", "[$x] [link=x]"]

    def run(module: str, at: float) -> RunRecord:
        env = {
            "ok": True,
            "meta": {"confidence": 0.8, "risk": "low", "explain": "x"},
            "data": {
                "rationale": "r",
                "tone": {"custom": "[/] wry", "reason": "[b]"},
                "extensions": {"insights": [{"text": "t", "suggested_mapping": "data.[b]x"}]},
            },
        }
        return RunRecord(module, "1", "v2.2", "replay", "replay", {}, None, env, at, 1.0, 2.0, None, "ok")

    with History.open_default() as history:
        history.record_many([run(m, 1.7e9 + i) for i, m in enumerate(modules)])
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        seen = notes(app, monkeypatch)
        await pilot.pause()
        nav.insights(app, None)
        await until(lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, pilot)
        screen = screen_of(app, InsightsScreen)
        assert screen.query_one(InsightTable).row_count == 1
        # One mapping from three modules: p asks which module, with the names as button labels.
        await pilot.press("p")
        await until(lambda: isinstance(app.screen, ChoiceModal) and app.screen.query_one("#cancel"), pilot)
        labels = [label(b) for b in app.screen.query(Button) if (b.id or "").startswith("choice-")]
        assert labels == sorted(modules)
        assert rendered(app.screen.query_one(".dialog-title", Label)) == "Promote data.[b]x"
        await click(pilot, f"#choice-m{sorted(modules).index('see [/tmp')}")
        # None of them is on the search path: the notification names the module as it is.
        await until(lambda: any("is not on the search path" in n for n in seen), pilot)
        assert any(n.startswith("see [/tmp is not on the search path") for n in seen), seen
        # The custom enum value, then the filter and status line for each module.
        await pilot.press("t")
        await pilot.pause()
        enums = screen.query_one(CustomEnumTable)
        assert {enums.get_row_at(i)[0].plain for i in range(enums.row_count)} == set(modules)
        for module in modules:
            screen.query_one("#insights-module", Select).value = module
            await until(lambda: screen.filled and screen.module == module, pilot)  # noqa: B023
            assert rendered(screen.query_one("#status", Static)).endswith(module)
