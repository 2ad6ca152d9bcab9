"""The insights dashboard's two tables: overflow insights by suggested mapping, custom enum values by field.

Each holds the rows of `History.insights()` it shows, so the screen asks the
table for the highlighted row's document rather than keeping a parallel list.
Column widths fit 80 columns without scrolling; a wider table gives its room to
the columns of names and texts (`GROW`), and a text cut by its column ends in
`…`. A row whose mapping or value is already in its module's schema (promoted)
is marked ✓.
Every cell is a `Text`: mappings, module names, enum values and reasons come
from model output (via the history), and a str cell would be parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from cogtui.core.files.terminal_text import visible

from ..keys import KeySpec, bindings, register
from ..shown import cell, rich_assemble

# On the tables rather than the screen: the focused table's own enter would hide a screen binding.
register(
    KeySpec("insights.open", "enter", "select_cursor", "Details", doc="the row in full, with the runs behind it")
)  # the detail pane says so

NO_MAPPING = "(no mapping)"


def short_date(iso: str | None) -> str:
    """`2024-05-01T12:00:00.000Z` -> `2024-05-01` (the detail pane shows the full time)."""
    return (iso or "")[:10]


def module_list(modules: list[str], width: int) -> str:
    """`a, b +3`: as many names as fit in `width`, then how many more."""
    shown: list[str] = []
    for i, name in enumerate(modules):
        rest = len(modules) - i - 1
        candidate = ", ".join([*shown, name]) + (f" +{rest}" if rest else "")
        if shown and len(candidate) > width:
            return ", ".join(shown) + f" +{len(modules) - len(shown)}"
        shown.append(name)
    return ", ".join(shown)


PROMOTED_MARK = "✓ "  # before a row's mapping or value once its schema holds it


def marked(cell: Text, promoted: bool) -> Text:
    return rich_assemble((PROMOTED_MARK, "bold green"), cell) if promoted else cell


def _cut(value: Any) -> Any:
    """A text cell that ends in `…` where its column cuts it."""
    if isinstance(value, Text):
        value.no_wrap, value.overflow = True, "ellipsis"
    return value


def _count(n: int) -> Text:
    return cell(f"{n:,}", justify="right")


def column_widths(columns: tuple[tuple[str, int], ...], grow: tuple[int, ...], room: int) -> list[int]:
    """The columns' widths in `room` cells (each column also takes 2 of padding): the given ones, and what is
    left over shared by the columns in `grow` (the first of them takes the odd cells)."""
    widths = [width for _label, width in columns]
    spare = room - sum(widths) - 2 * len(widths)
    if spare > 0 and grow:
        share, odd = divmod(spare, len(grow))
        for rank, index in enumerate(grow):
            widths[index] += share + (1 if rank < odd else 0)
    return widths


class _RowsTable(DataTable[Any]):
    """A row-cursor table over a list of aggregate documents."""

    COLUMNS: tuple[tuple[str, int], ...] = ()
    GROW: tuple[int, ...] = ()  # the columns that take a wider table's room
    BINDINGS = bindings("insights.open")  # enter: RowSelected, which the screen answers with the row's details

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.documents: list[dict[str, Any]] = []
        self.widths: list[int] = []
        self.promoted: Callable[[dict[str, Any]], bool] = lambda _d: False

    def on_mount(self) -> None:
        self._lay_out()

    def on_resize(self) -> None:
        if self._lay_out() and self.documents:  # new widths: the rows again, each cell cut to its column
            self.fill(self.documents, self.promoted, self.cursor_row)

    def _lay_out(self) -> bool:
        """Columns for the table's width now; True when they changed."""
        room = self.scrollable_content_region.width or sum(w for _l, w in self.COLUMNS) + 2 * len(self.COLUMNS)
        widths = column_widths(self.COLUMNS, self.GROW, room - 1)  # a cell for the vertical scrollbar's edge
        if widths == self.widths:
            return False
        self.widths = widths
        self.clear(columns=True)
        for (label, _width), width in zip(self.COLUMNS, widths, strict=True):
            self.add_column(label, width=width)
        return True

    def fill(self, documents: list[dict[str, Any]], promoted: Callable[[dict[str, Any]], bool], row: int = 0) -> None:
        """Show `documents`, marking those `promoted` says are in their schema, the cursor on `row`."""
        self.documents, self.promoted = documents, promoted
        self.clear()
        self.add_rows(tuple(_cut(c) for c in self.cells(d, promoted(d))) for d in documents)
        if documents:
            self.move_cursor(row=row, animate=False)

    def cells(self, document: dict[str, Any], promoted: bool) -> tuple[Any, ...]:
        raise NotImplementedError

    @property
    def current(self) -> dict[str, Any] | None:
        """The document of the highlighted row, if any."""
        row = self.cursor_row
        return self.documents[row] if self.documents and 0 <= row < len(self.documents) else None


class InsightTable(_RowsTable):
    COLUMNS = (("Suggested mapping", 26), ("Count", 6), ("Modules", 16), ("First", 10), ("Last", 10))
    GROW = (0, 2)

    def cells(self, document: dict[str, Any], promoted: bool) -> tuple[Any, ...]:
        mapping = document["suggested_mapping"]
        return (
            marked(cell(visible(str(mapping), True)), promoted)
            if mapping is not None
            else cell(NO_MAPPING, style="italic"),
            _count(document["count"]),
            cell(visible(module_list(document["modules"], self.widths[2] if self.widths else 16), True)),
            cell(short_date(document["first_seen"])),
            cell(short_date(document["last_seen"])),
        )


class CustomEnumTable(_RowsTable):
    COLUMNS = (("Module", 16), ("Field", 20), ("Value", 16), ("Count", 6), ("Top reason", 10))
    GROW = (4, 1, 2)

    def cells(self, document: dict[str, Any], promoted: bool) -> tuple[Any, ...]:
        reasons = document["reasons"]
        return (
            cell(visible(str(document["module"]), True)),
            cell(visible(str(document["field"]), True)),
            marked(cell(visible(str(document["value"]), True)), promoted),
            _count(document["count"]),
            cell(visible(str(reasons[0]), True) if reasons else ""),
        )
