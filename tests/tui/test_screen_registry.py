"""A screen declared in one place (cogtui/tui/screens/<name>/__init__.py): a stand-in screen, registered here, is seen by every surface.

Navigation opens it (one per place), the palette lists it per module, the browser's key opens it, the keys guide's
tables (`python -m tools.keys_doc`) list its key, and `make screenshots` and the snapshot tests get its scene. No
other file names it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from standin_screen import STAND_IN, Notes, NotesScreen, browser_has_o
from tuikit import copy_modules, isolate, make_app, palette_pick, until

from cogtui.tui import navigation as nav
from cogtui.tui.app import CogtuiApp
from cogtui.tui.keys import SPECS, KeySpec, register, withdraw
from cogtui.tui.places import ScreenSpec, browser_keys, registered, specs
from cogtui.tui.screens.browser import BrowserScreen
from tools import keys_doc, screenshots

NOTES_KEY = KeySpec("notes.write", "ctrl+e", "write", "Write", doc="write a note")  # as its screen would register it

if TYPE_CHECKING:  # the app is imported where a test starts it
    from cogtui.tui.app import CogtuiApp


@contextmanager
def registered_keys(*added: KeySpec) -> Iterator[None]:
    register(*added)
    try:
        yield
    finally:
        for key in added:
            withdraw(key.id)


def notes_on(app: CogtuiApp, path: Path) -> list[NotesScreen]:
    return [s for s in app.screen_stack if isinstance(s, NotesScreen) and s.module_path == path]


async def test_navigation_and_the_palette_open_a_declared_screen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    [module] = copy_modules(root, "code-reviewer")
    with registered(STAND_IN):
        app = make_app(root, tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.store.winners), pilot)
            await palette_pick(app, pilot, "Notes of code")
            await until(lambda: isinstance(app.screen, NotesScreen), pilot)
            assert notes_on(app, module) == [app.screen]
            nav.go(app, Notes(module))  # the same place again: back to it, not a second screen
            await pilot.pause()
            assert len(notes_on(app, module)) == 1 and isinstance(app.screen, NotesScreen)
    assert "notes" not in {spec.name for spec in specs()}  # gone with the block


def test_its_key_joins_the_browser_keys_and_the_keys_guide() -> None:
    row = "| `o` | notes of the module | `browser.notes` |"
    assert "browser.notes" not in SPECS and row not in keys_doc.rendered_tables()
    with registered(STAND_IN):
        assert SPECS["browser.notes"].keys == "o" and SPECS["browser.notes"].action == "go('notes')"
        ids = [key.id for _spec, key in browser_keys()]
        assert ids.index("browser.history") + 1 == ids.index("browser.notes")  # order 65: after history's 60
        browser_table = keys_doc.rendered_tables().split("## Browser\n", 1)[1].split("\n## ", 1)[0]
        assert row in browser_table  # its declared words, in the browser's table, which the guide would get
        assert browser_table.index("`browser.history`") < browser_table.index("`browser.notes`")
        current = keys_doc.KEYS_DOC.read_text(encoding="utf-8")
        assert keys_doc.rendered(current) != current  # the guide's check asks for it
    assert "browser.notes" not in SPECS and row not in keys_doc.rendered_tables()


def test_its_own_keys_get_a_table_of_their_own() -> None:
    """A screen's own keys (registered by its screen module) are listed under its declared heading."""
    with registered(STAND_IN), registered_keys(NOTES_KEY):
        text = keys_doc.rendered_tables()
        assert "## Notes\n\n| key | action | id |\n|---|---|---|\n| `ctrl+e` | write a note | `notes.write` |\n" in text
        assert text.index("## History") < text.index("## Notes") < text.index("## Insights")  # order 65
    assert "notes.write" not in keys_doc.rendered_tables()


def test_a_key_no_table_lists_is_named() -> None:
    with registered_keys(NOTES_KEY), pytest.raises(LookupError, match=r"notes\.write"):
        keys_doc.rendered_tables()


async def test_its_scene_joins_the_screenshots_and_the_snapshots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert "notes" not in screenshots.scenes()
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    with registered(STAND_IN):
        assert "notes" in screenshots.declared_scenes()
        names = screenshots.screenshots()
        assert names.index("notes") < names.index("eval")  # before the scenes whose runs are dated now
        app = screenshots.still(make_app(root, tmp_path))
        async with app.run_test(size=(80, 24)) as pilot:
            await screenshots.scenes()["notes"].drive(pilot, screenshots.Stage(root))  # what a snapshot is taken of
            assert isinstance(app.screen, NotesScreen) and app.screen.module_path == root / "code-reviewer"


def test_a_second_screen_of_the_same_name_is_refused() -> None:
    with pytest.raises(ValueError, match="history"), registered(ScreenSpec("history", Notes, "standin_screen:X")):
        pass
    run_key = ScreenSpec("notes", Notes, "standin_screen:X", key="o", key_name="run")  # the run screen's key id
    with pytest.raises(ValueError, match=r"browser\.run"), registered(run_key):
        pass
    assert "notes" not in {spec.name for spec in specs()} and SPECS["browser.run"].keys == "r"


def test_every_screen_with_a_way_in_declares_its_scene() -> None:
    """Each screen a key or the palette opens declares the place of its scene, which `make screenshots` and the
    snapshots show (tools/screenshots.py adds only the steps a declaration cannot say, by the spec's name)."""
    reachable = [s for s in specs() if s.key or s.palette_module or s.palette_anywhere]
    assert reachable and not [s.name for s in reachable if s.scene is None]
    assert {s.name for s in reachable} <= set(screenshots.declared_scenes()) <= set(screenshots.screenshots())
    assert set(screenshots.STEPS) <= {s.name for s in specs()}  # steps only for declared screens


# ------------------------------------------------------------------ the browser's key, in a process of its own

# The browser's bindings are made when its class is defined (as Textual makes every class's), from the declarations
# found then: a stand-in registered before the app is imported is a declaration like the package's own.
BROWSER_KEY = """
import asyncio, sys
from pathlib import Path
from standin_screen import STAND_IN, pressed_o
from cogtui.tui.places import registered
with registered(STAND_IN):
    print(asyncio.run(pressed_o(Path(sys.argv[1]), Path(sys.argv[2]))))
"""


def test_the_browser_key_opens_a_declared_screen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    here = Path(__file__).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), str(here.parents[1])])}
    proc = subprocess.run(
        [sys.executable, "-c", BROWSER_KEY, str(root), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "NotesScreen True"
    assert not browser_has_o(BrowserScreen)  # this process's browser, defined without the stand-in, has no `o`
