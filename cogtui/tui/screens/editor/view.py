"""What the editor's behaviours use of the editor screen: `EditorView`.

EditorScreen implements it; the behaviours (opening.py, checking.py, problems.py, find.py, picker.py, saving.py,
external.py) import this protocol, never the screen, so the editor's files import one way: the screen imports
them, and they see of it only what is here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.widgets import TabbedContent

    from cogtui.core.authoring.editor_files import FileBuffer
    from cogtui.core.authoring.editor_state import EditorState

    from ...live_check import LiveChecker
    from ...widgets.diagnostics_panel import DiagnosticsPanel
    from ...widgets.find_bar import FindBar
    from ...widgets.marked_text_area import MarkedTextArea
    from .drawing import EditorBody


class EditorView(Protocol):
    state: EditorState  # what the editor shows: the open files, problems, the tab shown, find
    module_path: Path  # the module folder
    focus_file: Path | None  # the file to show first once the module is read
    checker: LiveChecker  # checks the module in a process of its own

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the editor screen itself: its queries, timers, workers and messages

    @property
    def is_open(self) -> bool: ...  # False once closed: a message still on its way finds no tabs

    # The widgets composed once, for the screen's whole life.
    @property
    def body(self) -> EditorBody: ...

    @property
    def tabs(self) -> TabbedContent: ...

    @property
    def find_bar(self) -> FindBar: ...

    @property
    def problems_panel(self) -> DiagnosticsPanel: ...

    def area(self, buf: FileBuffer) -> MarkedTextArea: ...

    def current(self) -> FileBuffer | None: ...

    def buffer_for(self, path: Path) -> FileBuffer | None: ...

    def show_tab(self, pane: str) -> None: ...

    def close_buffer(self, buf: FileBuffer) -> None: ...

    def refresh_buffer(self, buf: FileBuffer) -> None: ...

    def update_status(self) -> None: ...

    def show_problems(self) -> None: ...

    def back_to_text(self) -> None: ...

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 3) -> None: ...

    def validate_now(self) -> None: ...

    def tell_app(self) -> None: ...

    def action_close(self) -> None: ...
