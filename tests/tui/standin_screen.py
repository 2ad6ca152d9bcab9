"""A stand-in screen declared outside cogtui/tui/screens/ (tests/tui/test_screen_registry.py registers it).

Importing this imports no screen of cogtui's, so a process that registers it before it imports the app sees it
as it sees the package's own declarations, the browser's bindings included (made when the class is defined).
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static
from tuikit import make_app, until

from cogtui.core.records import record
from cogtui.tui.places import Place, ScreenSpec


@record
class Notes(Place):
    path: Path


class NotesScreen(Screen[None]):
    """The stand-in: a module's name, nothing else."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.module_path = path

    def compose(self) -> ComposeResult:
        yield Static(f"notes of {self.module_path.name}", id="notes")


STAND_IN = ScreenSpec(
    "notes",
    Notes,
    f"{__name__}:NotesScreen",
    order=65,
    for_module=lambda path, _name: Notes(path),
    key="o",
    key_label="Notes",
    key_doc="notes of the module",
    palette_module=("Notes of {name}", "the module's notes"),
    scene=lambda root: Notes(root / "code-reviewer"),
    keys_heading="Notes",  # the table of its own keys (notes.*) in docs/keys.md
)


async def pressed_o(root: Path, cwd: Path) -> str:
    """`o` pressed in the browser on the selected module: the screen it opened, and whether the browser's
    bindings hold the key."""
    from cogtui.tui.screens.browser import BrowserScreen
    from cogtui.tui.widgets.module_tree import ModuleTree

    app = make_app(root, cwd)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.store.winners), pilot)
        tree = app.screen.query_one(ModuleTree)
        await until(lambda: tree.cursor_entry is not None, pilot)
        await pilot.press("o")
        await until(lambda: not isinstance(app.screen, BrowserScreen), pilot)
        return f"{type(app.screen).__name__} {browser_has_o(BrowserScreen)}"


def browser_has_o(browser: type[Screen[None]]) -> bool:
    return any(getattr(b, "key", None) == "o" for b in browser.BINDINGS)
