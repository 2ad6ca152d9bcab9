"""A unified diff drawn unified or side by side, one visible line at a time.

DiffView is a Line API widget (`ScrollView.render_line`): the diff is parsed
into rows once per file and only the rows on screen are drawn, so a
5,000-line diff scrolls as smoothly as a short one. Side by side, each hunk's
removed and added lines are aligned with difflib opcodes: a replaced line sits
next to its replacement, with the characters that changed emphasised; inserted
or deleted lines face a blank. Colours are component classes, styled in
styles/migrate.tcss with theme variables, so the diff follows the theme.

Horizontal scrolling moves the text of both columns together and keeps the
line numbers in place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from difflib import SequenceMatcher
from typing import ClassVar, NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cogtui.core.files.terminal_text import visible

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
SIGNS = {"context": " ", "removed": "-", "added": "+"}
# Past this, emphasising changed characters costs more than it tells (and SequenceMatcher is quadratic).
_EMPHASIS_MAX_CHARS = 600
_EMPHASIS_MIN_RATIO = 0.4


class Cell(NamedTuple):
    """One side of a diff line: its number in its file, its text, and the line it replaces or is replaced by."""

    number: int
    text: str
    kind: str  # "context", "removed" or "added"
    partner: str | None = None


class DiffRow(NamedTuple):
    """A row on screen: a file header, a hunk header, a note, or a line (one side or both)."""

    kind: str  # "meta", "hunk", "note" or "line"
    text: str = ""
    old: Cell | None = None
    new: Cell | None = None


class _Hunk(NamedTuple):
    header: str
    # (sign, old line number, new line number, text); sign "\\" marks "No newline at end of file"
    lines: list[tuple[str, int, int, str]]


def _clean(text: str) -> str:
    """Tabs expanded and control characters visibly escaped (`\\x1b`): they would corrupt the terminal line."""
    return visible(text.expandtabs(4), single_line=True)


def parse_diff(diff: str) -> list[str | _Hunk]:
    """A unified diff as file-header lines (str) and hunks, with each line numbered in its file."""
    items: list[str | _Hunk] = []
    hunk: _Hunk | None = None
    old_no = new_no = 0
    # Split on "\n" only: str.splitlines would also break at U+2028 inside a line.
    for raw in diff.split("\n"):
        match = _HUNK_HEADER.match(raw)
        if match:
            old_no, new_no = int(match.group(1)), int(match.group(2))
            hunk = _Hunk(_clean(raw), [])
            items.append(hunk)
        elif hunk is None or not raw:
            if raw:
                items.append(_clean(raw))
        elif raw[0] in "-+ ":
            hunk.lines.append((raw[0], old_no, new_no, _clean(raw[1:])))
            old_no += raw[0] != "+"
            new_no += raw[0] != "-"
        else:  # "\\ No newline at end of file"
            hunk.lines.append(("\\", 0, 0, _clean(raw)))
    return items


def _cells(sign: str, old_no: int, new_no: int, text: str) -> tuple[Cell | None, Cell | None]:
    """A diff line's old and new sides (a context line has both)."""
    old = Cell(old_no, text, "context" if sign == " " else "removed") if sign != "+" else None
    new = Cell(new_no, text, "context" if sign == " " else "added") if sign != "-" else None
    return old, new


def unified_rows(items: list[str | _Hunk]) -> list[DiffRow]:
    rows: list[DiffRow] = []
    for item in items:
        if isinstance(item, str):
            rows.append(DiffRow("meta", item))
            continue
        rows.append(DiffRow("hunk", item.header))
        for sign, old_no, new_no, text in item.lines:
            if sign == "\\":
                rows.append(DiffRow("note", text))
            else:
                old, new = _cells(sign, old_no, new_no, text)
                rows.append(DiffRow("line", old=old, new=new))
    return rows


def split_rows(items: list[str | _Hunk]) -> list[DiffRow]:
    """Rows for two columns: context lines anchor both sides; each run of changes in between is aligned."""
    rows: list[DiffRow] = []
    for item in items:
        if isinstance(item, str):
            rows.append(DiffRow("meta", item))
            continue
        rows.append(DiffRow("hunk", item.header))
        removed: list[Cell] = []
        added: list[Cell] = []
        for sign, old_no, new_no, text in item.lines:
            if sign == "-":
                removed.append(Cell(old_no, text, "removed"))
            elif sign == "+":
                added.append(Cell(new_no, text, "added"))
            else:
                rows.extend(_aligned(removed, added))
                removed, added = [], []
                old, new = _cells(sign, old_no, new_no, text)
                rows.append(DiffRow("note", text) if sign == "\\" else DiffRow("line", old=old, new=new))
        rows.extend(_aligned(removed, added))
    return rows


def _aligned(removed: list[Cell], added: list[Cell]) -> Iterator[DiffRow]:
    """One run of removed and added lines, paired by difflib opcodes (a replaced line faces its replacement)."""
    if not removed or not added:
        for cell in removed:
            yield DiffRow("line", old=cell)
        for cell in added:
            yield DiffRow("line", new=cell)
        return
    matcher = SequenceMatcher(None, [c.text for c in removed], [c.text for c in added], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            yield from (DiffRow("line", old=c) for c in removed[i1:i2])
        elif tag == "insert":
            yield from (DiffRow("line", new=c) for c in added[j1:j2])
        else:  # "replace" pairs line by line; "equal" (a moved line) pairs identical ones
            for k in range(max(i2 - i1, j2 - j1)):
                old = removed[i1 + k] if i1 + k < i2 else None
                new = added[j1 + k] if j1 + k < j2 else None
                if old is not None and new is not None and tag == "replace":
                    old, new = old._replace(partner=new.text), new._replace(partner=old.text)
                yield DiffRow("line", old=old, new=new)


def changed_spans(text: str, partner: str, is_old: bool) -> list[tuple[int, int]]:
    """Character ranges of `text` that differ from `partner`; none when the two lines share too little."""
    if len(text) + len(partner) > _EMPHASIS_MAX_CHARS:
        return []
    a, b = (text, partner) if is_old else (partner, text)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < _EMPHASIS_MIN_RATIO:
        return []
    spans = [(i1, i2) if is_old else (j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    return [(start, end) for start, end in spans if end > start]


class DiffView(ScrollView, can_focus=True):
    """One file's unified diff, unified (`split = False`) or side by side (`split = True`)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--meta",
        "diff-view--hunk",
        "diff-view--note",
        "diff-view--context",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--added-word",
        "diff-view--removed-word",
        "diff-view--line-number",
        "diff-view--filler",
        "diff-view--divider",
    }

    split: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._items: list[str | _Hunk] = []
        self._notice: str | None = None
        self._unified: list[DiffRow] = []
        self._split: list[DiffRow] | None = None  # built when first shown side by side
        self._spans: dict[tuple[int, bool], list[tuple[int, int]]] = {}
        self._number_width = 1
        self._widest_text = 0

    # ------------------------------------------------------------ content

    def show(self, diff: str, notice: str | None = None) -> None:
        """Show a diff (an empty one shows only the notice); scrolls back to the top."""
        self._items = parse_diff(diff)
        self._notice = notice
        self._unified = self._with_notice(unified_rows(self._items))
        self._split = None
        self._spans.clear()
        cells = [c for row in self._unified for c in (row.old, row.new) if c is not None]
        self._number_width = len(str(max((c.number for c in cells), default=0)))
        self._widest_text = max((cell_len(c.text) for c in cells), default=0)
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._update_virtual_size()
        self.refresh()

    def _with_notice(self, rows: list[DiffRow]) -> list[DiffRow]:
        return ([DiffRow("note", self._notice)] if self._notice else []) + rows

    @property
    def rows(self) -> list[DiffRow]:
        if not self.split:
            return self._unified
        if self._split is None:
            self._split = self._with_notice(split_rows(self._items))
        return self._split

    @property
    def line_count(self) -> int:
        return len(self.rows)

    def watch_split(self) -> None:
        self._spans.clear()
        self._update_virtual_size()
        self.refresh()

    def on_resize(self) -> None:
        self._update_virtual_size()

    # ------------------------------------------------------------ geometry

    def _text_width(self, width: int) -> int:
        """Cells left for a line's text in one column, after its number(s) and sign."""
        if self.split:
            return (width - 1) // 2 - self._number_width - 2
        return width - 2 * self._number_width - 3

    def _update_virtual_size(self) -> None:
        width = self.scrollable_content_region.width
        # The extra width is how far the text can scroll left; the line numbers stay put.
        extra = max(0, self._widest_text - max(1, self._text_width(width)))
        self.virtual_size = Size(width + extra, len(self.rows))

    # ------------------------------------------------------------ drawing

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"diff-view--{name}")

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        rows = self.rows
        index = scroll_y + y
        if index >= len(rows):
            return Strip.blank(width, self.rich_style)
        row = rows[index]
        if row.kind != "line":
            style = self._style(row.kind)
            return Strip([Segment(row.text, style)]).crop_extend(0, width, style)
        if not self.split:
            return self._unified_line(row, width, scroll_x)
        left_width = (width - 1) // 2
        left = self._column(row.old, index, True, left_width, scroll_x)
        right = self._column(row.new, index, False, width - 1 - left_width, scroll_x)
        divider = Strip([Segment("│", self._style("divider"))])
        return Strip.join([left, divider, right]).crop_extend(0, width, self.rich_style)

    def _unified_line(self, row: DiffRow, width: int, scroll_x: int) -> Strip:
        cell = row.new if row.new is not None else row.old  # a context line's sides are alike
        assert cell is not None
        style = self._style(cell.kind)
        n = self._number_width
        old = f"{row.old.number:>{n}}" if row.old is not None else " " * n
        new = f"{row.new.number:>{n}}" if row.new is not None else " " * n
        gutter = Strip([Segment(f"{old} {new} ", self._style("line-number")), Segment(SIGNS[cell.kind], style)])
        text_width = max(0, width - gutter.cell_length)
        text = Strip([Segment(cell.text, style)]).crop_extend(scroll_x, scroll_x + text_width, style)
        return Strip.join([gutter, text]).crop_extend(0, width, style)

    def _column(self, cell: Cell | None, index: int, is_old: bool, width: int, scroll_x: int) -> Strip:
        if width <= 0:
            return Strip([])
        if cell is None:
            return Strip.blank(width, self._style("filler"))
        style = self._style(cell.kind)
        gutter = Strip(
            [
                Segment(f"{cell.number:>{self._number_width}} ", self._style("line-number")),
                Segment(SIGNS[cell.kind], style),
            ]
        )
        text_width = max(0, width - gutter.cell_length)
        text = self._emphasised(cell, index, is_old, style).crop_extend(scroll_x, scroll_x + text_width, style)
        return Strip.join([gutter, text]).crop_extend(0, width, style)

    def _emphasised(self, cell: Cell, index: int, is_old: bool, style: Style) -> Strip:
        if cell.partner is None:
            return Strip([Segment(cell.text, style)])
        key = (index, is_old)
        spans = self._spans.get(key)
        if spans is None:
            spans = self._spans[key] = changed_spans(cell.text, cell.partner, is_old)
        if not spans:
            return Strip([Segment(cell.text, style)])
        word = self._style("removed-word" if is_old else "added-word")
        segments: list[Segment] = []
        position = 0
        for start, end in spans:
            segments += [Segment(cell.text[position:start], style), Segment(cell.text[start:end], word)]
            position = end
        segments.append(Segment(cell.text[position:], style))
        return Strip([s for s in segments if s.text])
