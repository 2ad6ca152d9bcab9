"""An eval as JUnit XML for CI: a testsuite per target, a testcase per module/case, a failure with its code.

A judged case carries the judge's score, verdict and pass_score as properties and its rationale in
`system-out`; with `--repeat`, the samples and how many passed.

Text from modules and models goes through the XML library's escaping, and
characters XML 1.0 cannot carry (most control characters, lone surrogates)
are replaced, so the file always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from cogtui.core.eval.baseline import REGRESSION, SCORE_DROP, Comparison
from cogtui.core.eval.model import Cell, EvalReport

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def junit_xml(report: EvalReport, comparison: Comparison | None = None) -> str:
    suites = ET.Element("testsuites", name="cogn eval", tests=str(len(report.cells)), failures=str(report.failed))
    for summary in report.summaries:
        cells = [c for c in report.cells if c.target == summary.target]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=_clean(summary.target),
            tests=str(len(cells)),
            failures=str(sum(1 for c in cells if not c.passed)),
            time=f"{sum((c.latency_ms or 0) for c in cells) / 1000:.3f}",
        )
        for cell in cells:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_clean(f"{cell.module}.{summary.target}"),
                name=_clean(cell.case),
                time=f"{(cell.latency_ms or 0) / 1000:.3f}",
            )
            status = comparison.status_of(*cell.key) if comparison else None
            if not cell.passed:
                failure = ET.SubElement(
                    case,
                    "failure",
                    type=_clean(cell.code or "fail"),
                    message=_clean(f"{cell.code}: {cell.reasons[0] if cell.reasons else 'failed'}"),
                )
                lines = [*cell.reasons, *(["regression: passed in the baseline"] if status == REGRESSION else [])]
                failure.text = _clean("\n".join(lines))
            elif status == SCORE_DROP and comparison is not None:
                change = next(c for c in comparison.changes if (c.module, c.case, c.target) == cell.key)
                ET.SubElement(
                    case,
                    "failure",
                    type=SCORE_DROP,
                    message=_clean(
                        f"the judge's score fell from {change.score_before} to {change.score_after} "
                        f"(more than {comparison.max_score_drop})"
                    ),
                )
            properties = _properties(cell)
            if properties:
                props = ET.SubElement(case, "properties")
                for name, value in properties:
                    ET.SubElement(props, "property", name=name, value=_clean(value))
            if cell.judge is not None and cell.judge.rationale:
                ET.SubElement(case, "system-out").text = _clean(f"judge rationale: {cell.judge.rationale}")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _properties(cell: Cell) -> list[tuple[str, str]]:
    out = []
    if cell.run_id is not None:
        out.append(("run_id", str(cell.run_id)))
    if cell.cached:
        out.append(("cached", "true"))
    if cell.samples > 1:
        out += [("samples", str(cell.samples)), ("samples_passed", str(cell.samples_passed))]
    judge = cell.judge
    if judge is not None:
        out.append(("judge.status", judge.status))
        if judge.score is not None:
            out += [("judge.score", f"{judge.score:g}"), ("judge.pass_score", f"{judge.pass_score:g}")]
        if judge.spread is not None and len(judge.scores) > 1:
            out.append(("judge.spread", f"{judge.spread:g}"))
        if judge.verdict is not None:
            out.append(("judge.verdict", judge.verdict))
    return out
