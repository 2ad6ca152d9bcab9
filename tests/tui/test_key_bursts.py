"""Key bursts: keys typed while a screen or a text field is still opening go to it, in order, and are never
dispatched as commands (issue 12: `/qi` crashed, `/image` opened the insights screen, `/quiz` quit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from tuikit import burst, copy_modules, isolate, make_app, screen_of, timers_due, typed, until

from cogtui.tui.screens.browser import DETAIL_DELAY, BrowserScreen, FilterInput
from cogtui.tui.screens.run.screen import RunScreen

NAMES = ("incident-narrator", "code-reviewer", "json-patch-generator")


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, *NAMES)
    return root


@pytest.mark.parametrize("word", ["quiz", "qi", "image", "review", "nmhvgy"])
async def test_a_word_typed_after_slash_goes_to_the_filter(root: Path, tmp_path: Path, word: str) -> None:
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await typed(app, pilot, "/" + word)  # every letter is a browser command key when the tree has focus
        assert app.is_running and isinstance(app.screen, BrowserScreen)
        assert app.query_one(FilterInput).value == word and app.focused is app.query_one(FilterInput)


async def test_keys_after_the_filter_word_go_where_enter_leads(root: Path, tmp_path: Path) -> None:
    """`/code` then enter goes to the first match; the keys after it are commands of the tree again."""
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        burst(app, "/code\nr")
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        assert app.query_one(FilterInput).value == "code"
        module = screen_of(app, RunScreen).module
        assert module is not None and module.name == "code-reviewer"  # enter went to the first match, r ran it


def detail_text(app: App[Any]) -> str:
    from textual.widgets import Static

    return str(app.screen.query_one("#detail-body", Static).render())


async def test_the_details_follow_the_filter(root: Path, tmp_path: Path) -> None:
    """The details pane shows the selected module after each filter change, never the one before."""
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        burst(app, "/code")
        await until(
            lambda: bool(app.screen.query(FilterInput)) and app.screen.query_one(FilterInput).value == "code", pilot
        )
        for word, shown in (("incident", "incident-narrator"), ("json", "json-patch-generator")):
            app.screen.query_one(FilterInput).value = word
            await until(lambda: shown in detail_text(app), pilot)  # noqa: B023 - awaited at once
            await timers_due(pilot, DETAIL_DELAY)  # a debounced show of the module before would have come
            assert shown in detail_text(app)
        app.screen.query_one(FilterInput).value = "zzz"
        await until(lambda: "No module name contains 'zzz'" in detail_text(app), pilot)
        assert "json-patch-generator" not in detail_text(app)


async def test_keys_still_queued_when_the_app_closes_are_dropped() -> None:
    """A key settling as the app shuts down found no screen and raised ScreenStackError (seen under load)."""
    from textual import events
    from textual.app import ScreenStackError

    from cogtui.tui.key_pipeline import KeyPipeline

    class Closing:  # an app whose screens are all gone: it is shutting down
        screen_stack: tuple[object, ...] = ()

        @property
        def screen(self) -> object:
            raise ScreenStackError("No screens on stack")

        focused = screen

    dispatched: list[events.Key] = []

    async def dispatch(key: events.Key) -> None:
        dispatched.append(key)

    pipeline = KeyPipeline(Closing(), dispatch)  # type: ignore[arg-type]
    await pipeline.receive(events.Key("ctrl+s", None))
    assert dispatched == [] and not pipeline.waiting and pipeline.in_flight is None


@pytest.mark.parametrize("keys", ["h\x1b", "i\x1b", "g\x1b", "r\x1b", "h\x1bh\x1bi\x1bi\x1b"])
async def test_escape_right_after_opening_a_screen_goes_back_without_a_crash(
    root: Path, tmp_path: Path, keys: str
) -> None:
    """`escape` typed right after the key that opened a screen (the history, insights, goldens or run screen) goes
    back to the browser and never crashes the app with work the screen had scheduled for itself."""
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await typed(app, pilot, keys)
        await pilot.pause()  # and what the screens scheduled for after their next refresh
        await until(lambda: isinstance(app.screen, BrowserScreen) and len(app.screen_stack) == 1, pilot)
        assert app.is_running and [type(s).__name__ for s in app.screen_stack] == ["BrowserScreen"]


async def test_a_key_is_settled_by_its_marker_never_by_the_clock() -> None:
    """Under load a key's marker can take longer than the pipeline's check to come back (the app is still busy with
    what came before it). Settling the key by the clock then sent `escape` to the browser before the `Navigate` of
    the `h` in front of it: the history opened after it and stayed, or arrived once the app had closed. The check
    settles a key only once the widget its marker went to is gone (the marker went with it)."""
    from collections.abc import Callable

    from textual import events

    from cogtui.tui.key_pipeline import KeyPipeline, KeySettled

    class Target:  # the focused widget: it takes the marker behind the key
        is_attached = True

        def post_message(self, message: KeySettled) -> bool:
            return True

    class Busy:  # an app whose queue has not brought the marker back yet; its timers fire when the test says
        screen_stack = ("browser",)
        focused = Target()

        def __init__(self) -> None:
            self.checks: list[Callable[[], object]] = []

        def set_interval(self, delay: float, callback: Callable[[], object]) -> None:
            self.checks.append(callback)

        set_timer = set_interval

        def post_message(self, message: KeySettled) -> bool:  # a marker with no widget to go through
            return True

    dispatched: list[str] = []

    async def dispatch(key: events.Key) -> None:
        dispatched.append(key.key)

    app = Busy()
    pipeline = KeyPipeline(app, dispatch)  # type: ignore[arg-type]  # the pipeline's part of an App, no more
    await pipeline.receive(events.Key("h", "h"))
    await pipeline.receive(events.Key("escape", None))
    for _ in range(3):  # the check comes round again and again while the marker is on its way
        await app.checks[-1]()  # type: ignore[misc]  # the check is a coroutine function
    assert dispatched == ["h"] and pipeline.in_flight == 1
    app.focused.is_attached = False  # the widget is removed with the marker in its queue: the marker is lost
    await app.checks[-1]()  # type: ignore[misc]
    assert dispatched == ["h", "escape"] and pipeline.in_flight == 2
