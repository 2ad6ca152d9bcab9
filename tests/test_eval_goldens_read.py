"""Why an eval reads every golden before its first model call (BENCHMARKS.md, "Session of 2026-11-26, third"):
a golden file that does not parse is a load error of its module, and a module with one runs no case at all
(contract_status.run_blockers), so no call may go out before every golden has been parsed. A golden file that
is missing only fails its own case (`unreadable-golden`, D81)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from evalkit import case_of, eval_module, responder
from llmserver import ScriptedLLMServer
from rtkit import FAST_RETRY, provider, set_keys

from cogtui.core.eval.engine import UNREADABLE, EvalSettings, run_eval
from cogtui.core.eval.model import Target
from cogtui.core.module.loader import load_module
from cogtui.core.run.runner import RunOptions


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def options(prov: Any) -> RunOptions:
    return RunOptions(prov, retry=FAST_RETRY, stream_timeout=10.0)


async def evaluate(srv: ScriptedLLMServer, folder: Path) -> Any:
    p = provider("openai", srv)
    try:
        return await run_eval([load_module(folder)], [(Target(p.name, p.model), p)], EvalSettings(options=options))
    finally:
        await p.aclose()


async def test_a_golden_that_does_not_parse_keeps_every_case_of_its_module_from_calling(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    folder = eval_module(tmp_path, n=4)
    (folder / "tests" / "case-003.input.json").write_text("{not json", encoding="utf-8")
    llm_server.respond_with(responder())
    outcome = await evaluate(llm_server, folder)
    assert llm_server.request_count == 0
    codes = {c.case: c.code for c in outcome.report.cells}
    assert codes == {"case-000": "E4000", "case-001": "E4000", "case-002": "E4000", "case-003": UNREADABLE}
    assert "case-003.input.json" in outcome.report.cells[0].reasons[0]  # the blocked runs say which file


async def test_a_missing_golden_file_fails_only_its_own_case(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    folder = eval_module(tmp_path, n=4)
    (folder / "tests" / "case-001.expected.json").unlink()
    llm_server.respond_with(responder())
    outcome = await evaluate(llm_server, folder)
    assert sorted(case_of(r) for r in llm_server.requests) == [0, 2, 3]
    assert {c.case: c.code for c in outcome.report.cells if not c.passed} == {"case-001": UNREADABLE}
