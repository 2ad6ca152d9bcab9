"""How the editor draws its state: the status line, tab labels and read-only reasons, from `EditorState` alone.

The state and each open file (`FileBuffer`) are the core's
(`core/authoring/editor_state.py`, `editor_files.py`); this only turns them
into `Content`. File and module names are variables, never markup (they may
hold `[` or escape sequences).
"""

from __future__ import annotations

from textual.content import Content

from cogtui.core.authoring.editor_files import FileBuffer, language_for, relative_name, with_newlines
from cogtui.core.authoring.editor_state import MARK_SIGNS, EditorState
from cogtui.core.files.terminal_text import visible

from ..shown import assemble, markup

__all__ = [
    "FileBuffer",
    "language_for",
    "problem_content",
    "relative_name",
    "status_content",
    "tab_label",
    "with_newlines",
]

MARK_STYLES = {"modified": "$accent", "stale": "$warning", "deleted": "$error", "read-only": "$text-muted"}


def problem_content(buf: FileBuffer) -> Content:
    """The line above a read-only file: why it is read-only."""
    if not buf.problem:
        return Content("")
    return markup("[$warning]read-only:[/] $problem", problem=visible(buf.problem))


def tab_label(state: EditorState, pane: str) -> Content:
    """The path, then `●` modified, `⚠` the disk changed under the edits, `✗` deleted on disk, `(ro)` read-only."""
    buf = state.files[pane]
    parts: list[str | tuple[str, str]] = [visible(buf.rel, single_line=True)]
    for mark in buf.marks():
        parts += [" ", (MARK_SIGNS[mark], MARK_STYLES[mark])]
    return assemble(*parts)


def status_content(state: EditorState) -> Content:
    """The editor's top line (`EditorState.status`), each segment styled, joined by ` · `."""
    parts: list[Content] = []
    for segment in state.status():
        parts.append(assemble(*((visible(text, single_line=True), style) for text, style in segment)))
    return Content(" · ").join(parts)
