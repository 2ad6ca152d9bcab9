"""The run screen (`r`): an input editor validated as you type, provider and model pickers, and runs in tabs.

`ctrl+r` runs from anywhere on the screen (a new tab each time, to compare
providers or models on one input); `escape` cancels the running run (the
provider request is closed and the run is recorded as interrupted), or goes
back when nothing runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Select, Static, TabbedContent, TabPane, TextArea

from ...core.checker import check_input
from ...core.loader import NotAModule, load_module
from ...core.model import UNPARSED, Module
from ...core.providers import PROVIDERS, has_api_key, make_provider, selected
from ...core.runner import RunOptions
from ..keys import KeySpec, bindings, register
from ..widgets.run_pane import RunPane, RunRequest

if TYPE_CHECKING:
    from ..app import CogtuiApp

register(
    KeySpec("run.run", "ctrl+r", "run", "Run", main=True, priority=True),
    KeySpec("run.cancel", "escape", "cancel_or_close", "Cancel / back", main=True),
    KeySpec("run.toggle_input", "f2", "toggle_input", "Hide input", main=True),
    KeySpec("run.copy", "ctrl+y", "copy_envelope", "Copy envelope"),
    KeySpec("run.history", "f3", "history", "History", main=True),
)
MAX_TABS = 8
INPUT_DEBOUNCE = 0.25


def initial_inputs(module: Module) -> list[tuple[str, Any]]:
    """(label, input) choices: every golden, then every example; the first one prefills the editor."""
    out: list[tuple[str, Any]] = []
    for t in module.tests:
        if t.input is not UNPARSED:
            out.append((f"golden {t.name}", t.input))
    for e in module.examples:
        if e.input is not UNPARSED:
            out.append((f"example {e.name}", e.input))
    return out


def default_provider() -> str:
    """The configured provider, but replay when that provider has no API key."""
    name, _ = selected()
    return name if name == "replay" or has_api_key(name) else "replay"


class RunScreen(Screen[None]):
    CSS_PATH = Path(__file__).parent.parent / "styles" / "run.tcss"
    BINDINGS = bindings("run.run", "run.cancel", "run.toggle_input", "run.copy", "run.history")
    HELP = "Edit the input (JSON), pick a provider, ctrl+r to run. Each run opens a tab."

    def __init__(self, module_path: Path, input_value: Any = None, autorun: bool = False) -> None:
        super().__init__()
        self.module_path = module_path
        self.module: Module | None = None
        self.choices: list[tuple[str, Any]] = []
        self.preset_input = input_value
        self.autorun = autorun
        self.run_count = 0
        self._input_timer: Any = None

    @property
    def cog(self) -> CogtuiApp:
        return cast("CogtuiApp", self.app)

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-top"):
            with Vertical(id="run-input-box"):
                # tab_behavior="focus": escape must reach the screen (cancel) rather than just leave the editor.
                yield TextArea.code_editor("", language="json", id="run-input", soft_wrap=True, tab_behavior="focus")
                yield Static("", id="run-input-status")
            with Vertical(id="run-controls"):
                yield Static("[$text-muted]input[/]", classes="run-label")
                yield Select([], prompt="input", id="run-golden", compact=True)
                yield Static("[$text-muted]provider / model[/]", classes="run-label")
                yield Select([(p, p) for p in PROVIDERS], value=default_provider(), allow_blank=False,
                             id="run-provider", compact=True)
                yield Input(placeholder="model (provider default)", id="run-model", compact=True)
                yield Static("[$text-muted]$ARGUMENTS[/]", classes="run-label")
                yield Input(placeholder="--args text", id="run-args", compact=True)
        with TabbedContent(id="runs"):
            with TabPane("no runs yet", id="run-empty"):
                yield Static("[$text-muted]ctrl+r runs the module on this input; each run opens a tab.[/]")
        yield Footer()

    def on_mount(self) -> None:
        try:
            self.module = load_module(self.module_path)
        except (NotAModule, OSError) as exc:
            self.notify(f"Cannot load {self.module_path}: {exc}", severity="error")
            self.dismiss(None)
            return
        self.sub_title = self.module.name
        self.choices = initial_inputs(self.module)
        golden = self.query_one("#run-golden", Select)
        golden.set_options([(label, i) for i, (label, _) in enumerate(self.choices)])
        if self.choices and self.preset_input is None:
            golden.value = 0
        start = self.preset_input if self.preset_input is not None else (self.choices[0][1] if self.choices else {})
        self.query_one("#run-input", TextArea).text = json.dumps(start, indent=2, ensure_ascii=False)
        self.query_one("#run-input", TextArea).focus()
        if self.autorun:
            self.call_after_refresh(self.action_run)

    # ------------------------------------------------------------ input

    @on(Select.Changed, "#run-golden")
    def _golden(self, event: Select.Changed) -> None:
        if isinstance(event.value, int) and 0 <= event.value < len(self.choices):
            self.query_one("#run-input", TextArea).text = json.dumps(self.choices[event.value][1], indent=2, ensure_ascii=False)

    @on(TextArea.Changed, "#run-input")
    def _input_changed(self) -> None:
        if self._input_timer is not None:
            self._input_timer.stop()
        self._input_timer = self.set_timer(INPUT_DEBOUNCE, self._check_input)

    def _check_input(self) -> None:
        text = self.query_one("#run-input", TextArea).text
        self.check_input_worker(text)

    @work(thread=True, exclusive=True, group="input-check")
    def check_input_worker(self, text: str) -> None:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            self.app.call_from_thread(self._show_input_status, f"[$error]✗ not JSON:[/] {escape(exc.msg)} (line {exc.lineno}, column {exc.colno})")
            return
        if self.module is None:
            return
        violations = check_input(doc, self.module)
        if not violations:
            status = "[$success]✓ input matches the input schema[/]"
        else:
            first = "; ".join(f"{v.code} {v.message}" for v in violations[:2])
            more = f" (+{len(violations) - 2} more)" if len(violations) > 2 else ""
            status = f"[$warning]⚠ {escape(first)}{more}[/]"
        self.app.call_from_thread(self._show_input_status, status)

    def _show_input_status(self, markup: str) -> None:
        self.query_one("#run-input-status", Static).update(markup)

    # ------------------------------------------------------------ runs

    async def action_run(self) -> None:
        if self.module is None:
            return
        try:
            input_value = json.loads(self.query_one("#run-input", TextArea).text or "{}")
        except json.JSONDecodeError as exc:
            self.notify(f"The input is not JSON: {exc.msg} (line {exc.lineno})", severity="error")
            return
        provider_name = str(self.query_one("#run-provider", Select).value)
        model = self.query_one("#run-model", Input).value.strip() or None
        args = self.query_one("#run-args", Input).value or None
        try:
            provider = make_provider(provider_name, model, self.cog.config)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        options = RunOptions(provider, args=args, stream_requested=True, resolver=self.cog.store.load)
        request = RunRequest(self.module, input_value, args, provider_name, model)
        self.run_count += 1
        title = f"{self.run_count} · {provider_name}" + (f"/{model}" if model else "")
        pane = RunPane(request, options)
        tabs = self.query_one("#runs", TabbedContent)
        if tabs.query("#run-empty"):
            await tabs.remove_pane("run-empty")
        panes = [p for p in tabs.query(TabPane) if p.id and p.id.startswith("run-tab-")]
        for old in panes[: max(0, len(panes) - MAX_TABS + 1)]:  # keep the newest tabs
            if not any(r.running for r in old.query(RunPane)):
                await tabs.remove_pane(old.id or "")
        pane_id = f"run-tab-{self.run_count}"
        await tabs.add_pane(TabPane(title, pane, id=pane_id))
        tabs.active = pane_id
        pane.start()

    @on(RunPane.Finished)
    def _finished(self, event: RunPane.Finished) -> None:
        event.pane.finish(event.result)
        if event.result is not None:
            self.record(event.request, event.result)
            if event.result.warnings:
                self.notify("\n".join(event.result.warnings), title="Run warnings", severity="warning")

    @work(thread=True, group="record")
    def record(self, request: RunRequest, result: Any) -> None:
        from ...core.history import History, HistoryError
        from ...core.runrecord import to_record

        try:
            with History.open_default() as history:
                history.record(to_record(request.module, request.input, request.args, result))
        except HistoryError as exc:
            self.app.call_from_thread(self.notify, f"The run was not recorded: {exc}", severity="warning")

    def _active_pane(self) -> RunPane | None:
        active = self.query_one("#runs", TabbedContent).active_pane
        return active.query_one(RunPane) if active is not None and active.query(RunPane) else None

    def action_cancel_or_close(self) -> None:
        pane = self._active_pane()
        if pane is not None and pane.cancel():
            self.notify("Cancelling the run…")
            return
        self.dismiss(None)

    def action_toggle_input(self) -> None:
        self.query_one("#run-top").toggle_class("-hidden")

    def action_copy_envelope(self) -> None:
        pane = self._active_pane()
        if pane is None or pane.result is None:
            self.notify("No finished run in this tab.", severity="warning")
            return
        self.app.copy_to_clipboard(json.dumps(pane.result.envelope, indent=2, ensure_ascii=False))
        self.notify("Envelope copied (OSC 52)")

    def action_history(self) -> None:
        from .. import navigation as nav

        nav.history(self.cog, self.module_path)
