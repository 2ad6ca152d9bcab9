"""How the editor draws its state: the status line, tab labels and read-only reasons, from `EditorState` alone.

The state and each open file (`FileBuffer`) are the core's
(`core/authoring/editor_state.py`, `editor_files.py`); this only turns them
into `Content`. File and module names are variables, never markup (they may
hold `[` or escape sequences).
"""

from __future__ import annotations

from textual.app import App
from textual.content import Content
from textual.widgets import Static, TabPane

from cogtui.core.authoring.editor_files import FileBuffer, language_for, relative_name, with_newlines
from cogtui.core.authoring.editor_state import MARK_SIGNS, EditorState
from cogtui.core.files.terminal_text import visible

from ..shown import assemble, markup
from ..widgets.area_theme import starting_area_theme
from ..widgets.marked_text_area import MarkedTextArea

__all__ = [
    "FileBuffer",
    "file_pane",
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


def file_pane(app: App[object], state: EditorState, buf: FileBuffer, start: bool = False) -> TabPane:
    """A file's tab: why it is read-only (hidden when it is not) over its text, read from disk now (`buf.load`);
    `start` marks the area the editor focuses as it opens."""
    text = buf.load()  # first: loading decides whether it is read-only, and why
    problem = Static(
        problem_content(buf),
        id=f"{buf.pane_id}-problem",
        classes="editor-problem" + ("" if buf.read_only else " -hidden"),
    )
    area = MarkedTextArea.code_editor(
        text,
        language=language_for(buf.path) if buf.highlighted else None,
        read_only=buf.read_only,
        tab_behavior="focus",
        theme=starting_area_theme(app),
        id=f"{buf.pane_id}-text",
        classes="-start-file" if start else None,
    )
    return TabPane(tab_label(state, buf.pane_id), problem, area, id=buf.pane_id)
