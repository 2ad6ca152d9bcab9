"""How the editor draws its state: the status line, the tabs (a file's text, why it is read-only, its label with
its marks) and the body that holds them, from `EditorState` alone.

The state and each open file (`FileBuffer`) are the core's (`core/authoring/editor_state.py`, `editor_files.py`);
this only turns them into widgets and `Content`. File and module names are variables, never markup (they may hold
`[` or escape sequences). It is its own file because the screen composes the body and opening.py adds a tab to it
later: both draw a tab the same way.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static, TabbedContent, TabPane

from cogtui.core.authoring.editor_files import FileBuffer, language_for, soft_wraps
from cogtui.core.authoring.editor_state import CONTRACT_PANE, MARK_SIGNS, EditorState
from cogtui.core.files.terminal_text import visible

from ...shown import assemble, block, markup
from ...widgets.area_theme import starting_area_theme
from ...widgets.contract_tree import ContractTree
from ...widgets.marked_text_area import MarkedTextArea

# What the editor focuses as it opens: the file to show first (`file_pane(start=True)`), else the problems list.
START_FOCUS = "TextArea.-start-file, DiagnosticsPanel"
MARK_STYLES = {"modified": "$accent", "stale": "$warning", "deleted": "$error", "read-only": "$text-muted"}


def problem_content(buf: FileBuffer) -> Content:
    """The line above a read-only file: why it is read-only."""
    if not buf.problem:
        return Content("")
    return markup("[$warning]read-only:[/] $problem", problem=visible(buf.problem))


def tab_label(state: EditorState, pane: str) -> Content:
    """The label of the tab `pane` (`file_label`)."""
    return file_label(state.files[pane])


def file_label(buf: FileBuffer) -> Content:
    """The path, then `●` modified, `⚠` the disk changed under the edits, `✗` deleted on disk, `(ro)` read-only."""
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


def file_pane(app: App[object], buf: FileBuffer, start: bool = False, read: bool = True) -> TabPane:
    """A file's tab: why it is read-only (hidden when it is not) over its text, read from disk now (`buf.load`)
    unless `read` is False (read already, off the UI thread: opening.py); `start` marks the area the editor
    focuses as it opens."""
    text = buf.load() if read else buf.saved_lf  # first: loading decides whether it is read-only, and why
    problem = Static(
        problem_content(buf),
        id=f"{buf.pane_id}-problem",
        classes="editor-problem" + ("" if buf.read_only else " -hidden"),
    )
    area = MarkedTextArea.code_editor(
        text,
        language=language_for(buf.path) if buf.highlighted else None,
        read_only=buf.read_only,
        soft_wrap=soft_wraps(buf.path),
        tab_behavior="focus",
        theme=starting_area_theme(app),
        id=f"{buf.pane_id}-text",
        classes="-start-file" if start else None,
    )
    return TabPane(file_label(buf), problem, area, id=buf.pane_id)


class EditorBody(Vertical):
    """The editor's tabs, drawn from its state: "Loading the module…" while the module is read off the UI thread
    (TUI-4), then a tab per open file (read already) and the contract tab, or why nothing could be opened. Composed
    again (`recompose`) once the module is read; the rest of the screen (status, find bar, problems) stays."""

    def __init__(self, state: EditorState, id: str) -> None:
        super().__init__(id=id)
        self.state = state

    def compose(self) -> ComposeResult:
        state = self.state
        start = state.current()
        # No `initial=`: a tab strip given one raises if the app quits as it is drawn (Textual's Tabs sets it
        # unchecked on mount; tests/tui/test_textual_behaviour.py). The editor shows its tab once they are drawn.
        with TabbedContent(id="editor-tabs"):
            for buf in state.files.values():
                yield file_pane(self.app, buf, start=buf is start, read=False)
            if state.contract:
                with TabPane("contract", id=CONTRACT_PANE):
                    yield ContractTree(id=f"{CONTRACT_PANE}-tree")
        if state.loading:
            yield Static("Loading the module…", id="editor-loading")
        elif not state.files:
            problem = state.open_problem or "it has no files"
            yield Static(block(visible(f"Cannot open this module: {problem}")), id="editor-empty")
