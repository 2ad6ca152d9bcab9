"""Finding text in the open file: ctrl+f opens the find bar (with the selected text, else the last query), enter
or f3 selects the next match after the cursor, wrapping, and the bar counts the matches.

The search is the core's (`core/files/text_search`) and the query and its note are the editor state's; the bar
(widgets/find_bar.py) only posts what was typed. This selects the match and says what was found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets.text_area import Selection

from cogtui.core.files.text_search import count_matches, find_next

if TYPE_CHECKING:
    from .view import EditorView


class Find:
    def __init__(self, editor: EditorView) -> None:
        self.editor = editor

    def open(self) -> None:
        editor = self.editor
        buf = editor.current()
        selected = editor.area(buf).selected_text if buf is not None else ""
        editor.state.find_opened()
        query = selected if selected and "\n" not in selected else editor.state.find_query
        bar = editor.find_bar
        bar.open(query)
        bar.say(editor.state.find_note_for(query))
        editor.update_status()

    def find(self, query: str) -> None:
        editor = self.editor
        buf = editor.current()
        note = ""
        if buf is not None and query:
            area = editor.area(buf)
            lines = area.text.split("\n")
            row, column = area.selection.end
            match = find_next(lines, query, row, column)
            if match is None:
                note = "not found"
                editor.say(f"{query!r} not found in {buf.rel}", timeout=2)
            else:
                area.selection = Selection((match.row, match.start), (match.row, match.end))
                area.scroll_cursor_visible(center=True)
                total = count_matches(lines, query)
                note = f"{total} match{'es' * (total != 1)}" + (" · wrapped" if match.wrapped else "")
        editor.state.found(query, note)
        editor.find_bar.say(note)

    def again(self) -> None:
        """f3: the next match of the last query (the bar opened when there is none yet)."""
        if not self.editor.state.find_query:
            self.open()
        else:
            self.find(self.editor.state.find_query)

    def closed(self) -> None:
        """The bar closed (escape): back to the text."""
        self.editor.state.find_closed()
        if (buf := self.editor.current()) is not None:
            self.editor.area(buf).focus()
