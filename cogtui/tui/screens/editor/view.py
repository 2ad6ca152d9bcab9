"""What the editor's flows (disk changes, saving, moving around) use of the editor screen: `EditorView`.

EditorScreen implements it; the flows (disk.py, saving.py,
navigation.py) import this protocol, never the screen, so the editor's
files import one way.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from cogtui.core.authoring.editor_state import EditorState
    from cogtui.core.files.module_listing import ModuleListing

    from ...module_loads import FolderReads
    from ...widgets.marked_text_area import MarkedTextArea
    from .buffers import FileBuffer


class EditorView(Protocol):
    state: EditorState  # what the editor shows: the open files, problems, the tab shown, find
    focus_file: Path | None  # the file to show first once the module is read
    listing: FolderReads[ModuleListing]  # the module folder's files, read off the UI thread (f2, "Open X" again)

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the editor screen itself, for queries

    @property
    def is_open(self) -> bool: ...  # False once closed: a message still on its way finds no tabs

    def area(self, buf: FileBuffer) -> MarkedTextArea: ...

    def current(self) -> FileBuffer | None: ...

    def buffer_for(self, path: Path) -> FileBuffer | None: ...

    def close_buffer(self, buf: FileBuffer) -> None: ...

    def refresh_buffer(self, buf: FileBuffer) -> None: ...

    def update_status(self) -> None: ...

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 3) -> None: ...

    def validate_now(self) -> None: ...

    def tell_app(self) -> None: ...
