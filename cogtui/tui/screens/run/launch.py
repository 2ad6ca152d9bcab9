"""Starting a run from the run screen's form: what the form says (`read_form`), then the run it asks for (`launch`).

`ctrl+r` reads the form (input, provider, model, $ARGUMENTS, the target to compare with) into a `RunForm` at once,
and the screen has the module read again, off the UI thread, with the form as the read's purpose: a schema or a
prompt changed since the last run counts. Once the module arrives, `launch` makes the provider and opens the run's
tab; with a second target it makes both and one tab runs the input on both at once, side by side (decision
TUI-19). Which presses start a run (a burst is one run, a press while the module is being read is kept and runs
once it is read: decision TUI-5) is the screen's `RunScreenState.presses`; the screen starts one read at a time,
so two overlapping reads never start two runs (decision TUI-4). The prompt preview (`p`) reads the input with
`form_input` as a run would. Functions of what they use (the form, the module, the workbench, the tabs), so what a
run is made of reads in one place, apart from the widgets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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

    from ...workbench import Workbench
    from .tabs import RunTabs


@dataclass(frozen=True)
class RunForm:
    """What the run screen's form said when `ctrl+r` was pressed."""

    input_value: Any
    provider: str
    model: str | None
    args: str | None
    compare: str | None = None  # a second target, `provider/model`: both run side by side


def form_input(says: Notifies, text: str) -> tuple[bool, Any]:
    """(True, the input) for the input as typed, or (False, None) when it is not JSON, which is said."""
    try:
        return True, json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        says.notify(f"The input is not JSON: {exc.msg} (line {exc.lineno})", severity="error", markup=False)
        return False, None


def read_form(says: Notifies, text: str, provider: str, model: str, args: str, compare: str) -> RunForm | None:
    """The form as typed, or None when its input is not JSON (which is said)."""
    parsed, input_value = form_input(says, text)
    if not parsed:
        return None
    return RunForm(input_value, provider, model.strip() or None, args or None, compare.strip() or None)


async def launch(tabs: RunTabs, module: Module, form: RunForm, bench: Workbench, says: Notifies) -> None:
    """The run `form` asks for, of the module as just read, in a new tab (or why it cannot start, said)."""
    try:
        provider = make_provider(form.provider, form.model, bench.config)
    except ValueError as exc:
        says.notify(str(exc), severity="error", markup=False)
        return
    # The opt-in output fixes config.yaml turns on beyond the repair pass (decision ENV-10); an unknown name
    # turns on none.
    fixes, _ = parse_fixes(bench.config.output_fixes)
    options = RunOptions(provider, args=form.args, stream_requested=True, resolver=bench.store.load, fixes=fixes)
    if form.compare is not None:
        await compare(tabs, module, form, options, bench, says)
        return
    runs_as = Target(provider.name, provider.model)
    note = target_note(Target(provider.name, form.model), runs_as, listed=False)
    if note:  # replay with a model name: it runs (and is recorded) as replay; the tab says what ran
        says.notify(note, title="Run", severity="warning", markup=False)
    model = runs_as.model if form.model else None
    request = RunRequest(module, form.input_value, form.args, form.provider, model)
    await tabs.open_run(request, options, runs_as.label if form.model else form.provider)


async def compare(
    tabs: RunTabs, module: Module, form: RunForm, first: RunOptions, bench: Workbench, says: Notifies
) -> None:
    """Both targets in one tab, side by side: the form's provider and model, and the one to compare with."""
    try:
        typed = parse_target(form.compare or "")
        second = make_provider(typed.provider, typed.model, bench.config)
    except ValueError as exc:
        await first.provider.aclose()
        says.notify(f"compare with: {exc}", severity="error", markup=False)
        return
    providers = [first.provider, second]
    options = [first, replace(first, provider=second)]
    labels = [Target(p.name, p.model).label for p in providers]
    requests = [RunRequest(module, form.input_value, form.args, p.name, p.model) for p in providers]
    await tabs.open_compare(requests, options, labels, bench.config.prices)
