"""Shared pieces of the editor tests: an isolated app on a copied module, polling, and lookups.

Imported by tests/tui/test_editor*.py (the folder is on sys.path under
pytest's default import mode); it holds no tests itself.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import TabbedContent, TextArea
from tuikit import HANG_S, screen_of
from tuikit import click as click

from cogtui.core.authoring.editor_files import FileBuffer
from cogtui.tui import navigation
from cogtui.tui.app import CogtuiApp
from cogtui.tui.screens.editor.picker import TabPickerModal
from cogtui.tui.screens.editor.screen import EditorScreen
from cogtui.tui.widgets.diagnostics_panel import DiagnosticsPanel
from cogtui.tui.widgets.marked_text_area import MarkedTextArea

MODULES = Path(__file__).resolve().parents[2] / "modules"
SIZE = (80, 24)


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """code-reviewer copied into tmp_path/modules, with no user config, themes or search path leaking in."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "config.yaml"))
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "data"))
    for name in ("COGNITIVE_MODULES_PATH", "VISUAL", "EDITOR"):
        monkeypatch.delenv(name, raising=False)
    target = tmp_path / "modules" / "code-reviewer"
    shutil.copytree(MODULES / "code-reviewer", target)
    return target


def make_app(module: Path) -> CogtuiApp:
    return CogtuiApp(paths=[str(module.parent)], cwd=module.parent.parent, watch=False)


async def until(
    pilot: Pilot[None],
    predicate: Callable[[], object],
    what: str,
    timeout: float = HANG_S,  # a bound for a hang (tuikit.HANG_S): a pass never waits it out
    retry: Callable[[], object] | None = None,
) -> None:
    """Pause until `predicate()` holds; `retry` runs about once a second (e.g. to write a file again)."""
    start = last_retry = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out waiting for {what}")
        if retry is not None and time.monotonic() - last_retry > 1.0:
            retry()
            last_retry = time.monotonic()
        await pilot.pause(0.02)


async def open_editor(app: CogtuiApp, pilot: Pilot[None], module: Path, file: Path | None = None) -> EditorScreen:
    navigation.open_module(app, module, file)
    await until(pilot, lambda: isinstance(app.screen, EditorScreen), "the editor to open")
    screen = screen_of(app, EditorScreen)
    await until(
        pilot, lambda: any(p.border_title != "Problems" for p in screen.query(DiagnosticsPanel)), "the first validation"
    )
    return screen


def listing_done(app: CogtuiApp) -> bool:
    """The tab list (f2) is shown, the module folder listed (off the UI thread, TUI-4): no line is pending."""
    return isinstance(app.screen, TabPickerModal) and app.screen.pending is None


def buffer(screen: EditorScreen, rel: str) -> FileBuffer:
    return next(b for b in screen.state.files.values() if b.rel == rel)


def area(screen: EditorScreen, rel: str) -> MarkedTextArea:
    return screen.area(buffer(screen, rel))


def active_rel(screen: EditorScreen) -> str:
    return screen.state.files[screen.query_one(TabbedContent).active].rel


def codes(screen: EditorScreen) -> list[str]:
    return [d.code for d in screen.query_one(DiagnosticsPanel).diagnostics]


def tab_label(screen: EditorScreen, rel: str) -> str:
    return screen.query_one(TabbedContent).get_tab(buffer(screen, rel).pane_id).label.plain


def status(screen: EditorScreen) -> str:
    return str(screen.query_one("#editor-status").render())


def notes(seen: list[Message]) -> list[str]:
    return [str(m.notification.message) for m in seen if isinstance(m, Notify)]


def line_of(text: str, prefix: str) -> int:
    """0-based row of the first line starting with `prefix`."""
    return next(i for i, line in enumerate(text.split("\n")) if line.startswith(prefix))


async def replace_line(pilot: Pilot[None], text_area: TextArea, prefix: str, new: str) -> None:
    """Retype the line starting with `prefix` as `new`: select what differs after the prefix, then press keys."""
    assert new.startswith(prefix)
    text_area.focus()
    row = line_of(text_area.text, prefix)
    text_area.move_cursor((row, len(prefix)))
    text_area.move_cursor((row, len(text_area.document.get_line(row))), select=True)
    await pilot.press(*new[len(prefix) :])


async def edit_prompt_and_schema(app: CogtuiApp, pilot: Pilot[None], module: Path) -> EditorScreen:
    """The module's editor on prompt.md, with an unsaved edit in prompt.md and one in schema.json (shown)."""
    screen = await open_editor(app, pilot, module, module / "prompt.md")
    prompt, schema = screen.state.file_for(module / "prompt.md"), screen.state.file_for(module / "schema.json")
    assert prompt is not None and schema is not None
    screen.area(prompt).insert("A first line.\n", (0, 0))
    screen.query_one(TabbedContent).active = schema.pane_id
    screen.area(schema).insert(" ", (0, 0))
    await until(pilot, lambda: schema.modified, "the schema edit")
    return screen
