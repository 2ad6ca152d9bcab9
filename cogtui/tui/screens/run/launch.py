"""`ctrl+r` on the run screen: read the module again, off the UI thread, then start the run in a new tab.

Each run loads the module from disk again (a schema changed since the last run counts), off the UI thread
through the screen's `ModuleLoads` (module_loads.py, shared with the goldens and eval screens), whose one
`ModuleLoaded` starts the run. The form (input, provider, model, $ARGUMENTS, the target to compare with) is
read when the run starts: with a second target, one tab runs the input on both at once, side by side (TUI-19).
Which presses start a run is the screen's `RunPresses` (core/run/run_state.py, TUI-5): a burst is one run, a
press while the module is being read is kept and calls `start` once it is read. One load at a time: `start`
does nothing while one is under way, so two overlapping loads never start two runs (TUI-4).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from cogtui.core.eval.model import Target
from cogtui.core.eval.targets import parse_target, target_note
from cogtui.core.records import replace
from cogtui.core.run.output_fixes import parse_fixes
from cogtui.core.run.providers import make_provider
from cogtui.core.run.runner import RunOptions

from ...widgets.run_pane import RunRequest
from ...workbench import Notifies

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

    from ...module_loads import ModuleLoads
    from ...workbench import Workbench


@dataclass(frozen=True)
class RunForm:
    """What the run screen's form said when `ctrl+r` was pressed."""

    input_value: Any
    provider: str
    model: str | None
    args: str | None
    compare: str | None = None  # a second target, `provider/model`: both run side by side


class RunLaunchView(Notifies, Protocol):
    """What starting a run uses of the run screen (RunScreen implements it)."""

    module: Module | None
    stopping: bool
    loads: ModuleLoads  # the module read off the UI thread, one load at a time

    @property
    def bench(self) -> Workbench: ...

    def form_text(self) -> tuple[str, str, str, str]: ...  # input, provider, model, args as typed

    def compare_text(self) -> str: ...  # the target to compare with, as typed ("" for none)

    async def open_tab(self, request: RunRequest, options: RunOptions, label: str) -> None: ...

    async def open_compare_tab(
        self, requests: list[RunRequest], options: list[RunOptions], labels: list[str]
    ) -> None: ...


class RunLaunchFlow:
    def __init__(self, view: RunLaunchView) -> None:
        self.view = view

    def start(self) -> None:
        view = self.view
        if view.module is None or view.stopping or view.loads.loading:  # the screen keeps such a press (RunPresses)
            return
        text, provider, model, args = view.form_text()
        parsed, input_value = form_input(view, text)
        if not parsed:
            return
        compare = view.compare_text().strip() or None
        view.loads.start(RunForm(input_value, provider, model.strip() or None, args or None, compare))

    async def reloaded(self, loaded: Module | str, form: RunForm) -> None:
        """The module read again for the run asked for with `form`: the run starts in a new tab."""
        view = self.view
        if view.stopping:
            return  # closing or quitting since the key was pressed: no new run
        if isinstance(loaded, str):
            view.notify(loaded, severity="error", markup=False)
            return
        view.module = module = loaded
        bench = view.bench
        try:
            provider = make_provider(form.provider, form.model, bench.config)
        except ValueError as exc:
            view.notify(str(exc), severity="error", markup=False)
            return
        # the opt-in output fixes config.yaml turns on beyond the repair pass (ENV-10); an unknown name turns on none
        fixes, _ = parse_fixes(bench.config.output_fixes)
        options = RunOptions(provider, args=form.args, stream_requested=True, resolver=bench.store.load, fixes=fixes)
        if form.compare is not None:
            await self.compare(module, form, options)
            return
        runs_as = Target(provider.name, provider.model)
        note = target_note(Target(provider.name, form.model), runs_as, listed=False)
        if note:  # replay with a model name: it runs (and is recorded) as replay; the tab says what ran
            view.notify(note, title="Run", severity="warning", markup=False)
        model = runs_as.model if form.model else None
        request = RunRequest(module, form.input_value, form.args, form.provider, model)
        await view.open_tab(request, options, runs_as.label if form.model else form.provider)

    async def compare(self, module: Module, form: RunForm, first: RunOptions) -> None:
        """Both targets in one tab, side by side: the form's provider and model, and the one to compare with."""
        view, config = self.view, self.view.bench.config
        try:
            typed = parse_target(form.compare or "")
            second = make_provider(typed.provider, typed.model, config)
        except ValueError as exc:
            await first.provider.aclose()
            view.notify(f"compare with: {exc}", severity="error", markup=False)
            return
        providers = [first.provider, second]
        options = [first, replace(first, provider=second)]
        labels = [Target(p.name, p.model).label for p in providers]
        requests = [RunRequest(module, form.input_value, form.args, p.name, p.model) for p in providers]
        await view.open_compare_tab(requests, options, labels)


def form_input(view: Notifies, text: str) -> tuple[bool, Any]:
    """(True, the input) for the input as typed, or (False, None) when it is not JSON, which is said."""
    try:
        return True, json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        view.notify(f"The input is not JSON: {exc.msg} (line {exc.lineno})", severity="error", markup=False)
        return False, None
