"""Counts in messages agree with their nouns: "1 error", "1 insight was returned", "1 module"."""

from __future__ import annotations

import shutil
from pathlib import Path

from cogtui.core.diagnostics import plural
from cogtui.core.module.loader import load_module
from cogtui.core.rules.envelope_rules import check_insights

MODULES = Path(__file__).resolve().parents[1] / "modules"


def test_counts_in_messages_agree_with_their_nouns(tmp_path: Path) -> None:
    assert [plural(n, "error") for n in (0, 1, 2, 1000)] == ["0 errors", "1 error", "2 errors", "1,000 errors"]
    module_dir = Path(shutil.copytree(MODULES / "product-ideas", tmp_path / "product-ideas"))
    manifest = module_dir / "module.yaml"
    text = manifest.read_text(encoding="utf-8").replace("  enabled: true", "  enabled: false")
    manifest.write_text(text, encoding="utf-8")
    insight = {"text": "x", "suggested_mapping": "y"}
    found = check_insights({"extensions": {"insights": [insight]}}, load_module(module_dir), ("data",))
    assert [v.message for v in found] == ["overflow is disabled for this module but 1 insight was returned"]
