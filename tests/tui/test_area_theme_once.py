"""A TextArea is built with the syntax theme it keeps (TUI-9): the editor's and the run screen's areas were built
with `code_editor`'s default ("monokai"), which was applied and then replaced at mount by the one that suits
the app's theme. Counted through `TextAreaTheme.get_builtin_theme`, which each application of a built-in
TextArea theme looks up once; and the areas still follow the app's theme as it changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TextArea
from textual.widgets.text_area import TextAreaTheme
from tuikit import copy_modules, editor_ready, isolate, make_app, until

from cogtui.tui import navigation
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.area_theme import ANSI


def count_lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the built-in TextArea themes looked up from now on (each application of one looks it up once)."""
    looked_up: list[str] = []
    builtin = TextAreaTheme.get_builtin_theme

    def counting(theme_name: str) -> TextAreaTheme | None:
        looked_up.append(theme_name)
        return builtin(theme_name)

    monkeypatch.setattr(TextAreaTheme, "get_builtin_theme", staticmethod(counting))
    return looked_up


async def test_text_areas_get_their_theme_once_and_still_follow_the_app(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    looked_up = count_lookups(monkeypatch)
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, theme="cogtui-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        looked_up.clear()
        navigation.open_module(app, module)
        await until(lambda: editor_ready(app), pilot)
        await pilot.pause()
        areas = list(app.screen.query(TextArea))
        assert len(areas) > 1 and {area.theme for area in areas} == {"css"}
        assert looked_up == ["css"] * len(areas)  # once each: no "monokai" first

        app.theme = "cogtui-light"
        await until(lambda: {area.theme for area in areas} == {"github_light"}, pilot)
        app.theme = "textual-dark"
        await until(lambda: {area.theme for area in areas} == {"css"}, pilot)

        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EditorScreen), pilot)
        looked_up.clear()
        navigation.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        await pilot.pause()
        assert app.screen.query_one("#run-input", TextArea).theme == "css"
        assert looked_up == ["css"]


async def test_under_cogtui_ansi_the_areas_are_built_with_the_ansi_theme_and_never_apply_another(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Under cogtui-ansi the areas were built with "css" (a built-in looked up and applied) and given the ANSI theme
    once mounted: two themes applied per area. Built with the ANSI theme's name, each registers it as the name is
    set: no built-in theme is looked up at all, as the editor opens or the run screen does."""
    looked_up = count_lookups(monkeypatch)
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, theme=ANSI)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == ANSI
        looked_up.clear()
        navigation.open_module(app, module)
        await until(lambda: editor_ready(app), pilot)
        await pilot.pause()
        areas = list(app.screen.query(TextArea))
        assert len(areas) > 1 and {area.theme for area in areas} == {ANSI}
        assert looked_up == []  # no "css" first

        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EditorScreen), pilot)
        navigation.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        await pilot.pause()
        assert app.screen.query_one("#run-input", TextArea).theme == ANSI and looked_up == []

        app.theme = "cogtui-dark"  # and it still follows the app's theme
        await until(lambda: app.screen.query_one("#run-input", TextArea).theme == "css", pilot)
