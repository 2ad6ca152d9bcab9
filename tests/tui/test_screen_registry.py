"""A screen declared in one place (cogtui/tui/screens/<name>/__init__.py): a stand-in screen, registered here, is seen by every surface.

Navigation opens it (one per place), the palette lists it per module, the browser's key opens it, the keys check of
docs/keys.md asks for its key, and `make screenshots` and the snapshot tests get its scene. No other file names it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from standin_screen import STAND_IN, Notes, NotesScreen, browser_has_o
from test_keys_doc import keys_doc_problems
from tuikit import copy_modules, isolate, make_app, palette_pick, until

from cogtui.tui import navigation as nav
from cogtui.tui.keys import SPECS
from cogtui.tui.places import ScreenSpec, browser_keys, registered, specs
from cogtui.tui.screens.browser import BrowserScreen
from tools import screenshots

if TYPE_CHECKING:  # the app is imported where a test starts it
    from cogtui.tui.app import CogtuiApp


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


def test_its_key_joins_the_browser_keys_and_the_keys_guide_check() -> None:
    assert "browser.notes" not in SPECS
    assert not any("browser.notes" in problem for problem in keys_doc_problems())
    with registered(STAND_IN):
        assert SPECS["browser.notes"].keys == "o" and SPECS["browser.notes"].action == "go('notes')"
        ids = [key.id for _spec, key in browser_keys()]
        assert ids.index("browser.history") + 1 == ids.index("browser.notes")  # order 65: after history's 60
        assert "docs/keys.md lacks browser.notes" in keys_doc_problems()
    assert "browser.notes" not in SPECS


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


def test_every_screen_with_a_way_in_has_a_scene() -> None:
    """Each screen a key or the palette opens is in `make screenshots` and the snapshots: a scene of its own in
    tools/screenshots.py or one from its declaration."""
    reachable = [s.name for s in specs() if s.key or s.palette_module or s.palette_anywhere]
    assert reachable and not [name for name in reachable if name not in screenshots.scenes()]


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
