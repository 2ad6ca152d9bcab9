"""An eval as JUnit XML for CI: a testsuite per target, a testcase per module/case, a failure with its code.

Text from modules and models goes through the XML library's escaping, and
characters XML 1.0 cannot carry (most control characters, lone surrogates)
are replaced, so the file always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from cogtui.core.eval.baseline import REGRESSION, Comparison
from cogtui.core.eval.model import EvalReport

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
            if cell.run_id is not None or cell.cached:
                props = ET.SubElement(case, "properties")
                if cell.run_id is not None:
                    ET.SubElement(props, "property", name="run_id", value=str(cell.run_id))
                if cell.cached:
                    ET.SubElement(props, "property", name="cached", value="true")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
