"""The eval screen's options (`t`): which targets to run against, and the response cache (off, deterministic, any).

The same choices `cogn eval` takes as `--provider P --model M` pairs and
`--cache[=any]`: each provider as configured (with the model it would run, and a
note when it has no API key), more typed as `provider/model`, and the cache mode
(off by default). `ctrl+r` runs the eval with them; escape keeps what was there.
Model names come from config.yaml and typing: shown as plain text, never markup.
"""

from __future__ import annotations

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, RadioButton, RadioSet, Static

from cogtui.core.eval.targets import CACHE_MODES, EvalChoice, TargetOption, option, parse_target, target_note
from cogtui.core.settings.config import Config

from ...keys import KeySpec, bindings, register
from ...mounting import while_open
from ...shown import block, line, styled
from ...widgets.check_list import CheckList

register(
    KeySpec(
        "eval_options.apply",
        "ctrl+r",
        "apply",
        "Run with these",
        main=True,
        priority=True,
        doc="eval options: run with the chosen targets and cache",
    )
)

CACHE_LABELS = {
    "off": "off: every case calls the model",
    "deterministic": "deterministic targets only (--cache)",
    "any": "any target (--cache=any)",
}


class EvalOptions(ModalScreen[EvalChoice | None]):
    BINDINGS = bindings("eval_options.apply", "modal.cancel")

    targets = getters.query_one("#eval-options-targets", CheckList)
    problem_line = getters.query_one("#eval-options-problem", Static)
    cache_modes = getters.query_one("#eval-options-cache", RadioSet)

    def __init__(self, offered: list[TargetOption], current: EvalChoice, config: Config) -> None:
        super().__init__()
        self.config = config
        self.current = current
        chosen = {t.label for t in current.targets}
        self.offered = {o.target.label: o for o in offered}
        for target in current.targets:  # typed earlier: offered again, chosen
            self.offered.setdefault(target.label, TargetOption(target))
        self.initially = [(label, label in chosen) for label in self.offered]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="eval-options"):
            yield Label("Eval: targets and response cache", classes="dialog-title")
            yield Static(styled("targets", "$text-muted"))
            yield CheckList[str](
                *((self.prompt(self.offered[label]), label, on) for label, on in self.initially),
                id="eval-options-targets",
            )
            yield Input(placeholder="add a target: provider/model, then enter", id="eval-options-add", compact=True)
            yield Static("", classes="dialog-problem", id="eval-options-problem")
            yield Static(styled("response cache", "$text-muted"))
            with RadioSet(id="eval-options-cache", compact=True):
                for mode in CACHE_MODES:
                    yield RadioButton(CACHE_LABELS[mode], value=mode == self.current.cache, name=mode, compact=True)
            yield Static(
                styled("space: choose · ctrl+r: run with these · escape: cancel", "$text-muted"), classes="dialog-hint"
            )

    @while_open
    def on_mount(self) -> None:
        self.targets.focus()

    @staticmethod
    def prompt(offer: TargetOption) -> Content:
        label = line(offer.target.label)
        return label + styled(f"  {offer.note}", "$text-muted") if offer.note else label

    @on(Input.Submitted, "#eval-options-add")
    def _add(self, event: Input.Submitted) -> None:
        problem = self.problem_line
        if not event.value.strip():
            return
        try:
            typed = parse_target(event.value)
            offer = option(typed, self.config)
        except ValueError as exc:  # UnknownProvider, a bad provider setting
            problem.update(block(str(exc)))
            return
        targets = self.targets
        label = offer.target.label
        problem.update(block(target_note(typed, offer.target, label in self.offered)))
        if label not in self.offered:
            self.offered[label] = offer
            targets.add_option((self.prompt(offer), label, True))
        targets.select(label)
        event.input.value = ""

    def chosen(self) -> EvalChoice:
        labels = self.targets.selected
        pressed = self.cache_modes.pressed_button
        mode = pressed.name if pressed is not None and pressed.name in CACHE_MODES else "off"
        return EvalChoice(tuple(self.offered[label].target for label in self.offered if label in labels), mode)

    def action_apply(self) -> None:
        choice = self.chosen()
        if not choice.targets:
            self.problem_line.update(Content("Choose at least one target."))
            return
        self.dismiss(choice)

    def action_cancel(self) -> None:
        self.dismiss(None)
