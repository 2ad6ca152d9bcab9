"""The one-line footer: the screen's keys as Textual's footer shows them, kept current, clickable, and fitted.

One small app (not cogtui's) drives it, so each behaviour is seen on its own: the keys of the focused widget
and its screen, one per action, the palette's key on the right, keys not available now dimmed (and only
ringing the bell when clicked), descriptions dropped (the last keys' first) before keys when the terminal is narrow.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input
from tuikit import until

from cogtui.tui.widgets.key_footer import FooterItem, KeyFooter


class Keys(App[None]):
    AUTO_FOCUS = None
    CSS = "KeyFooter { dock: bottom; height: 1; }"  # as cogtui's app.tcss places it
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "Save"),
        Binding("ctrl+s", "save", "Save"),  # a second key for the same action: shown once
        Binding("d", "delete", "Delete"),
        Binding("x", "hidden", "Hidden", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.saved = 0
        self.can_delete = True
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield Input(id="box")
        yield KeyFooter()

    def action_save(self) -> None:
        self.saved += 1

    def action_delete(self) -> None:
        self.can_delete = False
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "delete" and not self.can_delete else True

    def bell(self) -> None:
        self.bells += 1


def described(footer: KeyFooter) -> list[tuple[str, str, bool]]:
    return [(item.key_display, item.description, item.enabled) for item in footer.items]


async def test_the_footer_shows_each_action_once_keeps_current_and_presses_what_is_clicked() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        footer = app.query_one(KeyFooter)
        await until(lambda: bool(footer.items), pilot)
        assert described(footer) == [("s", "Save", True), ("d", "Delete", True)]
        assert footer.palette_item == FooterItem("ctrl+p", "^p", "palette", True)
        assert footer.render().plain == " s Save  d Delete" + " " * 32 + "▏^p palette"

        await pilot.click(KeyFooter, offset=(1, 0))  # on "s"
        assert app.saved == 1
        await pilot.click(KeyFooter, offset=(10, 0))  # on "Delete": the action runs and is then not available
        await until(lambda: described(footer)[1] == ("d", "Delete", False), pilot)
        await pilot.click(KeyFooter, offset=(10, 0))  # not available now: only the bell
        assert app.bells == 1 and not app.can_delete
        await pilot.click(KeyFooter, offset=(30, 0))  # the gap presses nothing
        assert (app.saved, app.bells) == (1, 1)

        app.query_one(Input).focus()  # letters now go to the input: only the key it leaves to the app is shown
        await until(lambda: described(footer) == [("^s", "Save", True)], pilot)


async def test_a_narrow_footer_drops_descriptions_before_keys_then_cuts() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        footer = app.query_one(KeyFooter)
        await until(lambda: bool(footer.items), pilot)
        await pilot.resize_terminal(22, 5)
        await pilot.pause()
        assert footer.render().plain == " s Save  d ▏^p palette"  # the last key loses its description first
        await pilot.resize_terminal(20, 5)
        await pilot.pause()
        assert footer.render().plain == " s  d" + " " * 4 + "▏^p palette"
        await pilot.resize_terminal(14, 5)
        await pilot.pause()
        assert footer.render().plain == " s…▏^p palette"
        await pilot.click(KeyFooter, offset=(1, 0))  # what is still shown can still be clicked
        assert app.saved == 1


def test_no_screen_uses_textuals_footer() -> None:
    """Textual's Footer mounts a widget per key on every focus change: the TUI uses KeyFooter only."""
    tui = Path(__file__).resolve().parents[2] / "cogtui" / "tui"
    users = [
        str(path.relative_to(tui))
        for path in tui.rglob("*.py")
        if re.search(r"^from textual\.widgets import .*\bFooter\b", path.read_text(encoding="utf-8"), re.M)
    ]
    assert users == []
