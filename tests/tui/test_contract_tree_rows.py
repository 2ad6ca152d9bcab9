"""The contract tab's rows: tree guides that end each branch (`└`), and values written as the files write them."""

from __future__ import annotations

from cogtui.tui.widgets.contract_tree import settings_label, tree_guides


def test_guides_end_each_branch_and_stop_the_line_under_it() -> None:
    depths = [0, 1, 2, 2, 1, 2, 1, 0, 1, 1]
    assert tree_guides(depths) == ["", "├ ", "│ ├ ", "│ └ ", "├ ", "│ └ ", "└ ", "", "├ ", "└ "]
    assert tree_guides([0, 1, 2, 3, 1]) == ["", "├ ", "│ └ ", "│   └ ", "└ "]
    assert tree_guides([]) == []


def test_settings_read_as_yaml_and_json_write_them() -> None:
    label = settings_label("overflow", {"enabled": True, "max_items": 5, "strategy": "extensible", "x": None})
    assert label.plain == "overflow enabled: true · max_items: 5 · strategy: extensible · x: null"
