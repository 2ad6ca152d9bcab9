"""BENCHMARKS.md holds current figures only (issue 32 item 5): at most 20 KB, one section per benchmark that
`make bench` runs, each with its date and load; its history is git's."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from run_all import ORDER  # noqa: E402


def test_benchmarks_md_is_current_figures_in_at_most_20_kb() -> None:
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 20_000
    sections = re.findall(r"^## (\w+) \(`bench/bench_(\w+)\.py`\)$", text, flags=re.M)
    assert [name for name, _ in sections] == [name for name in ORDER if name in {n for n, _ in sections}]
    assert all(name == script for name, script in sections)
    assert set(ORDER) == {name for name, _ in sections}  # every benchmark make bench runs has its figures here
    dated = re.findall(
        r"^## \w+ .*\n\n\d{4}-\d\d-\d\d \d\d:\d\d UTC; (?:.*; )?load \d+\.\d → \d+\.\d\.$", text, flags=re.M
    )
    assert len(dated) == len(sections)
    assert "Session of" not in text  # no diary
