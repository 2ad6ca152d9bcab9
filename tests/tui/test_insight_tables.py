"""The insights tables fit 80 columns, give a wider terminal's room to names and texts, and mark a cut with …."""

from __future__ import annotations

from textual.app import App, ComposeResult
from tuikit import until

from cogtui.tui.widgets.insight_tables import InsightTable, column_widths

LONG = "review.notes[].category.dependency_upgrade_risk"


def test_spare_room_goes_to_the_growing_columns() -> None:
    columns = (("a", 10), ("b", 4), ("c", 6))  # 20 cells + 6 of padding
    assert column_widths(columns, (0, 2), 26) == [10, 4, 6]
    assert column_widths(columns, (0, 2), 20) == [10, 4, 6]  # too narrow: the given widths (the table scrolls)
    assert column_widths(columns, (0, 2), 31) == [13, 4, 8]  # 5 spare: the first growing column takes the odd one
    assert column_widths(columns, (), 40) == [10, 4, 6]


class Tables(App[None]):
    def compose(self) -> ComposeResult:
        yield InsightTable()


def document(mapping: str) -> dict[str, object]:
    return {
        "suggested_mapping": mapping,
        "count": 3,
        "modules": ["code-reviewer"],
        "first_seen": "2026-11-25T10:00:00Z",
        "last_seen": "2026-11-26T10:00:00Z",
    }


async def test_a_long_mapping_is_cut_with_an_ellipsis_and_shown_whole_when_there_is_room() -> None:
    app = Tables()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(InsightTable)
        table.fill([document(LONG), document("data.assumptions")], lambda _d: False)
        await pilot.pause()

        def first_row() -> str:
            return "".join(segment.text for segment in table.render_line(1))

        assert "…" in first_row() and LONG not in first_row() and "2026-11-26" in first_row()
        await pilot.resize_terminal(140, 10)
        await until(lambda: LONG in first_row(), pilot)
        assert "…" not in first_row() and table.current == document(LONG)  # the cursor stayed on its row
