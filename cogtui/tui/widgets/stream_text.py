"""Text that grows as it streams, word-wrapped, with a sticky tail.

Appending costs O(new text): only the unfinished last line is re-wrapped, and
only changed lines are repainted. The view follows the end unless the user
has scrolled up; scrolling back to the end re-attaches it. A width change
re-wraps everything once.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cogtui.core.files.terminal_text import visible


def _cells(text: str) -> int:
    return len(text) if text.isascii() else cell_len(text)


def wrap_line(text: str, width: int) -> list[str]:
    """Greedy word wrap of one paragraph into lines of at most `width` cells (hard breaks for long words)."""
    if width <= 0:
        return [text]
    out: list[str] = []
    while _cells(text) > width:
        cut = width
        if not text.isascii():  # find the character index that fills `width` cells
            acc = 0
            for i, ch in enumerate(text):
                acc += cell_len(ch)
                if acc > width:
                    cut = i
                    break
        space = text.rfind(" ", 0, cut + 1)
        if space > 0:
            out.append(text[:space])
            text = text[space + 1 :]
        else:
            out.append(text[:cut])
            text = text[cut:]
    out.append(text)
    return out


class StreamText(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    StreamText { height: 1fr; }
    """

    def __init__(self, placeholder: str = "", **kwargs: Any) -> None:  # the widget's own keywords, passed through
        super().__init__(**kwargs)
        self._raw: list[str] = []  # every appended piece, for re-wrapping on resize
        self._lines: list[str] = []  # finished display lines
        self._current = ""  # the last, unfinished display line
        self._wrap_width = 0
        self.placeholder = placeholder
        self.follow = True  # the sticky tail

    # ------------------------------------------------------------ content

    @property
    def text(self) -> str:
        return "".join(self._raw)

    @property
    def line_count(self) -> int:
        return len(self._lines) + 1

    def append(self, text: str) -> None:
        if not text:
            return
        at_end = self.follow and (self.is_vertical_scroll_end or self.max_scroll_y == 0)
        self._raw.append(text)
        first_changed = len(self._lines)
        self._wrap_into(text)
        self.virtual_size = Size(self._wrap_width, self.line_count)
        self.refresh_lines(first_changed, self.line_count - first_changed)
        if at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def reset(self, text: str = "") -> None:
        """Replace everything (a snapshot replaced the field)."""
        self._raw.clear()
        self._lines.clear()
        self._current = ""
        if text:
            self._raw.append(text)
            self._wrap_into(text)
        self.virtual_size = Size(self._wrap_width, self.line_count)
        self.refresh()

    def _wrap_into(self, text: str) -> None:
        width = self._wrap_width or self._available_width()
        self._wrap_width = width
        pieces = text.split("\n")
        for i, piece in enumerate(pieces):
            if i > 0:  # a newline finishes the current line
                self._lines.append(self._current)
                self._current = ""
            if not piece:
                continue
            wrapped = wrap_line(self._current + piece, width)
            self._lines.extend(wrapped[:-1])
            self._current = wrapped[-1]

    def _available_width(self) -> int:
        # Leave room for the vertical scrollbar, which appears once the text is taller than the view.
        return max(1, self.size.width - self.styles.scrollbar_size_vertical - 1)

    def on_resize(self) -> None:
        width = self._available_width()
        if width != self._wrap_width:
            self._wrap_width = width
            raw, self._raw = self._raw, []
            self._lines.clear()
            self._current = ""
            joined = "".join(raw)
            if joined:
                self._raw.append(joined)
                self._wrap_into(joined)
            self.virtual_size = Size(width, self.line_count)
            self.refresh()

    def on_mouse_scroll_up(self) -> None:
        self.follow = False

    def on_mouse_scroll_down(self) -> None:
        self.call_after_refresh(self._maybe_reattach)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new < old:
            self.follow = False
        elif self.is_vertical_scroll_end:
            self.follow = True

    def _maybe_reattach(self) -> None:
        if self.is_vertical_scroll_end:
            self.follow = True

    # ------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        style = self.rich_style
        if not self._raw and index == 0 and self.placeholder:
            return Strip(
                [
                    Segment(
                        self.placeholder,
                        self.get_component_rich_style("stream-text--placeholder", partial=True) + style,
                    )
                ]
            ).crop_extend(0, self.size.width, style)
        if index < len(self._lines):
            line = self._lines[index]
        elif index == len(self._lines):
            line = self._current
        else:
            line = ""
        # Model text: escape sequences are shown escaped, never sent to the terminal (docs/security.md).
        return Strip([Segment(visible(line, single_line=True), style)]).crop_extend(0, self.size.width, style)

    COMPONENT_CLASSES: ClassVar[set[str]] = {"stream-text--placeholder"}
