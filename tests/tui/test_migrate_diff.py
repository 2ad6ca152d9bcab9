"""DiffView: unified and side-by-side rows, difflib alignment, changed characters, big diffs, theme colours."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from cogtui.core.files.text_codec import unified_diff
from cogtui.tui.widgets.diff_view import DiffView, changed_spans, parse_diff, split_rows, unified_rows

STYLES = Path(__file__).resolve().parents[2] / "cogtui" / "tui" / "styles" / "migrate.tcss"
OLD = "keep 1\nkeep 2\nname: old-name\nremoved line\nkeep 3\n"
NEW = "keep 1\nkeep 2\nname: new-name\nkeep 3\nadded line\nlast"


def test_unified_rows_number_each_side() -> None:
    rows = unified_rows(parse_diff(unified_diff(OLD, NEW, "a/f", "b/f")))
    assert [r.kind for r in rows[:3]] == ["meta", "meta", "hunk"]
    lines = [r for r in rows if r.kind == "line"]
    context = lines[0]
    assert context.old is not None and context.new is not None and context.old.number == context.new.number == 1
    removed = next(r for r in lines if r.old is not None and r.old.text == "removed line")
    assert removed.new is None and removed.old is not None and removed.old.number == 4 and removed.old.kind == "removed"
    added = next(r for r in lines if r.new is not None and r.new.text == "last")
    assert added.old is None and added.new is not None and added.new.number == 6
    assert rows[-1].kind == "note" and "No newline" in rows[-1].text


def test_side_by_side_pairs_a_replaced_line_with_its_replacement() -> None:
    rows = [r for r in split_rows(parse_diff(unified_diff(OLD, NEW, "a/f", "b/f"))) if r.kind == "line"]
    pair = next(r for r in rows if r.old is not None and r.old.text == "name: old-name")
    assert pair.new is not None and pair.new.text == "name: new-name"
    assert pair.old is not None and pair.old.partner == "name: new-name" and pair.new.partner == "name: old-name"
    lonely = next(r for r in rows if r.old is not None and r.old.text == "removed line")
    assert lonely.new is None  # a deleted line faces a blank
    keep = next(r for r in rows if r.old is not None and r.old.text == "keep 3")
    assert (
        keep.old is not None and keep.new is not None and (keep.old.number, keep.new.number) == (5, 4)
    )  # context anchors both sides
    assert changed_spans("name: old-name", "name: new-name", is_old=True) == [(6, 9)]
    assert changed_spans("abc", "xyz", is_old=False) == []  # nothing in common: no emphasis


def test_tabs_and_control_characters_are_made_safe() -> None:
    rows = unified_rows(parse_diff("--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+a\tb\x1bc\x9b\u202ed\n"))
    assert rows[-1].new is not None and rows[-1].new.text == "a   b\\x1bc\\x9b\\u202ed"  # visibly escaped


class DiffApp(App[None]):
    CSS_PATH = STYLES

    def compose(self) -> ComposeResult:
        yield DiffView()


async def test_a_5000_line_diff_draws_only_what_is_visible() -> None:
    old = "".join(f"line {i} 中文\n" for i in range(5000))
    new = "".join(f"line {i} 中文{' changed' if i % 7 == 0 else ''}\n" for i in range(5000))
    diff = unified_diff(old, new, "a/big.txt", "b/big.txt")
    app = DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(diff)
        await pilot.pause()
        assert view.line_count > 5000 and view.virtual_size.height == view.line_count
        view.scroll_end(animate=False)
        await pilot.pause()
        view.split = True
        await pilot.pause()
        assert any(r.old and r.new and r.old.partner for r in view.rows)
        await pilot.press("pageup", "left", "right")
        await pilot.pause()


async def test_an_empty_diff_shows_its_notice_and_colours_follow_the_theme() -> None:
    app = DiffApp()
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(DiffView)
        view.show("", notice="carried verbatim from prompt.txt")
        await pilot.pause()
        assert [r.text for r in view.rows] == ["carried verbatim from prompt.txt"]
        app.theme = "textual-dark"
        await pilot.pause()
        dark = view.get_component_rich_style("diff-view--added").bgcolor
        app.theme = "textual-light"
        await pilot.pause()
        assert view.get_component_rich_style("diff-view--added").bgcolor != dark
