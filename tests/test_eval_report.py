"""Eval reports: JSON round trip, hostile baselines, the baseline comparison, JUnit XML that always parses,
percentiles, and the price table (built-in, config.yaml overrides, located problems)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cogtui.core.eval.baseline import GONE, IMPROVEMENT, NEW, REGRESSION, SAME, compare, load_baseline
from cogtui.core.eval.junit import junit_xml
from cogtui.core.eval.model import BadReport, Cell, EvalReport
from cogtui.core.eval.stats import percentile, summarise
from cogtui.core.settings.config import load_config
from cogtui.core.settings.prices import Price, price_for


def report(*cells: tuple[str, bool, str | None], target: str = "t") -> EvalReport:
    out = EvalReport(["m"], [target], [Cell("m", case, target, ok, code) for case, ok, code in cells], 0.0)
    out.summaries = summarise(out.cells, out.targets)
    return out


def test_json_round_trip() -> None:
    r = report(("a", True, None), ("b", False, "E3001"))
    r.cells[1].usage = {"input_tokens": 5}
    back = EvalReport.from_json(json.loads(json.dumps(r.to_json())))
    assert back.cells == r.cells and back.targets == ["t"] and back.modules == ["m"]


@pytest.mark.parametrize(
    ("doc", "why"),
    [
        ([], "not a cogtui eval report"),
        ({"format": "cogtui-eval/1"}, "no list of cells"),
        ({"format": "cogtui-eval/1", "cells": [5]}, "not an object"),
        ({"format": "cogtui-eval/1", "cells": [{"module": "m"}]}, "has no 'case'"),
        ({"format": "cogtui-eval/1", "cells": [{"module": 1, "case": "c", "target": "t", "passed": "yes"}]}, "text"),
    ],
)
def test_bad_reports_are_refused_with_a_reason(doc: object, why: str) -> None:
    with pytest.raises(BadReport, match=why):
        EvalReport.from_json(doc)


def test_baseline_files_that_are_not_reports(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "bytes.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(BadReport, match="not JSON"):
        load_baseline(str(tmp_path / "deep.json"), None)
    with pytest.raises(BadReport, match=r"bytes\.json:1:1: invalid UTF-16"):  # a BOM, then one byte: said where
        load_baseline(str(tmp_path / "bytes.json"), None)
    with pytest.raises(BadReport, match="history is off"):
        load_baseline("7", None)


def test_compare_marks_each_cell() -> None:
    before = report(("keeps", True, None), ("breaks", True, None), ("fixed", False, "E3001"), ("old", True, None))
    now = report(("keeps", True, None), ("breaks", False, "mismatch"), ("fixed", True, None), ("added", False, "x"))
    c = compare(now, before, "base.json")
    status = {ch.case: ch.status for ch in c.changes}
    assert status == {"keeps": SAME, "breaks": REGRESSION, "fixed": IMPROVEMENT, "added": NEW, "old": GONE}
    assert c.regressed and c.pass_rates["t"] == (0.75, 0.5)
    assert next(ch for ch in c.changes if ch.case == "breaks").after == "mismatch"
    assert not compare(before, before, "same").regressed
    assert c.to_json()["regressions"] == 1 and all(ch["status"] != SAME for ch in c.to_json()["changes"])
    assert [ch.case for ch in c.new_failing] == ["added"] and c.fails  # EVAL-3: a new cell failing fails CI
    assert (c.to_json()["new"], c.to_json()["new_failing"], c.to_json()["gone"], c.shared) == (1, 1, 1, 3)


def test_a_new_cell_that_passes_does_not_fail_and_no_shared_cell_is_counted() -> None:
    before = report(("a", True, None))
    grown = compare(report(("a", True, None), ("b", True, None)), before, "base.json")
    assert not grown.fails and grown.shared == 1
    other = compare(report(("x", True, None)), before, "base.json")  # another module's eval, say
    assert other.shared == 0 and not other.fails


def test_junit_parses_whatever_the_text() -> None:
    r = report(("a\x00b\x1b[31m", False, "E3001"), ("ok", True, None), target="t<&>\ud800")
    r.cells[0].reasons = ['data.label is "x\x07" but <bug> & more', "\ud800 lone"]
    xml = junit_xml(r, compare(r, report(("a\x00b\x1b[31m", True, None), target="t<&>\ud800"), "b"))
    root = ET.fromstring(xml.encode("utf-8"))
    case = next(root.iter("testcase"))
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "E3001"
    assert "<bug> & more" in (failure.text or "") and "regression" in (failure.text or "")
    assert root.get("failures") == "1" and root.get("tests") == "2"


def test_percentile_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 95) == 5.0
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 95)) == (50.0, 95.0)


def test_price_table_and_overrides(tmp_path: Path) -> None:
    assert price_for("claude-sonnet-5-5") == Price(3, 15, 0.3, 3.75)
    assert price_for("gpt-4o-mini") == Price(0.15, 0.6, 0.075)  # exact name before the shorter pattern
    assert price_for("replay") is not None and price_for("some-local-model") is None
    cfg_file = tmp_path / "config.yaml"
    cfg_file.write_text(
        "prices:\n"
        "  claude-sonnet-*: {input: 1, output: 2}\n"
        "  local-*: {input: 0, output: 0, cache_read: 0}\n"
        "  broken: {input: cheap, output: 1}\n"
        "  partial: {input: 1}\n"
        "  odd: {input: 1, output: 1, per: token}\n"
    )
    cfg = load_config(cfg_file)
    assert price_for("claude-sonnet-5-5", cfg.prices) == Price(1, 2)  # the user's entry wins
    assert price_for("local-llama", cfg.prices) == Price(0, 0, 0)
    assert sorted(cfg.prices) == ["claude-sonnet-*", "local-*"]
    assert [p.split(": ", 1)[1].split(" ", 1)[0] for p in cfg.problems] == [
        "prices.broken",
        "prices.partial",
        "prices.odd",
    ]
    assert f"{cfg_file}:4:" in cfg.problems[0]
    usage = {"input_tokens": 1000, "output_tokens": 100, "cache_read_tokens": 2000, "cache_write_tokens": True}
    assert Price(3, 15, 0.3, 3.75).cost(usage) == pytest.approx((3000 + 1500 + 600) / 1e6)


def test_cache_tokens_are_summed_and_missing_ones_are_zero() -> None:
    """Usage dicts from before and after cache figures were recorded (cache_read/write_tokens) mix in one report."""
    r = report(("old", True, None), ("new", True, None))
    r.cells[0].usage = {"input_tokens": 10, "output_tokens": 2}
    r.cells[1].usage = {"input_tokens": 5, "output_tokens": 1, "cache_read_tokens": 1000, "cache_write_tokens": 7}
    price = Price(3, 15, 0.3, 3.75)
    for cell in r.cells:
        cell.cost_usd, cell.saved_usd = price.cost(cell.usage), price.saving(cell.usage)
    (s,) = summarise(r.cells, r.targets)
    assert s.tokens == {"input": 15, "output": 3, "cache_read": 1000, "cache_write": 7}
    assert s.saved_usd == pytest.approx(1000 * (3 - 0.3) / 1e6)
    assert s.cost_usd == pytest.approx((15 * 3 + 3 * 15 + 1000 * 0.3 + 7 * 3.75) / 1e6, abs=1e-6)  # to the micro-dollar
