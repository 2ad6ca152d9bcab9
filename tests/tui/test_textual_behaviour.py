"""Textual behaviours cogtui works around. Each test passes while the upstream behaviour is there and fails once
Textual changes it: the workaround named in its docstring can then go."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, TabbedContent, TabPane, Tabs
from tuikit import until


class TabsApp(App[None]):
    """A tab strip given `initial=`, the app quitting just as the strip's tabs are to be mounted."""

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="second"):
            yield TabPane("First", id="first")
            yield TabPane("Second", id="second")


async def test_a_tab_strip_given_initial_raises_when_the_app_quits_as_it_is_drawn(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Textual's `Tabs._on_mount` sets `active` to the initial tab unchecked; once the app is exiting its tabs are not
    mounted and it raises `ValueError: No Tab with id …`. Workaround: the editor and insights draw their
    `TabbedContent` without `initial=` (editor/buffers.EditorBody, insights/screen.py)."""
    app = TabsApp()
    compose = Tabs.compose

    def quit_as_drawn(tabs: Tabs) -> Iterable[Widget]:
        app.exit()
        return compose(tabs)

    monkeypatch.setattr(Tabs, "compose", quit_as_drawn)
    await app.run_async(headless=True, size=(60, 10))
    assert app.return_code == 1 and "No Tab with id" in capfd.readouterr().err  # the traceback Textual prints


class Opened(Screen[None]):
    """A screen whose text field takes the focus as it opens."""

    def compose(self) -> ComposeResult:
        yield Input(id="field")

    def on_mount(self) -> None:
        self.query_one(Input).focus()


class Opener(App[None]):
    """Records the keys no widget took (they bubble up to the app)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("o", "open", "Open", id="open")]

    def __init__(self) -> None:
        super().__init__()
        self.unhandled: list[str] = []

    def on_key(self, event: events.Key) -> None:
        self.unhandled.append(event.key)

    def action_open(self) -> None:
        self.push_screen(Opened())


async def test_a_key_typed_right_after_one_that_opens_a_screen_misses_the_field_it_focuses() -> None:
    """Textual dispatches each key from the terminal as it comes: one typed right after the key that pushed a screen
    goes to the screen being left (the binding of the first runs only once that key has bubbled back up to the app),
    never to the field the new screen focuses. Workaround: key_pipeline.KeyPipeline (the app's
    `on_event` holds each key until the one before it has settled)."""
    app = Opener()
    async with app.run_test(size=(60, 10)) as pilot:
        for key, char in (("o", "o"), ("x", "x")):  # typed at once, as a burst from the terminal delivers them
            app.post_message(events.Key(key, char))
        await until(lambda: "x" in app.unhandled and isinstance(app.focused, Input), pilot)
        assert app.screen.query_one(Input).value == ""


class Footed(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("a", "bell", "Ring", id="ring")]

    def compose(self) -> ComposeResult:
        yield Input(id="one")
        yield Input(id="two")
        yield Footer()


async def test_the_footer_mounts_its_keys_again_on_every_focus_change() -> None:
    """Textual's `Footer` recomposes (a new widget per key) whenever the bindings change, which is every focus change.
    Workaround: widgets/key_footer.KeyFooter draws the keys as text and repaints only when they change."""
    app = Footed()
    async with app.run_test(size=(60, 10)) as pilot:
        await until(lambda: bool(app.query("FooterKey")), pilot)
        before = set(map(id, app.query("FooterKey")))
        app.query_one("#two", Input).focus()
        await until(lambda: bool(app.query("FooterKey")) and before.isdisjoint(map(id, app.query("FooterKey"))), pilot)


class Popped(Screen[None]):
    """Records whether it was still on the stack when its `on_mount` ran."""

    def __init__(self) -> None:
        super().__init__()
        self.mounted_on_stack: list[bool] = []

    def on_mount(self) -> None:
        self.mounted_on_stack.append(self in self.app.screen_stack)


async def test_a_screen_popped_as_it_is_pushed_still_runs_its_on_mount() -> None:
    """Textual runs the `on_mount` of a screen popped in the same turn it was pushed (and what that schedules), once
    the screen is off the stack. Workaround: mounting.while_open, which runs such a method only while its screen is
    open."""
    app = App[None]()
    async with app.run_test(size=(60, 10)) as pilot:
        screen = Popped()
        app.push_screen(screen)
        app.pop_screen()
        await until(lambda: bool(screen.mounted_on_stack), pilot)
        assert screen.mounted_on_stack == [False]


class Styled(Screen[None]):
    CSS_PATH = "textual_behaviour.tcss"


class Defaulted(Screen[None]):
    DEFAULT_CSS = "Defaulted { background: red; }"


async def test_a_screen_with_a_css_path_makes_the_app_parse_every_stylesheet_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Textual reads a screen's CSS_PATH when the screen is first shown, then parses every stylesheet again and
    restyles the whole app. Workaround: stylesheets.py, a screen's stylesheet as its DEFAULT_CSS (added to the
    stylesheet Textual has, parsing only it)."""
    (tmp_path / "textual_behaviour.tcss").write_text("Styled { background: red; }\n", encoding="utf-8")
    monkeypatch.setattr(Styled, "CSS_PATH", str(tmp_path / "textual_behaviour.tcss"))
    app = App[None]()
    async with app.run_test(size=(60, 10)) as pilot:
        parsed: list[str] = []
        reparse = app.stylesheet.reparse

        def counted() -> None:
            parsed.append("all")
            reparse()

        monkeypatch.setattr(app.stylesheet, "reparse", counted)
        await app.push_screen(Defaulted())
        await until(lambda: isinstance(app.screen, Defaulted), pilot)
        assert parsed == []  # a screen's DEFAULT_CSS is added to what Textual has
        await app.push_screen(Styled())
        await until(lambda: isinstance(app.screen, Styled), pilot)
        assert parsed == ["all"]
