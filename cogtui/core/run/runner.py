"""The run pipeline (SPEC-v2.2 §4, SPEC-v2.5 §3.2 and §8, SPEC-v0.1 subagents), as one stream of chunks.

`RunSession.events()` yields RunEvents whose `chunk` is a spec chunk: meta
first, then deltas, snapshots, progress and heartbeats, then final or error.
The sync result is the envelope the final (or error) chunk carries, so both
paths share every step. Nothing here raises on bad input or a failing
provider: every failure is an envelope with its E-code.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogtui.core.module.model import Module
from cogtui.core.module.schemas import RefError, schemas_for
from cogtui.core.rules.chunk_rules import get_dotted
from cogtui.core.rules.document_checker import input_violation
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.field_stream import FieldStreamer
from cogtui.core.run.postprocess import postprocess
from cogtui.core.run.prompt import estimate_tokens, inject_results, input_text, render_calls, system_prompt, user_prompt
from cogtui.core.run.provider_call import HEARTBEAT, Deadline, RetryPolicy, timed
from cogtui.core.run.providers.base import Finish, Message, ModelRequest, Provider, ProviderError, TextDelta, Usage
from cogtui.core.run.subagents import Resolver, check_call_graph, child_input

CORRECTIVE = "Your previous reply could not be parsed as JSON. Reply again with ONLY the JSON object, nothing else."
CORRECTIVE_EMPTY = "Your previous reply was empty. Reply with ONLY the JSON object, nothing else."


@dataclass
class RunOptions:
    provider: Provider
    args: str | None = None
    validate: bool = True
    stream_requested: bool = False  # the client asked for chunks (--stream, the TUI)
    stream_timeout: float = 60.0
    media_roots: tuple[Path, ...] = ()  # folders besides the module's that media `type: file` may read
    deadline: float | None = 600.0  # seconds for the whole run (config.yaml run_deadline, --deadline)
    heartbeat: float = 15.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    resolver: Resolver | None = None
    max_tokens: int = 4096
    depth: int = 0
    call_stack: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunEvent:
    chunk: dict[str, Any]
    path: tuple[str, ...] = ()  # the subagent call path; () for the run itself


@dataclass
class RunResult:
    envelope: dict[str, Any]
    session_id: str
    provider: str
    model: str | None
    ttfc_ms: float | None = None
    total_ms: float | None = None
    usage: dict[str, int] | None = None
    warnings: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    attempts: int = 0
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return self.envelope.get("ok") is True

    @property
    def outcome(self) -> str:
        return "interrupted" if self.interrupted else ("ok" if self.ok else "error")


class _Failed(Exception):
    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(envelope["error"]["message"])
        self.envelope = envelope


class RunSession:
    def __init__(self, module: Module, input_value: Any, options: RunOptions) -> None:
        self.module = module
        self.input = input_value
        self.opts = options
        self.session_id = "sess_" + uuid.uuid4().hex[:20]
        self.seq = 0
        self.started = time.perf_counter()
        self.first_chunk: float | None = None
        self.streamer = FieldStreamer()
        self.deltas: dict[str, list[str]] = {}  # parts, joined on demand: appending to a str would be quadratic
        self.values: dict[str, Any] = {}
        self.text: list[str] = []
        self.usage: Usage | None = None
        self.result: RunResult | None = None
        self.warnings: list[str] = []
        self.attempts = 0
        self.degraded = options.stream_requested and module.contract.response_mode.value == "sync"
        self.deadline = Deadline(options.deadline)

    # ------------------------------------------------------------ chunks

    def _chunk(self, payload: dict[str, Any]) -> RunEvent:
        return RunEvent(payload)

    def _seq(self) -> int:
        self.seq += 1
        return self.seq

    def _delta(self, fld: str, text: str) -> RunEvent:
        self.deltas.setdefault(fld, []).append(text)
        return self._chunk({"chunk": {"seq": self._seq(), "type": "delta", "field": fld, "delta": text}})

    def _snapshot(self, fld: str, value: Any) -> RunEvent:
        self.values[fld] = value
        self.deltas.pop(fld, None)
        return self._chunk({"chunk": {"seq": self._seq(), "type": "snapshot", "field": fld, "data": value}})

    def _progress(self, percent: float, stage: str, message: str) -> RunEvent:
        return self._chunk({"progress": {"percent": round(percent, 1), "stage": stage, "message": message}})

    def partial_data(self) -> dict[str, Any] | None:
        data: dict[str, Any] = {}
        joined = {fld: "".join(parts) for fld, parts in self.deltas.items()}
        for fld, value in [*self.values.items(), *joined.items()]:
            if fld.startswith("data."):
                data[fld[5:]] = value
        return data or None

    # ------------------------------------------------------------ the pipeline

    async def events(self) -> AsyncIterator[RunEvent]:
        yield self._chunk(
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
            yield self._progress(0, "degraded", self.warnings[-1])
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
        except asyncio.CancelledError:
            self.finish(self._interrupted("the run was cancelled"), interrupted=True)
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must still end as an envelope
            # failure() masks API keys in the message and details: an exception's repr may quote one.
            envelope = failure(
                "E4000",
                f"internal error: {type(exc).__name__}: {exc}",
                partial_data=self.partial_data(),
                details={"exception": repr(exc)},
            )
        self.finish(envelope)
        for ev in self._reconcile(envelope):
            yield ev
        yield self._chunk(self._terminal(envelope))

    def _interrupted(self, why: str) -> dict[str, Any]:
        return failure(
            "E2010",
            why,
            partial_data=self.partial_data(),
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
        self.result = RunResult(
            envelope,
            self.session_id,
            self.opts.provider.name,
            getattr(self.opts.provider, "model", None),
            round((self.first_chunk - self.started) * 1000, 1) if self.first_chunk else None,
            round(total, 1),
            self.usage.to_json() if self.usage else None,
            self.warnings,
            [],
            self.attempts,
            interrupted,
        )
        return self.result

    def _terminal(self, envelope: dict[str, Any]) -> dict[str, Any]:
        if envelope.get("ok") is True:
            out = {"final": True, "meta": envelope["meta"], "data": envelope["data"]}
            if self.usage:
                out["usage"] = self.usage.to_json()
            return out
        chunk = {
            "ok": False,
            "streaming": True,
            "session_id": self.session_id,
            "meta": envelope["meta"],
            "error": envelope["error"],
        }
        if envelope.get("partial_data"):
            chunk["partial_data"] = envelope["partial_data"]
        return chunk

    def _reconcile(self, envelope: dict[str, Any]) -> list[RunEvent]:
        """Snapshots for streamed fields whose final value differs (repairs, retries), so deltas always add up."""
        if envelope.get("ok") is not True:
            return []
        out = []
        for fld, parts in list(self.deltas.items()):
            text = "".join(parts)
            final = get_dotted(envelope, fld)
            if final != text:
                out.append(self._snapshot(fld, final))
        for fld, value in list(self.values.items()):
            final = get_dotted(envelope, fld)
            if final != value:
                out.append(self._snapshot(fld, final))
        return out

    async def _pipeline(self) -> AsyncIterator[RunEvent | dict[str, Any]]:
        m = self.module
        unreadable = [d for d in m.load_diagnostics if d.severity.value == "error" and d.code[:1] in ("P", "F")]
        if unreadable:
            # A refused file (outside the folder, a FIFO, too large: F-codes) is a policy block (D-confined).
            bad = next((d for d in unreadable if d.code.startswith("F")), unreadable[0])
            raise _Failed(
                failure(
                    "E4007" if bad.code.startswith("F") else "E4000",
                    f"module {m.name} cannot run: {bad.message} ({bad.location})",
                    suggestion=f"Run `cogn validate {m.name}` and fix the errors first.",
                )
            )
        self._check_input()
        from cogtui.core.run.media_fetch import MediaError, resolve_all

        try:
            media = await resolve_all(self.input, m, roots=self.opts.media_roots)
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
        unsupported = sorted({x.category or "?" for x in media if x.category not in supported})
        if unsupported:
            raise _Failed(
                failure(
                    "E4011",
                    f"provider {self.opts.provider.name} cannot take {', '.join(unsupported)} input",
                    details={"provider": self.opts.provider.name, "supported": list(supported)},
                )
            )
        body, calls = render_calls(m.prompt, self.opts.args)
        if calls:
            async for ev in self._subagents(body, calls):
                if isinstance(ev, str):
                    body = ev
                else:
                    yield ev
        note = "\n".join(f"[{i + 1}] {x.describe()}" for i, x in enumerate(media))
        request = ModelRequest(
            system=system_prompt(m),
            messages=[Message("user", user_prompt(m, body, self.input, note))],
            media=media,
            max_tokens=self.opts.max_tokens,
            timeout=self.opts.stream_timeout,
            module=m,
            input=self.input,
        )
        from cogtui.core.files.json_extract import extract_json

        for attempt_kind in ("answer", "corrective"):
            async for ev in self._call(request):
                yield ev
            raw = "".join(self.text)
            answer = extract_json(raw)
            if answer is not None:
                break
            if attempt_kind == "answer":
                first_raw = raw
                if raw.strip():
                    request.messages += [Message("assistant", raw), Message("user", CORRECTIVE)]
                else:
                    # Anthropic rejects an empty assistant turn, and strict chat templates want turns to
                    # alternate: the nudge joins the user's message instead.
                    first = request.messages[0]
                    request.messages = [Message("user", f"{first.text}\n\n{CORRECTIVE_EMPTY}"), *request.messages[1:]]
                for fld in list(self.deltas):
                    yield self._snapshot(fld, "")
                self.values.clear()
                self.text, self.streamer = [], FieldStreamer()
                yield self._progress(50, "retry", "the answer was not JSON; asking once more")
        else:
            raise _Failed(
                failure(
                    "PARSE_ERROR",
                    "the model's answer is not JSON, even after one corrective retry",
                    details={"raw_output": raw[:20000], "first_attempt": first_raw[:20000]},
                )
            )
        outcome = postprocess(answer, m, self.opts.validate)
        self.warnings += outcome.warnings
        yield outcome.envelope

    def _check_input(self) -> None:
        m = self.module
        if m.schemas.input is not None:
            try:
                errors = list(schemas_for(m).iter_errors("input", self.input))
            except RefError as exc:
                raise _Failed(failure("E1006", str(exc))) from None
            if errors:
                violations = [input_violation(e) for e in errors]
                first = violations[0]
                raise _Failed(
                    failure(
                        first.code,
                        f"invalid input: {first.message}",
                        details={"violations": [v.to_json() for v in violations[:20]]},
                    )
                )
        limit = m.runtime_requirements.get("max_input_tokens")
        if isinstance(limit, int) and not isinstance(limit, bool):
            # The text the prompt carries: attached media count as their placeholder, not their base64 (D31).
            tokens = estimate_tokens(input_text(self.input) + (self.opts.args or ""))
            if tokens > limit:
                raise _Failed(
                    failure(
                        "E1005",
                        f"the input is about {tokens} tokens, over max_input_tokens {limit}",
                        details={"estimated_tokens": tokens, "max_input_tokens": limit},
                    )
                )

    async def _subagents(self, body: str, calls: list[Any]) -> AsyncIterator[RunEvent | str]:
        resolve = self.opts.resolver or (lambda name: None)
        problem = check_call_graph(self.module, resolve, self.opts.depth, self.opts.call_stack)
        if problem is not None:
            raise _Failed(failure(problem.code, problem.message, details={"chain": list(problem.chain)}))
        results = []
        for i, call in enumerate(calls):
            child = resolve(call.module)
            assert child is not None  # the graph check found every module
            yield self._progress(100 * i / (len(calls) + 1), "subagent", f"{call.text} started")
            child_opts = RunOptions(
                **{
                    **self.opts.__dict__,
                    "args": call.args,
                    "depth": self.opts.depth + 1,
                    "call_stack": (*self.opts.call_stack, self.module.name),
                }
            )
            session = RunSession(child, child_input(child, self.input, call.args), child_opts)
            async for ev in session.events():
                yield RunEvent(ev.chunk, (call.module, *ev.path))
            assert session.result is not None
            results.append((call, session.result.envelope))
            status = "ok" if session.result.ok else session.result.envelope["error"]["code"]
            yield self._progress(100 * (i + 1) / (len(calls) + 1), "subagent", f"{call.text} finished: {status}")
        yield inject_results(body, results)

    def _token_limit(self, finish: Finish, provider_name: str) -> dict[str, Any]:
        """Output cut by the token limit: E2003 with what was parsed, never a parse retry (D38)."""
        return failure(
            "E2003",
            f"the model's answer was cut off by the token limit (stop reason {finish.reason!r}, "
            f"max_tokens {self.opts.max_tokens})",
            partial_data=self.partial_data(),
            details={"provider": provider_name, "stop_reason": finish.reason, "max_tokens": self.opts.max_tokens},
        )

    async def _call(self, request: ModelRequest) -> AsyncIterator[RunEvent]:
        provider = self.opts.provider
        attempt = 0
        received = [False]
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
                        yield self._chunk({})
                    elif isinstance(item, TextDelta):
                        if self.first_chunk is None:
                            self.first_chunk = time.perf_counter()
                        received[0] = True
                        self.text.append(item.text)
                        for kind, fld, payload in self.streamer.feed(item.text):
                            if self.degraded:
                                continue
                            yield self._delta(fld, payload) if kind == "delta" else self._snapshot(fld, payload)
                    elif isinstance(item, Usage):
                        call_usage = item  # a server may repeat its running total: the last one counts
                    elif isinstance(item, Finish):
                        finish = item
                # A run's usage covers all its calls: the corrective retry's tokens are spent too.
                if call_usage is not None:
                    self.usage = (
                        call_usage
                        if self.usage is None
                        else Usage(
                            self.usage.input_tokens + call_usage.input_tokens,
                            self.usage.output_tokens + call_usage.output_tokens,
                        )
                    )
                if finish is not None and finish.token_limit:
                    raise _Failed(self._token_limit(finish, provider.name))
                return
            except ProviderError as exc:
                if exc.retryable and not received[0] and attempt < self.opts.retry.attempts:
                    delay = self.opts.retry.delay(attempt, exc.retry_after)
                    yield self._progress(
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
                        partial_data=self.partial_data(),
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
