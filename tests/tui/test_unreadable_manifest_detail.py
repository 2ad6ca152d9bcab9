"""The browser's detail pane of a module whose manifest cannot be read claims no tier or settings (FMT-16)."""

from __future__ import annotations

import shutil
from pathlib import Path

from cogtui.core.module.loader import load_module
from cogtui.core.workspace import check_path
from cogtui.tui.widgets.module_detail import module_content

MODULES = Path(__file__).resolve().parents[2] / "modules"


class Store:
    """The part of the app's ModuleStore the detail reads (passed where a ModuleStore is expected)."""

    def display(self, path: Path) -> str:
        return str(path)


def test_the_detail_pane_says_the_settings_are_unknown(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(MODULES / "product-ideas", tmp_path / "product-ideas"))
    readable = module_content(load_module(folder), check_path(folder), None, Store()).plain  # type: ignore[arg-type]
    assert "tier exploration" in readable and "overflow.max_items: 20" in readable
    manifest = folder / "module.yaml"
    manifest.write_text("?" + manifest.read_text(encoding="utf-8"), encoding="utf-8")
    shown = module_content(load_module(folder), check_path(folder), None, Store()).plain  # type: ignore[arg-type]
    assert "tier unknown" in shown and "unknown until the manifest can be read" in shown
    assert "overflow.max_items" not in shown and "tier decision" not in shown
    assert "P001" in shown  # the reason, in the problems list
    assert "Problems (1 error, 0 warnings)" in shown
