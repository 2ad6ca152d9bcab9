"""The insights dashboard's two tables: overflow insights by suggested mapping, custom enum values by field.

Each holds the rows of `History.insights()` it shows, so the screen asks the
table for the highlighted row's document rather than keeping a parallel list.
Column widths are fixed so both tables fit 80 columns without scrolling. A row whose mapping or
value is already in its module's schema (promoted) is marked ✓.
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

# On the tables rather than the screen: the focused table's own enter would hide a screen binding.
register(KeySpec("insights.open", "enter", "select_cursor", "Details"))  # the detail pane says so

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
    return Text.assemble((PROMOTED_MARK, "bold green"), cell) if promoted else cell


def _count(n: int) -> Text:
    return Text(f"{n:,}", justify="right")


class _RowsTable(DataTable[Any]):
    """A row-cursor table over a list of aggregate documents."""

    COLUMNS: tuple[tuple[str, int], ...] = ()
    BINDINGS = bindings("insights.open")  # enter: RowSelected, which the screen answers with the row's details

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.documents: list[dict[str, Any]] = []

    def on_mount(self) -> None:
        for label, width in self.COLUMNS:
            self.add_column(label, width=width)

    def fill(self, documents: list[dict[str, Any]], promoted: Callable[[dict[str, Any]], bool], row: int = 0) -> None:
        """Show `documents`, marking those `promoted` says are in their schema, the cursor on `row`."""
        self.documents = documents
        self.clear()
        self.add_rows(self.cells(d, promoted(d)) for d in documents)
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

    def cells(self, document: dict[str, Any], promoted: bool) -> tuple[Any, ...]:
        mapping = document["suggested_mapping"]
        return (
            marked(Text(visible(str(mapping), True)), promoted)
            if mapping is not None
            else Text(NO_MAPPING, style="italic"),
            _count(document["count"]),
            Text(visible(module_list(document["modules"], 16), True)),
            Text(short_date(document["first_seen"])),
            Text(short_date(document["last_seen"])),
        )


class CustomEnumTable(_RowsTable):
    COLUMNS = (("Module", 16), ("Field", 20), ("Value", 16), ("Count", 6), ("Top reason", 10))

    def cells(self, document: dict[str, Any], promoted: bool) -> tuple[Any, ...]:
        reasons = document["reasons"]
        return (
            Text(visible(str(document["module"]), True)),
            Text(visible(str(document["field"]), True)),
            marked(Text(visible(str(document["value"]), True)), promoted),
            _count(document["count"]),
            Text(visible(str(reasons[0]), True) if reasons else ""),
        )
