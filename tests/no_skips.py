"""No test is ever skipped: a pytest plugin (tests/conftest.py loads it; `-p no_skips` in a pytest of its own).

A skipped test hides what it would have found. The session fails if anything was skipped, naming each: a test
skipped at setup or in its body, a whole module skipped while it was collected (a module-level
`pytest.importorskip` or `pytest.skip(allow_module_level=True)`), an xfail, and an XPASS (an xfail test that
passed: the mark hides whatever it was put there for). A test that cannot run here must fail and say what it
needs. Under xdist the controller hears every worker's reports, so it decides.
"""

from __future__ import annotations

from typing import Any

import pytest

SKIPPED: list[str] = []


def hidden(report: pytest.CollectReport | pytest.TestReport) -> str | None:
    """How a report hides a test, or None."""
    if hasattr(report, "wasxfail"):  # XFAIL (reported as skipped) and XPASS (reported as passed)
        return "xpassed" if report.passed else "xfailed"
    if report.skipped:
        return "skipped while collected" if isinstance(report, pytest.CollectReport) else "skipped"
    return None


def note(report: pytest.CollectReport | pytest.TestReport) -> None:
    how = hidden(report)
    if how is not None:
        SKIPPED.append(f"{how}: {report.nodeid}")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    note(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    note(report)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if SKIPPED and exitstatus == 0 and not getattr(session.config, "workerinput", None):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SKIPPED:
        terminalreporter.section("skipped tests fail the session", sep="=", red=True)
        for line in SKIPPED:
            terminalreporter.write_line(line)
