"""Running an eval: every golden case of the modules against every target, at most `jobs` model calls at once.

Each target's provider sits behind its provider's gate (run/concurrency.py), so
a 429 from one run holds back every run against that provider; each case is
judged by the golden rule (golden_runner.compare), and a `$judge` golden's
answer then by the rubric judge (run/judge.py) on the judge's target. The judge's
calls hold slots of their own, as many as the targets' (EVAL-6): a case's judging
overlaps the next cases' calls instead of taking their turn, so judges add about
one round of calls, not double the eval. Cells are reported as they finish
(`on_cell`, in completion order) and come back in a stable order: module, case,
target; with `repeat` each case runs that many times and its samples fold into
one cell (samples.py). With a history, every run is recorded (the judge's runs
too, as runs of `cogtui-judge` with their own cost), then the eval itself (its
report keeps each cell's run id); a history that fails is a note in the result,
never a lost eval. A history that could not be opened as the eval started
(`open_history`) is opened again when it ends, and if it still cannot be, the
runs are kept in its outbox, as `cogn run` keeps a run (HIST-8).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from cogtui.core.eval.cache import CachingProvider, deterministic, module_digest
from cogtui.core.eval.model import MISMATCH, Cell, CellJudge, EvalReport, Target
from cogtui.core.eval.samples import fold, grouped, repeated
from cogtui.core.module.model import GoldenTest, Module
from cogtui.core.records import field, record
from cogtui.core.run.concurrency import DEFAULT_JOBS, CallSlots, GateSet, bounded
from cogtui.core.run.golden_runner import CaseResult, run_case
from cogtui.core.run.judge import MISSING, JudgeSetup, judge_module
from cogtui.core.run.providers.base import Provider
from cogtui.core.run.runner import RunOptions

if TYPE_CHECKING:  # no store without a history (--no-history); records, prices, stats once the first call is out
    from cogtui.core.history.location import HistoryLocation
    from cogtui.core.history.records import RunRecord
    from cogtui.core.history.store import History
    from cogtui.core.settings.prices import Price

UNREADABLE = "unreadable-golden"  # the case's input or expected file is missing or does not parse (EVAL-2)


@record(frozen=False)
class EvalSettings:
    """How an eval runs: concurrency, response cache, prices and each run's options."""

    jobs: int = DEFAULT_JOBS
    cache: str = "off"  # "off" (every answer asked of the model), "deterministic" (--cache) or "any" (--cache=any)
    prices: dict[str, Price] = field(default_factory=dict)  # the user's entries (config.yaml `prices`)
    options: Callable[[Provider], RunOptions] = RunOptions  # a run's options for a provider
    judge: Provider | None = None  # the rubric judge's target (run/judge.py); None: `$judge` cases say what to set
    judge_missing: str = MISSING  # what a `$judge` case says when there is no judge target
    repeat: int = 1  # samples of each case per target (`--repeat N`)
    # The history that could not be opened as the eval started (open_history): the runs go to it as the eval
    # ends, or to its outbox. None: no history (`--no-history`), or the one given to run_eval.
    keep_runs_for: HistoryLocation | None = None


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
    sample: int = 0  # which of `repeat` runs of the case this is


@record(frozen=False)
class _Done:
    """A finished job: its cell, the case's result, and new answers for the response cache."""

    job: _Job
    cell: Cell
    case: CaseResult
    fresh: list[tuple[str, str]]  # (request key, raw answer) for the response cache
    judge_fresh: list[tuple[str, str]] = field(default_factory=list)  # the judge's, stored with the judge's run


def cell_of(module: Module, target: Target, case: CaseResult) -> Cell:
    envelope = case.result.envelope if case.result else None
    code: str | None = None
    judgement = case.judgement
    if not case.passed:
        if case.result is None:
            code = UNREADABLE
        elif case.contract_ok and judgement is not None and judgement.code is not None:
            code = judgement.code  # the contract holds: the rubric failed it (run/judge.py)
        elif envelope is not None and envelope.get("ok") is not True:
            err = envelope.get("error")
            found = err.get("code") if isinstance(err, dict) else None
            code = found if isinstance(found, str) and found else MISMATCH
        else:
            code = MISMATCH
    judge = None
    if judgement is not None:
        scores = [judgement.score] if judgement.score is not None else []
        judge = CellJudge(
            judgement.status,
            judgement.pass_score,
            judgement.score,
            judgement.verdict,
            judgement.rationale,
            list(judgement.evidence),
            judgement.code,
            judgement.reason,
            scores,
            usage=dict(judgement.result.usage or {}) if judgement.result else {},
        )
    return Cell(
        module.name,
        case.name,
        target.label,
        case.passed,
        code,
        list(case.reasons),
        case.result.total_ms if case.result else None,
        dict(case.result.usage or {}) if case.result else {},
        judge=judge,
        samples_passed=int(case.passed),
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
    judge_slots = CallSlots(settings.jobs)  # the judge's calls: beside the targets', never in their turn (EVAL-6)
    judge = gates.wrap(settings.judge) if settings.judge is not None else None
    use_cache: dict[str, bool] = {}
    for t, _ in targets:
        use_cache[t.label] = _cached(settings.cache, t.provider, notes, t.label)
    judge_cached = settings.judge is not None and _cached(settings.cache, settings.judge.name, notes, "the judge")
    if settings.cache != "off" and history is None:
        notes.append("response cache not used: it lives in the run history, which is off (--no-history)")
    hashes = {m.name: module_digest(m) for m in modules}
    repeat = max(1, settings.repeat)
    jobs = [
        _Job(m, test, t, gated[t.label], hashes[m.name], k % repeat)
        for k, (m, test, t) in enumerate(
            repeated([(m, test, t) for m in modules for test in m.tests for t, _ in targets], repeat)
        )
    ]
    caching_on = settings.cache != "off" and history is not None

    async def work(job: _Job) -> _Done:
        started = None if on_start is None else partial(on_start, job.module.name, job.test.name, job.target.label)
        provider: Provider = slots.wrap(job.provider, started)
        caching = judging = None
        if caching_on:
            assert history is not None
            lookup = _Lookup(history, notes) if use_cache[job.target.label] else None
            provider = caching = CachingProvider(provider, lookup, job.module_hash)
        setup = JudgeSetup(None, settings.judge_missing, settings.options)
        if judge is not None:
            setup.provider = judge_slots.wrap(judge)
            if caching_on:
                assert history is not None
                lookup = _Lookup(history, notes) if judge_cached else None
                setup.provider = judging = CachingProvider(setup.provider, lookup, module_digest(judge_module()))
        case = await run_case(job.module, job.test, settings.options(provider), setup)
        from cogtui.core.settings.prices import price_for  # once the call is out: the first request waits for less

        if caching is not None and caching.served_from_cache:
            _mark_cached(case, caching)
        cell = cell_of(job.module, job.target, case)
        cell.cached = caching is not None and caching.served_from_cache
        price = price_for(job.provider.model, settings.prices)
        cell.cost_usd = None if price is None else round(price.cost(cell.usage), 8)
        cell.saved_usd = None if price is None else round(price.saving(cell.usage), 8)
        if cell.judge is not None and judge is not None and case.judgement is not None and case.judgement.result:
            cell.judge.cached = judging is not None and judging.served_from_cache
            judge_price = price_for(judge.model, settings.prices)
            cell.judge.cost_usd = None if judge_price is None else round(judge_price.cost(cell.judge.usage), 8)
        return _Done(
            job, cell, case, caching.fresh if caching is not None else [], judging.fresh if judging is not None else []
        )

    samples: dict[tuple[str, str, str], list[_Done]] = {}

    def done(_index: int, result: _Done) -> None:
        mine = samples.setdefault(result.cell.key, [])
        mine.append(result)
        if on_cell is not None and len(mine) == repeat:
            on_cell(fold([d.cell for d in sorted(mine, key=lambda d: d.job.sample)]))

    results = await bounded(jobs, slots.runs, work, done)
    late = _open_late(settings.keep_runs_for, results, notes) if history is None else None
    writer = history or late
    recorded = writer is not None and _record_runs(writer, results, notes)
    cells = [fold([d.cell for d in samples]) for samples in grouped(results, repeat)]
    labels = [t.label for t, _ in targets]
    report = EvalReport([m.name for m in modules], labels, cells, started, settings.jobs, repeat=repeat)
    if settings.judge is not None:
        report.judge = Target(settings.judge.name, settings.judge.model).label
    from cogtui.core.eval.stats import summarise

    report.summaries = summarise(cells, labels)
    if writer is not None and recorded:
        _record_eval(writer, modules, report, notes)
    if late is not None:
        late.close()
    return EvalOutcome(report, notes)


def open_history() -> tuple[History | None, HistoryLocation | None, str | None]:
    """The configured history for an eval: (it, None, None) when it opens; else (None, its location, why), to
    give as `EvalSettings.keep_runs_for` (the runs are not lost). HistoryConfigError when the location itself
    cannot be used (a URL cogtui does not read, no PostgreSQL support): nothing can be kept for it."""
    from cogtui.core.history.location import default_location
    from cogtui.core.history.store import History, HistoryConfigError, HistoryError

    location = default_location()
    location.check_driver()
    try:
        return History(location), None, None
    except HistoryConfigError:
        raise
    except HistoryError as exc:
        return None, location, str(exc)


def _open_late(location: HistoryLocation | None, results: list[_Done], notes: list[str]) -> History | None:
    """The history that could not be opened as the eval started, opened now; if it still cannot be, the runs
    are kept in its outbox (and None)."""
    if location is None:
        return None
    from cogtui.core.history.store import History, HistoryError

    try:
        return History(location)
    except HistoryError as exc:
        runs = [record for _, record, _ in _records(results)]
        notes.append(f"the eval was not recorded: {exc}; {_keep(location, runs, str(exc))}")
        return None


def _records(results: list[_Done]) -> list[tuple[_Done, RunRecord, bool]]:
    """Each run's record (each judge's too, as a run of cogtui-judge): (the job, its record, the judge's run)."""
    from cogtui.core.history.run_record import to_record

    out: list[tuple[_Done, RunRecord, bool]] = []
    for done in results:
        if done.case.result is not None:
            out.append((done, to_record(done.job.module, done.job.test.input, None, done.case.result), False))
        judgement = done.case.judgement
        if judgement is not None and judgement.result is not None:
            out.append((done, to_record(judge_module(), judgement.input, None, judgement.result), True))
    return out


def _cached(mode: str, provider: str, notes: list[str], label: str) -> bool:
    """Whether a target's answers are reused from the response cache (EVAL-4); a note when `--cache` leaves it out."""
    use = mode == "any" or (mode == "deterministic" and deterministic(provider))
    if mode == "deterministic" and not use:
        notes.append(
            f"response cache not used for {label}: its answers are not deterministic (cogtui sends no "
            "temperature, so the provider's default applies); --cache=any reuses them anyway"
        )
    return use


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


def _record_runs(history: History, results: list[_Done], notes: list[str]) -> bool:
    """Record every run (each judge's too, as a run of cogtui-judge) and keep the new cache answers with them;
    False when the history could not take the runs (they wait in its outbox) and the eval is not recorded."""
    from cogtui.core.history.records import HistoryError

    recorded = _records(results)
    try:
        ids = history.record_many([record for _, record, _ in recorded])
    except HistoryError as exc:  # the runs are kept for the history (outbox.py); the eval's report is not
        runs = [r for _, r, _ in recorded]
        notes.append(f"the eval was not recorded: {exc}; {_keep(history.location, runs, str(exc))}")
        return False
    try:
        answers: list[tuple[int, str, str]] = []
        for (done, _, of_judge), run_id in zip(recorded, ids, strict=True):
            if of_judge:
                assert done.cell.judge is not None
                done.cell.judge.run_id = run_id
                answers.extend((run_id, key, raw) for key, raw in done.judge_fresh)
            else:
                done.cell.run_id = run_id
                answers.extend((run_id, key, raw) for key, raw in done.fresh)
        history.store_responses(answers, time.time())
    except HistoryError as exc:
        notes.append(f"the eval was not recorded: {exc}")
        return False
    return True


def _record_eval(history: History, modules: list[Module], report: EvalReport, notes: list[str]) -> None:
    """The eval itself (its report, with each cell's run id) and each module's pass rate (the sparkline)."""
    from cogtui.core.history.records import HistoryError

    try:
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


def _keep(location: HistoryLocation, runs: list[RunRecord], why: str) -> str:
    """Keep the eval's runs in the history's outbox; says where (or that they could not be kept)."""
    from cogtui.core.history.outbox import Outbox

    outbox = Outbox(location)
    try:
        for run in runs:
            outbox.keep(run, why)
    except OSError as exc:
        return f"nor could its runs be kept in {outbox.path} ({exc.strerror or exc})"
    return (
        f"its {len(runs)} run{'s' * (len(runs) != 1)} are kept in {outbox.path}, recorded when the history can "
        "take them (cogn history flush)"
    )


__all__ = ["EvalOutcome", "EvalSettings", "cell_of", "open_history", "run_eval"]
