"""Issue 12 ("walls of errors whose text dumps whole JSON objects"): a module whose golden holds big bad JSON shows
short, located problems in the browser's details, each value cut to an excerpt, not the whole object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from modkit import clean_v22, make_module
from textual.widgets import Static
from tuikit import isolate, make_app, until

from cogtui.core.diagnostics import EXCERPT_CHARS
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.widgets.module_detail import ModuleDetail
from cogtui.tui.widgets.module_tree import ModuleTree


async def test_a_big_bad_golden_reads_short_in_the_details(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    files: dict[str, Any] = clean_v22("big-golden")
    files["tests/case1.expected.json"]["data"] = {
        "label": {"custom": 7, "reason": ["not", "a", "string"] * 50},
        "rationale": "r" * 2000,
    }
    files["tests/case1.input.json"] = {"text": "t" * 3000, "extra": {"k": list(range(500))}}
    module = make_module(root, files, "big-golden")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: isinstance(app.screen, BrowserScreen) and app.store.report(module) is not None, pilot)
        tree = app.screen.query_one(ModuleTree)
        tree.move_cursor(tree.module_nodes[module])
        body = app.screen.query_one(ModuleDetail).query_one("#detail-body", Static)
        await until(lambda: "Problems (" in str(body.render()), pilot)
        text = str(body.render())
        assert "tests/case1" in text  # located in the golden's file
        for run in ("t", "r"):
            assert run * (EXCERPT_CHARS + 1) not in text
        assert "'not', 'a', 'string', 'not'" not in text  # the list is not dumped whole
        assert max(len(line) for line in text.splitlines()) < 400
