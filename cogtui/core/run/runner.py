"""The run pipeline (SPEC-v2.2 §4, SPEC-v2.5 §3.2 and §8, SPEC-v0.1 subagents), as one stream of chunks.

`RunSession.events()` yields RunEvents whose `chunk` is a spec chunk: meta
first, then deltas, snapshots, progress and heartbeats, then final or error.
The sync result is the envelope the final (or error) chunk carries, so both
paths share every step. Nothing here raises on bad input or a failing
provider: every failure is an envelope with its E-code.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from typing import Any

from cogtui.core.module.model import Module
from cogtui.core.rules.contract_status import run_blockers
from cogtui.core.rules.manifest_fields import unhonoured_messages
from cogtui.core.run.chunk_emitter import ChunkEmitter, ChunkShaper
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.field_stream import FieldStreamer
from cogtui.core.run.input_check import input_failure
from cogtui.core.run.manifest_policy import (
    AGENT,
    apply_failure_contract,
    blocked_run,
    capability_notes,
    invocation_refusal,
    record_in_meta,
)
from cogtui.core.run.output_fixes import CORRECTIVE_RETRY, effective_fixes
from cogtui.core.run.postprocess import postprocess
from cogtui.core.run.prompt import call_placeholders, inject_results, render_calls, system_prompt, user_prompt
from cogtui.core.run.provider_call import HEARTBEAT, Deadline, prepare, timed, token_limit_failure
from cogtui.core.run.providers.base import Finish, Message, ModelRequest, Provider, ProviderError, TextDelta, Usage
from cogtui.core.run.run_types import RunEvent, RunFailed, RunOptions, RunResult
from cogtui.core.run.structured import StructuredPlan
from cogtui.core.run.subagents import check_call_graph, child_input

__all__ = ["CORRECTIVE", "CORRECTIVE_EMPTY", "RunEvent", "RunOptions", "RunResult", "RunSession", "run_module"]

CORRECTIVE = "Your previous reply could not be parsed as JSON. Reply again with ONLY the JSON object, nothing else."
CORRECTIVE_EMPTY = "Your previous reply was empty. Reply with ONLY the JSON object, nothing else."
_Failed = RunFailed


class RunSession:
    def __init__(self, module: Module, input_value: Any, options: RunOptions) -> None:
        self.module = module
        self.input = input_value
        self.opts = options
        self.session_id = "sess_" + os.urandom(10).hex()  # 20 random hex digits (uuid would import platform)
        self.chunks = ChunkEmitter(self.session_id)
        self.started = time.perf_counter()
        self.first_chunk: float | None = None
        self.streamer = FieldStreamer()
        self.text: list[str] = []
        self.usage: Usage | None = None
        self.result: RunResult | None = None
        self.warnings: list[str] = []
        self.attempts = 0
        self.degraded = options.stream_requested and module.contract.response_mode.value == "sync"
        self.fixes = effective_fixes(options.fixes, module.contract.schema_strictness.value, options.strict)
        self.repairs: list[str] = []
        response = module.response
        # A sync-only module asked to stream sends no field chunks, yet what arrived still belongs in its
        # partial_data (STREAM-7): its fields gather in an emitter whose chunks are never sent.
        self.gathered = ChunkEmitter(self.session_id) if self.degraded else self.chunks
        self.shaper = ChunkShaper(self.gathered, module.contract.response_chunk_type.value, response.get("buffer_size"))
        self.deadline = options.shared_deadline or Deadline(options.deadline)
        self.structured: StructuredPlan | None = None  # decided once the model is about to be called

    # ------------------------------------------------------------ the pipeline

    async def events(self) -> AsyncIterator[RunEvent]:
        yield RunEvent(
            {
                "ok": True,
                "streaming": True,
                "session_id": self.session_id,
                "meta": {"confidence": None, "explain": f"Running {self.module.name}"},
            }
        )
        if self.degraded:
            self.warnings.append(
                f"{self.module.name} has response.mode: sync; streaming degraded to a single final chunk"
            )
            yield self.chunks.progress(0, "degraded", self.warnings[-1])
        try:
            envelope = None
            async for ev in self._pipeline():
                if isinstance(ev, dict):
                    envelope = ev
                else:
                    yield ev
            assert envelope is not None
        except _Failed as failed:
            envelope = failed.envelope
        except asyncio.CancelledError as cancel:
            # A server cancels with the reason (`Task.cancel(msg)`: its client went away or stopped reading).
            why = cancel.args[0] if cancel.args and isinstance(cancel.args[0], str) else "the run was cancelled"
            self.finish(self._interrupted(why), interrupted=True)
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must still end as an envelope
            # failure() masks API keys in the message and details: an exception's repr may quote one.
            envelope = failure(
                "E4000",
                f"internal error: {type(exc).__name__}: {exc}",
                partial_data=self.gathered.partial_data(),
                details={"exception": repr(exc)},
            )
        self.warnings += apply_failure_contract(envelope, self.module)
        self.finish(envelope)
        for ev in self.chunks.reconcile(envelope):
            yield ev
        yield self.chunks.terminal(envelope, self.usage.to_json() if self.usage else None)

    def _interrupted(self, why: str) -> dict[str, Any]:
        return failure(
            "E2010",
            why,
            partial_data=self.gathered.partial_data(),
            suggestion="Re-run when ready; the partial data shows what had arrived.",
        )

    def finish(self, envelope: dict[str, Any], interrupted: bool = False) -> RunResult:
        """Fill the runtime's meta fields (trace_id, model, latency_ms) and build the result."""
        total = (time.perf_counter() - self.started) * 1000
        meta = envelope.setdefault("meta", {})
        # Always the runtime's own id: a trace_id the model made up would not match the run's history record.
        meta["trace_id"] = self.session_id.removeprefix("sess_")
        meta["model"] = getattr(self.opts.provider, "model", None) or self.opts.provider.name
        meta["latency_ms"] = round(total, 1)
        record_in_meta(envelope, self.warnings, self.attempts, self.structured.record() if self.structured else None)
        self.result = RunResult(
            envelope,
            self.session_id,
            self.opts.provider.name,
            getattr(self.opts.provider, "model", None),
            round((self.first_chunk - self.started) * 1000, 1) if self.first_chunk else None,
            round(total, 1),
            self.usage.to_json() if self.usage else None,
            self.warnings,
            self.repairs,
            self.attempts,
            interrupted,
        )
        return self.result

    async def _pipeline(self) -> AsyncIterator[RunEvent | dict[str, Any]]:
        media = await self._checked_media(fetch_urls=not getattr(self.opts.provider, "offline", False))
        body, calls = render_calls(self.module.prompt, self.opts.args)
        if calls:
            async for ev in self._subagents(body, calls):
                if isinstance(ev, str):
                    body = ev
                else:
                    yield ev
        request = self._request(body, media)
        answer: dict[str, Any] | None = None
        async for step in self._answer(request):
            if isinstance(step, dict):
                answer = step
            else:
                yield step
        assert answer is not None
        outcome = postprocess(answer, self.module, self.opts.validate, self.fixes)
        self.warnings += outcome.warnings + outcome.fixes
        self.repairs += outcome.repairs
        yield outcome.envelope

    async def preview(self) -> ModelRequest:
        """The request this run would send, built by the same steps, with nothing sent to a model (`cogn prompt`,
        the run screen's `p`): URL media are not fetched, and each `@call:` stands as a placeholder naming the
        call, since its result would need the subagent to run (RUN-21). RunFailed when the run would be refused."""
        media = await self._checked_media(fetch_urls=False)
        body, calls = render_calls(self.module.prompt, self.opts.args)
        if calls:
            self._check_calls()
            body = call_placeholders(body, calls)
        return self._request(body, media)

    async def _checked_media(self, fetch_urls: bool) -> list[Any]:
        """The checks before any call (a module validate finds unrunnable, an invocation or input refused) and the
        input's media, read and checked; RunFailed with the envelope of the first refusal."""
        m = self.module
        blockers = run_blockers(m)  # unreadable files, an unknowable contract, illegal declared values (RUN-1, RUN-2)
        if blockers:
            raise _Failed(blocked_run(m, blockers))
        refused = invocation_refusal(m, self.opts.caller) or input_failure(m, self.input, self.opts.args)
        if refused is not None:
            raise _Failed(refused)
        from cogtui.core.run.media_fetch import MediaError, resolve_all

        try:
            # An offline provider (replay) never fetches a URL: it could not use the bytes, and must work offline.
            media = await resolve_all(self.input, m, roots=self.opts.media_roots, fetch_urls=fetch_urls)
        except MediaError as exc:
            raise _Failed(
                failure(
                    exc.code,
                    exc.message,
                    suggestion=exc.suggestion or None,
                    details={"field": ".".join(str(p) for p in exc.path)},
                )
            ) from None
        supported = self.opts.provider.media_categories()
        unsupported = sorted(
            {x.category or "?" for x in media if x.category not in supported and (x.fetched or x.category)}
        )
        if unsupported:
            raise _Failed(
                failure(
                    "E4011",
                    f"provider {self.opts.provider.name} cannot take {', '.join(unsupported)} input",
                    details={"provider": self.opts.provider.name, "supported": list(supported)},
                )
            )
        return media

    def _request(self, body: str, media: list[Any]) -> ModelRequest:
        """The model request: the module's system prompt, the prompt with its input, the media and the answer's
        format as the provider's capabilities allow (structured output, RUN-4 to RUN-6)."""
        m = self.module
        caps, name = _capabilities(self.opts.provider), self.opts.provider.name
        self.warnings += unhonoured_messages(m) + capability_notes(m, caps, name)
        self.structured = StructuredPlan.decide(m, caps, name, self.warnings)
        if self.structured.failure is not None:
            raise _Failed(self.structured.failure)
        note = "\n".join(f"[{i + 1}] {x.describe()}" for i, x in enumerate(media))
        return ModelRequest(
            system=system_prompt(m),
            messages=[Message("user", user_prompt(m, body, self.input, note))],
            media=media,
            max_tokens=self.opts.max_tokens,
            timeout=self.opts.stream_timeout,
            module=m,
            input=self.input,
            response_schema=self.structured.schema,
            schema_name=self.structured.schema_name,
        )

    async def _answer(self, request: ModelRequest) -> AsyncIterator[RunEvent | dict[str, Any]]:
        """The model's JSON object; one corrective call more only when the corrective_retry fix is on (ENV-10)."""
        from cogtui.core.files.json_extract import extract_json

        retry = CORRECTIVE_RETRY in self.fixes
        first_raw = None
        for attempt_kind in ("answer", "corrective") if retry else ("answer",):
            async for ev in self._call(request):
                yield ev
            raw = "".join(self.text)
            answer = extract_json(raw)
            if answer is not None and self.structured is not None:
                answer = self.structured.clean(answer)
            if answer is not None:
                if first_raw is not None:
                    self.warnings.append(f"{CORRECTIVE_RETRY}: the first answer was not JSON; a second model call")
                yield answer
                return
            if attempt_kind == "answer" and retry:
                first_raw = raw
                if raw.strip():
                    request.messages += [Message("assistant", raw), Message("user", CORRECTIVE)]
                else:
                    # Anthropic rejects an empty assistant turn, and strict chat templates want turns to
                    # alternate: the nudge joins the user's message instead.
                    first = request.messages[0]
                    request.messages = [Message("user", f"{first.text}\n\n{CORRECTIVE_EMPTY}"), *request.messages[1:]]
                for ev in self.chunks.reset():
                    yield ev
                if self.degraded:
                    self.gathered.reset()
                self.shaper.reset()
                self.text, self.streamer = [], FieldStreamer()
                yield self.chunks.progress(50, "retry", "the answer was not JSON; asking once more")
        details: dict[str, Any] = {"raw_output": raw[:20000]}
        if first_raw is not None:
            details["first_attempt"] = first_raw[:20000]
        raise _Failed(
            failure(
                "PARSE_ERROR",
                "the model's answer is not JSON" + (", even after one corrective retry" if retry else ""),
                details=details,
                suggestion=None if retry else "Re-run, or allow one corrective call with --fix corrective_retry.",
            )
        )

    def _check_calls(self) -> None:
        """The static call graph (cycles, depth, unknown or non-invocable modules), before anything runs."""
        problem = check_call_graph(self.module, self._resolve, self.opts.depth, self.opts.call_stack)
        if problem is not None:
            raise _Failed(failure(problem.code, problem.message, details={"chain": list(problem.chain)}))

    def _resolve(self, name: str) -> Module | None:
        return self.opts.resolver(name) if self.opts.resolver is not None else None

    async def _subagents(self, body: str, calls: list[Any]) -> AsyncIterator[RunEvent | str]:
        self._check_calls()
        resolve = self._resolve
        results = []
        for i, call in enumerate(calls):
            child = resolve(call.module)
            assert child is not None  # the graph check found every module
            yield self.chunks.progress(100 * i / (len(calls) + 1), "subagent", f"{call.text} started")
            child_opts = RunOptions(
                **{
                    **self.opts.__dict__,
                    "args": call.args,
                    "depth": self.opts.depth + 1,
                    "call_stack": (*self.opts.call_stack, self.module.name),
                    "caller": AGENT,
                    "shared_deadline": self.deadline,
                }
            )
            session = RunSession(child, child_input(child, self.input, call.args), child_opts)
            async for ev in session.events():
                yield RunEvent(ev.chunk, (call.module, *ev.path))
            assert session.result is not None
            results.append((call, session.result.envelope))
            status = "ok" if session.result.ok else session.result.envelope["error"]["code"]
            yield self.chunks.progress(100 * (i + 1) / (len(calls) + 1), "subagent", f"{call.text} finished: {status}")
        yield inject_results(body, results)

    def _sent(self, events: list[RunEvent]) -> list[RunEvent]:
        return [] if self.degraded else events

    async def _call(self, request: ModelRequest) -> AsyncIterator[RunEvent]:
        provider = self.opts.provider
        attempt, received = 0, [False]
        refused = await prepare(provider)  # before the stream's timers: a first SDK import is not a silence (RUN-13)
        if refused is not None:
            raise _Failed(refused)
        while True:
            attempt += 1
            self.attempts += 1
            call_usage: Usage | None = None
            finish: Finish | None = None
            try:
                async for item in timed(
                    provider.stream(request), self.opts.heartbeat, self.opts.stream_timeout, received, self.deadline
                ):
                    if item is HEARTBEAT:
                        yield RunEvent({})
                    elif isinstance(item, TextDelta):
                        if self.first_chunk is None:
                            self.first_chunk = time.perf_counter()
                        received[0] = True
                        self.text.append(item.text)
                        for kind, fld, payload in self.streamer.feed(item.text):
                            for ev in self._sent(self.shaper.feed(kind, fld, payload)):
                                yield ev
                    elif isinstance(item, Usage):
                        call_usage = item  # a server may repeat its running total: the last one counts
                    elif isinstance(item, Finish):
                        finish = item
                for ev in self._sent(self.shaper.flush()):
                    yield ev
                # A run's usage covers all its calls: the corrective retry's tokens are spent too.
                if call_usage is not None:
                    self.usage = call_usage if self.usage is None else self.usage + call_usage
                if finish is not None and finish.token_limit:
                    partial = self.gathered.partial_data()
                    raise _Failed(token_limit_failure(finish.reason, provider.name, self.opts.max_tokens, partial))
                return
            except ProviderError as exc:
                for ev in self._sent(self.shaper.flush()):  # what arrived belongs in partial_data
                    yield ev
                if self.structured is not None and self.structured.refused(exc, received[0]):
                    refusal = self.structured.fall_back(exc)  # once: the next request carries no schema (RUN-6)
                    if refusal is not None:
                        raise _Failed(refusal) from None
                    request.response_schema = None
                    yield self.chunks.progress(
                        0, "retry", "the provider refused the response schema; asking without it"
                    )
                    continue
                if exc.retryable and not received[0] and attempt < self.opts.retry.attempts:
                    delay = self.opts.retry.delay(attempt, exc.retry_after)
                    self.warnings.append(
                        f"model call {self.attempts} failed ({exc.code}: {exc.message[:120]}); retried"
                    )
                    yield self.chunks.progress(
                        0, "retry", f"{exc.message}; retrying in {delay:.1f} s (attempt {attempt + 1})"
                    )
                    await asyncio.sleep(max(0.0, min(delay, self.deadline.remaining())))
                    continue
                code = exc.code
                if received[0] and code in ("E4001", "E4002"):
                    code = "E2010"  # the stream broke after text arrived
                raise _Failed(
                    failure(
                        code,
                        exc.message,
                        suggestion=exc.suggestion,
                        partial_data=self.gathered.partial_data(),
                        details={"provider": provider.name, "status": exc.status, "attempts": attempt},
                    )
                ) from None


async def run_module(module: Module, input_value: Any, options: RunOptions, on_event: Any = None) -> RunResult:
    """Run to completion; `on_event(RunEvent)` sees every chunk. The result is the final chunk's envelope."""
    session = RunSession(module, input_value, options)
    async for ev in session.events():
        if on_event is not None:
            on_event(ev)
    assert session.result is not None
    return session.result


def _capabilities(provider: Provider) -> dict[str, Any]:
    try:
        doc = provider.capabilities()
    except Exception:  # noqa: BLE001 - a provider without a declaration declares nothing
        return {}
    return doc if isinstance(doc, dict) else {}
