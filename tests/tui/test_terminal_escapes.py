"""Escape sequences from models, modules and history never reach the terminal raw in the TUI (issue 11).

The widgets that show such text render it visibly escaped (`\\x1b`): the run's
stream pane and JSON tree, the module tree, the diagnostics panel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from cogtui.core.diagnostics import diag
from cogtui.tui.widgets.diagnostics_panel import diagnostic_content
from cogtui.tui.widgets.json_tree import JsonTree
from cogtui.tui.widgets.stream_text import StreamText

EVIL = "\x1b]0;pwned\x07\x1b[2Jred\u202e"


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield StreamText(id="stream")
        yield JsonTree(id="tree")


def _labels(tree: JsonTree) -> list[str]:
    out: list[str] = []

    def walk(node: Any) -> None:
        for child in node.children:
            out.append(tree.render_label(child, tree.rich_style, tree.rich_style).plain)
            walk(child)

    walk(tree.root)
    return out


async def test_stream_and_tree_show_escapes_escaped() -> None:
    app = Harness()
    async with app.run_test(size=(100, 20)) as pilot:
        stream = app.query_one(StreamText)
        stream.append(EVIL)
        tree = app.query_one(JsonTree)
        tree.set_value({EVIL: EVIL, "list": [EVIL]})
        tree.root.expand_all()
        await pilot.pause()
        rendered = "".join(seg.text for seg in stream.render_line(0))
        assert "\x1b" not in rendered and "\\x1b]0;pwned\\x07" in rendered and "\\u202e" in rendered
        labels = _labels(tree)
        assert labels and not any("\x1b" in label or "\u202e" in label for label in labels)
        assert any("\\u001b]0;pwned" in label or "\\x1b]0;pwned" in label for label in labels)
        assert stream.text == EVIL  # the text itself is kept as it came


def test_diagnostics_show_escapes_escaped() -> None:
    d = diag("P001", f"YAML syntax error near {EVIL}", Path("/m/module.yaml"), 1, 1, hint=EVIL)
    plain = diagnostic_content(d, Path("/m")).plain
    assert "\x1b" not in plain and "\\x1b[2Jred" in plain
