"""Running an eval: every golden case of the modules against every target, at most `jobs` model calls at once.

Each target's provider sits behind its provider's gate (run/concurrency.py), so
a 429 from one run holds back every run against that provider; each case is
judged by the golden rule (golden_runner.compare). Cells are reported as they
finish (`on_cell`, in completion order) and come back in a stable order:
module, case, target. With a history, every run is recorded, then the eval
itself (its report keeps each cell's run id); a history that fails is a
note in the result, never a lost eval.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from cogtui.core.eval.cache import CachingProvider, deterministic, module_digest
from cogtui.core.eval.model import MISMATCH, Cell, EvalReport, Target
from cogtui.core.module.model import GoldenTest, Module
from cogtui.core.records import field, record
from cogtui.core.run.concurrency import DEFAULT_JOBS, CallSlots, GateSet, bounded
from cogtui.core.run.golden_runner import CaseResult, run_case
from cogtui.core.run.providers.base import Provider
from cogtui.core.run.runner import RunOptions

if TYPE_CHECKING:  # no store without a history (--no-history); records, prices, stats once the first call is out
    from cogtui.core.history.records import RunRecord
    from cogtui.core.history.store import History
    from cogtui.core.settings.prices import Price

UNREADABLE = "unreadable-golden"  # the case's input or expected file is missing or does not parse (D81)


@record(frozen=False)
class EvalSettings:
    """How an eval runs: concurrency, response cache, prices and each run's options."""

    jobs: int = DEFAULT_JOBS
    cache: str = "off"  # "off", "deterministic" (--cache) or "any" (--cache=any): D83
    prices: dict[str, Price] = field(default_factory=dict)  # the user's entries (config.yaml `prices`)
    options: Callable[[Provider], RunOptions] = RunOptions  # a run's options for a provider


@record(frozen=False)
class EvalOutcome:
    """An eval's report and the notes the user should read."""

    report: EvalReport
    notes: list[str] = field(default_factory=list)  # what the user should know: history problems, cache skips


@record(frozen=False)
class _Job:
    """One case to run against one target."""

    module: Module
    test: GoldenTest
    target: Target
    provider: Provider
    module_hash: str


@record(frozen=False)
class _Done:
    """A finished job: its cell, the case's result, and new answers for the response cache."""

    job: _Job
    cell: Cell
    case: CaseResult
    fresh: list[tuple[str, str]]  # (request key, raw answer) for the response cache


def cell_of(module: Module, target: Target, case: CaseResult) -> Cell:
    envelope = case.result.envelope if case.result else None
    code: str | None = None
    if not case.passed:
        if case.result is None:
            code = UNREADABLE
        elif envelope is not None and envelope.get("ok") is not True:
            err = envelope.get("error")
            found = err.get("code") if isinstance(err, dict) else None
            code = found if isinstance(found, str) and found else MISMATCH
        else:
            code = MISMATCH
    return Cell(
        module.name,
        case.name,
        target.label,
        case.passed,
        code,
        list(case.reasons),
        case.result.total_ms if case.result else None,
        dict(case.result.usage or {}) if case.result else {},
        envelope=envelope,
        expected=case.expected,
        diff=case.diff,
    )


def _mark_cached(case: CaseResult, provider: CachingProvider) -> None:
    """Say in the run's record that its answer came from the cache: meta.warnings and the usage dict."""
    if case.result is None:
        return
    source = provider.hits[-1]
    meta = case.result.envelope.setdefault("meta", {})
    warnings = meta.get("warnings") if isinstance(meta.get("warnings"), list) else []
    meta["warnings"] = [*warnings, f"response cache: the model's answer of run {source} was reused (no model call)"]
    case.result.usage = {**(case.result.usage or {}), "cached_response_of": source}


async def run_eval(
    modules: list[Module],
    targets: list[tuple[Target, Provider]],
    settings: EvalSettings | None = None,
    history: History | None = None,
    on_cell: Callable[[Cell], None] | None = None,
    on_start: Callable[[str, str, str], None] | None = None,
) -> EvalOutcome:
    """Run the eval; the caller owns (and closes) the providers and the history.

    `on_start(module, case, target)` is called as a cell's model call goes out (it holds one of the `jobs` call
    slots; an answer from the response cache takes none), `on_cell(cell)` as the cell finishes."""
    settings = settings or EvalSettings()
    started = time.time()
    notes: list[str] = []
    gates = GateSet(settings.options(targets[0][1]).retry if targets else None)
    gated = {t.label: gates.wrap(p) for t, p in targets}
    slots = CallSlots(settings.jobs)
    use_cache: dict[str, bool] = {}
    for t, _ in targets:
        use_cache[t.label] = settings.cache == "any" or (
            settings.cache == "deterministic" and deterministic(t.provider)
        )
        if settings.cache == "deterministic" and not use_cache[t.label]:
            notes.append(
                f"response cache not used for {t.label}: its answers are not deterministic (cogtui sends no "
                "temperature, so the provider's default applies); --cache=any reuses them anyway"
            )
    if settings.cache != "off" and history is None:
        notes.append("response cache not used: it lives in the run history, which is off (--no-history)")
    hashes = {m.name: module_digest(m) for m in modules}
    jobs = [_Job(m, test, t, gated[t.label], hashes[m.name]) for m in modules for test in m.tests for t, _ in targets]

    async def work(job: _Job) -> _Done:
        started = None if on_start is None else partial(on_start, job.module.name, job.test.name, job.target.label)
        provider: Provider = slots.wrap(job.provider, started)
        caching = None
        if settings.cache != "off" and history is not None:
            lookup = _Lookup(history, notes) if use_cache[job.target.label] else None
            provider = caching = CachingProvider(provider, lookup, job.module_hash)
        case = await run_case(job.module, job.test, settings.options(provider))
        from cogtui.core.settings.prices import price_for  # once the call is out: the first request waits for less

        if caching is not None and caching.served_from_cache:
            _mark_cached(case, caching)
        cell = cell_of(job.module, job.target, case)
        cell.cached = caching is not None and caching.served_from_cache
        price = price_for(job.provider.model, settings.prices)
        cell.cost_usd = None if price is None else round(price.cost(cell.usage), 8)
        cell.saved_usd = None if price is None else round(price.saving(cell.usage), 8)
        return _Done(job, cell, case, caching.fresh if caching is not None else [])

    def done(_index: int, result: _Done) -> None:
        if on_cell is not None:
            on_cell(result.cell)

    results = await bounded(jobs, slots.runs, work, done)
    cells = [r.cell for r in results]
    labels = [t.label for t, _ in targets]
    report = EvalReport([m.name for m in modules], labels, cells, started, settings.jobs)
    from cogtui.core.eval.stats import summarise

    report.summaries = summarise(cells, labels)
    if history is not None:
        _record(history, modules, results, report, notes)
    return EvalOutcome(report, notes)


class _Lookup:
    """The history as a response store: a failing lookup is a miss (and a note), never a failed run."""

    def __init__(self, history: History, notes: list[str]) -> None:
        self.history = history
        self.notes = notes

    def cached_response(self, key: str) -> tuple[int, str] | None:
        from cogtui.core.history.records import HistoryError

        try:
            return self.history.cached_response(key)
        except HistoryError as exc:
            if str(exc) not in self.notes:
                self.notes.append(str(exc))
            return None


def _record(
    history: History, modules: list[Module], results: list[_Done], report: EvalReport, notes: list[str]
) -> None:
    from cogtui.core.history.records import HistoryError
    from cogtui.core.history.run_record import to_record

    recorded: list[tuple[_Done, RunRecord]] = []
    for done in results:
        if done.case.result is not None:
            recorded.append((done, to_record(done.job.module, done.job.test.input, None, done.case.result)))
    try:
        ids = history.record_many([record for _, record in recorded])
    except HistoryError as exc:  # the runs are kept for the history (outbox.py); the eval's report is not
        notes.append(f"the eval was not recorded: {exc}; {_keep(history, [r for _, r in recorded], str(exc))}")
        return
    try:
        answers: list[tuple[int, str, str]] = []
        for (done, _), run_id in zip(recorded, ids, strict=True):
            done.cell.run_id = run_id
            answers.extend((run_id, key, raw) for key, raw in done.fresh)
        history.store_responses(answers, time.time())
        per_module = {
            m.name: (
                sum(1 for c in report.cells if c.module == m.name and c.passed),
                sum(1 for c in report.cells if c.module == m.name),
            )
            for m in modules
        }
        report.id = history.record_eval(report.to_json(), per_module, report.started_at)
    except HistoryError as exc:
        notes.append(f"the eval was not recorded: {exc}")


def _keep(history: History, runs: list[RunRecord], why: str) -> str:
    """Keep the eval's runs in the history's outbox; says where (or that they could not be kept)."""
    from cogtui.core.history.outbox import Outbox

    outbox = Outbox(history.location)
    try:
        for run in runs:
            outbox.keep(run, why)
    except OSError as exc:
        return f"nor could its runs be kept in {outbox.path} ({exc.strerror or exc})"
    return (
        f"its {len(runs)} run{'s' * (len(runs) != 1)} are kept in {outbox.path}, recorded when the history can "
        "take them (cogn history flush)"
    )


__all__ = ["EvalOutcome", "EvalSettings", "cell_of", "run_eval"]
