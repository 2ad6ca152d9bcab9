"""The eval engine (cogtui/core/eval/) against the scripted server through the real SDKs: one model call
per case and target, concurrency bounded by jobs, the per-provider 429 gate, the matrix's figures."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from evalkit import case_name, case_of, eval_module, responder
from llmserver import ScriptedLLMServer, error
from rtkit import FAST_RETRY, provider, set_keys

from cogtui.core.eval.engine import UNREADABLE, EvalSettings, run_eval
from cogtui.core.eval.model import MISMATCH, EvalReport, Target
from cogtui.core.module.loader import load_module
from cogtui.core.run.runner import RunOptions
from cogtui.core.settings.prices import Price


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def options(prov: Any) -> RunOptions:
    return RunOptions(prov, retry=FAST_RETRY, stream_timeout=10.0)


def targets(srv: ScriptedLLMServer, *protos: str) -> list[tuple[Target, Any]]:
    out = []
    for proto in protos:
        p = provider(proto, srv)
        out.append((Target(p.name, p.model), p))
    return out


async def evaluate(srv: ScriptedLLMServer, module: Any, protos: tuple[str, ...], **kw: Any) -> Any:
    pairs = targets(srv, *protos)
    try:
        return await run_eval([module], pairs, EvalSettings(options=options, **kw))
    finally:
        for _, p in pairs:
            await p.aclose()


async def test_one_call_per_case_and_target_and_at_most_jobs_at_once(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    module = load_module(eval_module(tmp_path, n=8))
    llm_server.respond_with(responder(delay=0.2))
    outcome = await evaluate(llm_server, module, ("anthropic", "openai"), jobs=3)
    assert llm_server.request_count == 16  # 8 cases x 2 targets, no retries
    assert sorted(case_of(r) for r in llm_server.requests) == sorted(list(range(8)) * 2)
    assert 2 <= llm_server.max_in_flight <= 3
    report: EvalReport = outcome.report
    # A stable order: module, case, target — whatever order they finished in.
    assert [(c.case, c.target) for c in report.cells] == [
        (case_name(k), t) for k in range(8) for t in ("anthropic/claude-test-model", "openai/gpt-test-model")
    ]
    assert all(c.passed for c in report.cells)


async def test_jobs_1_is_one_call_at_a_time(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(eval_module(tmp_path, n=4))
    llm_server.respond_with(responder(delay=0.05))
    await evaluate(llm_server, module, ("openai",), jobs=1)
    assert llm_server.request_count == 4 and llm_server.max_in_flight == 1


async def test_matrix_codes_and_figures(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(eval_module(tmp_path, n=5))
    llm_server.respond_with(responder(wrong=frozenset({1}), prose=frozenset({3})))
    prices = {"claude-test-*": Price(3, 15), "gpt-test-model": Price(1, 2)}
    outcome = await evaluate(llm_server, module, ("anthropic", "openai"), jobs=4, prices=prices)
    report = outcome.report
    by_target = {s.target: s for s in report.summaries}
    claude = by_target["anthropic/claude-test-model"]
    assert (claude.cases, claude.passed) == (5, 3)
    wrong = report.cell("ticket", case_name(1), "anthropic/claude-test-model")
    prose = report.cell("ticket", case_name(3), "openai/gpt-test-model")
    assert wrong is not None and wrong.code == MISMATCH and any("label" in r for r in wrong.reasons)
    assert prose is not None and not prose.passed and prose.code not in (None, MISMATCH)
    assert claude.violations == {MISMATCH: 1, prose.code: 1}
    # Usage as the server reported it (100 in, 20 out per call) and the price table's estimate.
    assert claude.tokens["input"] == 500 and claude.tokens["output"] == 100
    assert claude.cost_usd == pytest.approx(5 * (100 * 3 + 20 * 15) / 1e6)
    assert by_target["openai/gpt-test-model"].cost_usd == pytest.approx(5 * (100 * 1 + 20 * 2) / 1e6)
    assert claude.latency_p50_ms is not None and claude.latency_p95_ms is not None
    assert claude.latency_p50_ms <= claude.latency_p95_ms
    # The envelope and the diff against the golden stay with the cell (the TUI shows them).
    assert wrong.envelope is not None and wrong.envelope["data"]["label"] == "feature"
    assert '"feature"' in wrong.diff and '"bug"' in wrong.diff


async def test_unknown_price_is_no_estimate(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(eval_module(tmp_path, n=1))
    llm_server.respond_with(responder())
    outcome = await evaluate(llm_server, module, ("openai",))
    assert outcome.report.summaries[0].cost_usd is None


async def test_a_429_holds_back_every_run_against_that_provider(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    """Two at once: the first call is told 429 (retry after 0.6 s), the other answers after 0.2 s. Its slot's
    next case must then wait at the provider's gate: within 0.55 s of the 429 the server sees no request but
    the one that was already on its way (the two first ones may arrive in either order)."""
    module = load_module(eval_module(tmp_path, n=6))
    llm_server.enqueue(error(429, retry_after=0.6))
    llm_server.respond_with(responder(delay=0.2))
    outcome = await evaluate(llm_server, module, ("anthropic",), jobs=2)
    assert all(c.passed for c in outcome.report.cells)
    requests = llm_server.requests
    assert len(requests) == 7  # six cases, one of them retried once
    limited = requests[0]
    within = [r for r in requests[1:] if r.received_at - limited.received_at < 0.55]
    assert len(within) <= 1, [round(r.received_at - limited.received_at, 3) for r in requests]


async def test_no_golden_tests_is_an_empty_report(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    module = load_module(eval_module(tmp_path, n=0))
    outcome = await evaluate(llm_server, module, ("openai",))
    assert outcome.report.cells == [] and llm_server.request_count == 0
    assert outcome.report.summaries[0].cases == 0


# A golden file that does not parse fails its own case only (GOLD-4): the module's other cases are called and judged
# (before GOLD-4 it was a load error of the module, and every case was E4000 with no call made).


async def test_a_golden_that_does_not_parse_fails_only_its_own_case(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    folder = eval_module(tmp_path, n=4)
    (folder / "tests" / "case-003.input.json").write_text("{not json", encoding="utf-8")
    llm_server.respond_with(responder())
    outcome = await evaluate(llm_server, load_module(folder), ("openai",))
    assert sorted(case_of(r) for r in llm_server.requests) == [0, 1, 2]
    codes = {c.case: c.code for c in outcome.report.cells}
    assert codes == {"case-000": None, "case-001": None, "case-002": None, "case-003": UNREADABLE}
    [reason] = outcome.report.cells[3].reasons  # located as `cogn validate` locates it
    assert reason.startswith(f"P002 {folder / 'tests' / 'case-003.input.json'}:1:2: JSON syntax error"), reason


async def test_a_missing_golden_file_fails_only_its_own_case(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    folder = eval_module(tmp_path, n=4)
    (folder / "tests" / "case-001.expected.json").unlink()
    llm_server.respond_with(responder())
    outcome = await evaluate(llm_server, load_module(folder), ("openai",))
    assert sorted(case_of(r) for r in llm_server.requests) == [0, 2, 3]
    assert {c.case: c.code for c in outcome.report.cells if not c.passed} == {"case-001": UNREADABLE}
