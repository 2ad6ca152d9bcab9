"""One run, streaming into panes: meta card, progress, timings, subagents, rationale, data, outcome.

The run happens in an async worker that only queues chunks and posts
`ChunksReady` when the queue goes from empty to non-empty. The handler drains
the queue at most once per frame (1/30 s), so a burst of thousands of chunks
costs one repaint per frame and O(new text) each (the rationale pane appends;
the data tree replaces only the fields that changed).

Model- and provider-written text (progress messages, error messages, usage)
reaches the widgets as `Content` with `$variables` or as `Text`, never spliced
into markup: `[/]` in a message must show as `[/]`, not crash the pane.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import ProgressBar, Static, Tree
from textual.worker import Worker

from cogtui.core.module.model import Module
from cogtui.core.run.chunk_assembler import StreamAssembler
from cogtui.core.run.run_state import Phase, RunState
from cogtui.core.run.runner import RunEvent, RunOptions, RunResult, RunSession

from ..richstyle import themed
from ..shown import block, cell, markup, rich_assemble, styled
from ..worker_failures import ReportsWorkerFailures
from .json_tree import JsonTree
from .meta_card import MetaCard
from .stream_text import StreamText

FRAME = 1 / 30


@dataclass(frozen=True)
class RunRequest:
    module: Module
    input: Any
    args: str | None
    provider_name: str
    model: str | None


class RunPane(ReportsWorkerFailures, Horizontal):
    # Composed once, there for the pane's life.
    card = getters.query_one(MetaCard)
    bar = getters.query_one(ProgressBar)
    progress = getters.query_one(".run-progress", Static)
    usage = getters.query_one(".run-usage", Static)
    outcome = getters.query_one(".run-outcome", Static)
    calls_tree = getters.query_one(".run-calls", Tree)  # subagent calls, nested by call path
    rationale = getters.query_one(StreamText)
    data_tree = getters.query_one(JsonTree)

    class ChunksReady(Message):
        def __init__(self, pane: RunPane) -> None:
            super().__init__()
            self.pane = pane

    class Finished(Message):
        def __init__(self, pane: RunPane, result: RunResult | None, request: RunRequest) -> None:
            super().__init__()
            self.pane = pane
            self.result = result
            self.request = request

    def __init__(self, request: RunRequest, options: RunOptions, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.request = request
        self.options = options
        self.queue: deque[RunEvent] = deque()
        self.assembler = StreamAssembler()
        self.session: RunSession | None = None
        self.result: RunResult | None = None
        self.started = time.perf_counter()
        self.state = RunState(request.module.name)  # what every part of the pane shows
        self._last_drain = 0.0
        self._drain_scheduled = False
        self.calls: dict[tuple[str, ...], Any] = {}
        self.running = False
        self._ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="run-side"):
            yield MetaCard(classes="run-meta")
            yield ProgressBar(total=100, show_eta=False, classes="run-progress-bar")
            yield Static("[$text-muted]waiting for the first chunk…[/]", classes="run-progress")
            yield Static("", classes="run-usage")
            yield Static("", classes="run-outcome")
            calls: Tree[str] = Tree("subagents", classes="run-calls -hidden")
            calls.show_root = False
            yield calls
        with Vertical(classes="run-main"):
            yield StreamText(placeholder="rationale streams here…", classes="run-rationale")
            yield JsonTree(classes="run-data")

    # ------------------------------------------------------------ running

    def start(self) -> None:
        self.running = True
        # The method, not a coroutine made now (one never started would be left un-awaited).
        _run: Worker[None] = self.run_worker(
            self._execute, group="run", name=f"run {self.request.module.name}", exit_on_error=False
        )
        self._ticker = self.set_interval(0.1, self._tick)

    async def _execute(self) -> None:
        session = RunSession(self.request.module, self.request.input, self.options)
        self.session = session
        try:
            async for ev in session.events():
                was_empty = not self.queue
                self.queue.append(ev)
                if was_empty:
                    self.post_message(self.ChunksReady(self))
        except asyncio.CancelledError:
            self.post_message(self.Finished(self, session.result, self.request))
            raise
        finally:
            await self.options.provider.aclose()
        self.post_message(self.Finished(self, session.result, self.request))

    def cancel(self) -> bool:
        if not self.running:
            return False
        self.workers.cancel_group(self, "run")
        return True

    # ------------------------------------------------------------ applying chunks (the one place the view changes)

    @on(ChunksReady)
    def _chunks_ready(self, event: ChunksReady) -> None:
        event.stop()
        wait = self._last_drain + FRAME - time.perf_counter()
        if wait > 0:
            if not self._drain_scheduled:
                self._drain_scheduled = True
                self.set_timer(wait, self._drain)
            return
        self._drain()

    def _drain(self) -> None:
        self._drain_scheduled = False
        self._last_drain = time.perf_counter()
        changed_fields: set[str] = set()
        text_fields: dict[str, list[str]] = {}
        meta = progress = None
        rationale = self.rationale
        while self.queue:
            ev = self.queue.popleft()
            if ev.path:
                self._call_event(ev)
                continue
            if "chunk" in ev.chunk or ev.chunk.get("final"):
                self.state.saw_content(self._first_chunk_ms())
            for change in self.assembler.feed(ev.chunk):
                if change.kind == "meta":
                    meta = change.value
                elif change.kind == "text" and change.field == "data.rationale":
                    rationale.append(change.value)
                elif change.kind == "text" and change.field and change.field.startswith("data."):
                    text_fields.setdefault(change.field, []).append(change.value)
                    changed_fields.add(change.field)
                elif change.kind == "value" and change.field:
                    if change.field == "data.rationale" and change.reset:
                        rationale.reset(str(change.value or ""))
                    elif change.field == "data":
                        self.data_tree.set_value(change.value)
                    elif change.field.startswith("data."):
                        changed_fields.add(change.field)
                elif change.kind == "progress":
                    progress = change.value
                elif change.kind == "heartbeat":
                    self.state.saw_heartbeat()
                elif change.kind in ("final", "error"):
                    self._show_end(change.value)
        if meta is not None:
            self.state.saw_meta(meta)
        if progress is not None:
            self.state.saw_progress(progress.get("percent"), progress.get("stage"), progress.get("message"))
        tree = self.data_tree
        data = self.assembler.data() if changed_fields else {}
        for fld in sorted(changed_fields):
            key = fld[5:]
            if key in data:
                tree.set_field(key, data[key])
        if "data.rationale" in self.assembler.parts:
            size = sum(len(p) for p in self.assembler.parts["data.rationale"])
            tree.set_field("rationale", f"({size} characters: see the rationale pane)")
        self.render_state()

    def _first_chunk_ms(self) -> float | None:
        """The runner's own first-chunk time (the one the result and the history keep)."""
        s = self.session
        return round((s.first_chunk - s.started) * 1000, 1) if s is not None and s.first_chunk else None

    def render_state(self) -> None:
        """Meta card, progress line and bar, timings: all drawn from `self.state`."""
        state = self.state
        card = self.card
        meta, instead = state.card()
        if card.meta != meta or card.instead != instead:
            card.show_meta(meta, instead)
        style = {Phase.DONE: "$success", Phase.FAILED: "$error", Phase.CANCELLED: "$warning"}.get(state.phase)
        line = state.progress_line()
        if state.phase is Phase.STREAMING and state.stage:
            text = markup("[b]$stage[/] $message", stage=state.stage, message=state.message)
        else:
            text = styled(line, style or "$text-muted")
        self.progress.update(text)
        bar, shown = self.bar, state.bar()
        bar.display = shown is not None  # a run that did not finish has no bar: it never reached 100 %
        if shown is True:
            bar.update(total=None)  # streaming with no percent: an indeterminate bar, never a stuck 0%
        elif isinstance(shown, float):
            bar.update(total=100, progress=shown)
        self._show_timings()

    def _call_event(self, ev: RunEvent) -> None:
        """Subagent chunks: one collapsible node per call, nested by call path."""
        tree: Tree[str] = self.calls_tree
        tree.remove_class("-hidden")
        name = f"@call:{ev.path[-1]} "
        node = self.calls.get(ev.path)
        if node is None:
            parent = self.calls.get(ev.path[:-1], tree.root)
            node = parent.add(rich_assemble(name, themed(self.app, "running…", "text-muted")), expand=True)
            self.calls[ev.path] = node
            tree.root.expand()
        chunk = ev.chunk
        if chunk.get("final"):
            meta = chunk.get("meta") or {}
            node.set_label(
                rich_assemble(name, themed(self.app, "✓", "success"), f" {meta.get('confidence')} {meta.get('risk')}")
            )
            if meta.get("explain"):
                node.add_leaf(cell(str(meta["explain"])[:200]))
        elif chunk.get("ok") is False:
            err = chunk.get("error") or {}
            node.set_label(rich_assemble(name, themed(self.app, f"✗ {err.get('code')}", "error", bold=True)))
            node.add_leaf(cell(str(err.get("message", ""))[:200]))

    def _show_end(self, chunk: dict[str, Any]) -> None:
        outcome = self.outcome
        if chunk.get("final"):
            self.data_tree.set_value(chunk.get("data"))
            rationale = (chunk.get("data") or {}).get("rationale")
            stream = self.rationale
            if rationale is not None and not isinstance(rationale, str):  # a v1 structured rationale
                rationale = json.dumps(rationale, indent=2, ensure_ascii=False)
            if isinstance(rationale, str) and stream.text != rationale:
                stream.reset(rationale)
            # The runner's postprocess already checked the answer against the module's contract: with
            # validation on, a final (ok) chunk *is* the verdict, and any violation arrives as an error chunk.
            if self.options.validate:
                outcome.update("[$success]✓ envelope valid[/] [$text-muted](checked against the module's contract)[/]")
            else:
                outcome.update("[$warning]envelope not validated[/] [$text-muted](validation was off)[/]")
            return
        err = chunk.get("error") or {}
        lines = [
            markup("[b $error]✗ $code[/] $message", code=str(err.get("code")), message=str(err.get("message", "")))
        ]
        if err.get("suggestion"):
            lines.append(markup("[$text-muted]suggestion:[/] $text", text=str(err["suggestion"])))
        outcome.update(Content("\n").join(lines))
        partial = chunk.get("partial_data")
        if isinstance(partial, dict):
            self.data_tree.set_value(partial)
            lines.append(styled("partial data below", "$text-muted"))
            outcome.update(Content("\n").join(lines))

    def _tick(self) -> None:
        self._show_timings()

    def _show_timings(self) -> None:
        text = self.state.timings((time.perf_counter() - self.started) * 1000)
        usage = self.result.usage if self.result is not None else None
        if usage:
            text += f"\ntokens {usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out"
        self.usage.update(block(text))  # provider-reported numbers: literal

    def finish(self, result: RunResult | None) -> None:
        """Called by the run screen's tabs, on `Finished` (after the last chunks are drained): the final state."""
        self._drain()
        self.running = False
        self.result = result
        if result is not None:
            self.state.ended(result.envelope, result.interrupted, result.ttfc_ms, result.total_ms)
            if result.interrupted:
                self.outcome.update("[$warning]interrupted[/]: the provider request was closed")
        else:
            self.state.ended({"ok": False}, True, None, (time.perf_counter() - self.started) * 1000)
        self.render_state()
        if self._ticker is not None:  # the timings are final: stop repainting them ten times a second
            self._ticker.stop()
