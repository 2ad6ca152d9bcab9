"""The new-module form: name, tier and level of a new v2.2 module, created from the template.

Apart from modals.py: the scaffold it needs imports the migration package (and PyYAML), which the screens that
only ask a question (run, editor, insights) need not load when they open.
"""

from __future__ import annotations

from pathlib import Path

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from cogtui.core.authoring.scaffold import ScaffoldError, check_name, create_module, shadowing
from cogtui.core.module.discovery import ModuleIndex, SearchPath
from cogtui.core.module.tiers import TIERS

from ...keys import bindings
from ...mounting import while_open
from ...shown import block, cell
from ..modals import ConfirmModal


class NewModuleModal(ModalScreen[Path | None]):
    """Name, tier and level of a new v2.2 module; creates it from the template."""

    BINDINGS = bindings("modal.cancel")

    name_input = getters.query_one("#name", Input)
    tier_select = getters.query_one("#tier", Select)
    root_select = getters.query_one("#root", Select)
    problem_line = getters.query_one("#problem", Static)
    shadow_line = getters.query_one("#shadow", Static)  # shown only when the name shadows a module, or is shadowed

    def __init__(self, search_path: SearchPath, index: ModuleIndex | None = None) -> None:
        """`index`: the modules on the search path now, to warn when the new one would shadow one (or be shadowed)."""
        super().__init__()
        self.search_path = search_path
        self.index = index

    def compose(self) -> ComposeResult:
        # Shown like every other path (relative to the working folder, or ~/...); the value stays absolute.
        store = getattr(self.app, "store", None)
        show = store.display if store is not None else str
        roots = [(cell(f"{r.level}: {show(r.path)}"), str(r.path)) for r in self.search_path.roots]
        with Vertical(classes="dialog", id="new-module"):
            yield Label("New v2.2 module", classes="dialog-title")
            yield Input(placeholder="name, e.g. ticket-triage", id="name")
            yield Select([(t, t) for t in TIERS], value="decision", allow_blank=False, id="tier")
            yield Select(roots, value=roots[0][1] if roots else Select.NULL, allow_blank=False, id="root")
            yield Static("", id="problem", classes="dialog-problem")
            yield Static("", id="shadow", classes="dialog-warning -hidden")  # shown only when there is one
            with Horizontal(classes="dialog-buttons"):
                yield Button("Create", variant="primary", id="create")
                yield Button("Cancel", id="cancel")

    @while_open
    def on_mount(self) -> None:
        self.name_input.focus()

    def _target_folder(self) -> Path:
        value = self.root_select.value
        return Path(str(value))

    def _shadowing(self) -> list[str]:
        name = self.name_input.value.strip()
        return shadowing(name, self._target_folder(), self.index) if name and self.index is not None else []

    @on(Input.Changed, "#name")
    @on(Select.Changed, "#root")
    def _check(self) -> None:
        name = self.name_input.value
        problem = check_name(name, self._target_folder()) if name else None
        self.problem_line.update(block(problem or ""))
        shadows = self._shadowing() if problem is None else []
        warning = self.shadow_line
        warning.update(block("\n".join(f"⚠ {s}" for s in shadows)))
        warning.set_class(not shadows, "-hidden")

    @on(Input.Submitted, "#name")
    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        name = self.name_input.value.strip()
        shadows = self._shadowing() if check_name(name, self._target_folder()) is None else []
        if not shadows:
            self._create_now()
            return
        self.app.push_screen(
            ConfirmModal(
                f"Another {name} is on the search path",
                "\n".join(shadows) + "\n\nThe first module of a name on the search path is the one that runs.",
                confirm="Create anyway",
                danger=True,
            ),
            lambda ok: self._create_now() if ok else None,
        )

    def _create_now(self) -> None:
        name = self.name_input.value.strip()
        tier = str(self.tier_select.value)
        try:
            path = create_module(self._target_folder(), name, tier)
        except (ScaffoldError, OSError) as exc:
            self.problem_line.update(block(str(exc)))
            return
        self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
