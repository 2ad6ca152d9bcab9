"""Help (`?` or F1): the keys of the focused widget, then of the screen, then app-wide ones.

The focused widget and the groups of keys are named the way the user sees them ("module tree", "problems
list", "text"), never by their class (`ModuleTree`): a widget of cogtui's says its name in `HELP_NAME`, Textual's
own are named by their kind.

Key names can come from the user's keymap in config.yaml, so every value is
inserted into `Content` as it is, never parsed as markup.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, OptionList, Select, Static, Tabs, TextArea, Tree

from ..keys import KeySpec, bindings, register
from ..shown import block, markup

register(KeySpec("help.close", "question_mark,f1,q", "cancel", "Close", doc="help: close"))

NOTE = (
    "Remap any key by its id in config.yaml, e.g.\n"
    "  keymap:\n    browser.filter: f\n"
    "The footer shows the main keys; this list shows them all."
)


# Textual's widgets by what they look like (the first that matches: a subclass before its base).
KINDS: tuple[tuple[type[Widget], str], ...] = (
    (TextArea, "text"),
    (Input, "text field"),
    (DataTable, "table"),
    (Tree, "tree"),
    (Select, "picker"),
    (OptionList, "list"),
    (Tabs, "tabs"),
    (Button, "button"),
)


def seen_name(widget: object) -> str:
    """What the user calls `widget`: its `HELP_NAME`, else the kind of widget it looks like."""
    own = getattr(type(widget), "HELP_NAME", None)
    if isinstance(own, str) and own:
        return own
    return next((name for kind, name in KINDS if isinstance(widget, kind)), "the screen")


def _key_name(app: object, key: str) -> str:
    get = getattr(app, "get_key_display", None)
    return get(Binding(key, "")) if callable(get) else key


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings("modal.cancel", "help.close")

    def __init__(self, screen: Screen[object]) -> None:
        super().__init__()
        self.target = screen
        # Captured now: once this modal is up, focus (and so the active bindings) move to it.
        self.active = dict(screen.active_bindings)
        self.focused_name = seen_name(screen.focused) if screen.focused is not None else None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self._content(), id="help-body")

    def _content(self) -> Content:
        groups: dict[str, list[Content]] = {}
        seen: set[tuple[str, str]] = set()
        for key, active in self.active.items():
            b = active.binding
            if b.system or not b.description:
                continue
            node = active.node
            if node is self.target:
                group = f"{type(self.target).__name__.removesuffix('Screen')} screen"
            elif node is self.app:
                group = "Everywhere"
            else:
                group = seen_name(node).capitalize()
            ident = (group, key)
            label = _key_name(self.app, key)
            line = markup(
                "  [b $accent]$label[/] $description [$text-muted]$id[/]",
                label=f"{label:<12}",
                description=f"{b.description:<24}",
                id=b.id or "",
            )
            if ident in seen:
                continue
            seen.add(ident)
            groups.setdefault(group, []).append(line)
        # The screen's own keys first, then the focused widget's, then app-wide ones.
        self._add_shadowed(groups, seen)
        order = sorted(groups, key=lambda g: (g == "Everywhere", not g.endswith("screen"), g))
        parts = [markup("[b]Keys[/]  [$text-muted](focused: $name)[/]", name=self.focused_name or "nothing")]
        help_text = getattr(self.target, "HELP", None)
        if help_text:
            parts.append(block(str(help_text)))
        for group in order:
            parts.append(markup("\n[b $primary]$group[/]", group=group))
            parts.extend(groups[group])
        parts.append(markup("\n[$text-muted]$note[/]", note=NOTE))
        parts.append(markup("[$text-muted]escape closes this help[/]"))
        return Content("\n").join(parts)

    def _add_shadowed(self, groups: dict[str, list[Content]], seen: set[tuple[str, str]]) -> None:
        """Screen keys that the focused widget's own bindings hide (e.g. enter on a tree) are still listed."""
        group = f"{type(self.target).__name__.removesuffix('Screen')} screen"
        shown_ids = {active.binding.id for active in self.active.values()}
        keymap = getattr(getattr(self.app, "config", None), "keymap", {}) or {}
        for b in getattr(type(self.target), "BINDINGS", []):
            if not isinstance(b, Binding) or not b.id or b.id in shown_ids or not b.description:
                continue
            if self.target.check_action(b.action, ()) is False:
                continue  # the screen does not offer it now (e.g. apply in a read-only review)
            key = keymap.get(b.id, b.key)
            label = _key_name(self.app, key.split(",")[0])
            groups.setdefault(group, []).append(
                markup(
                    "  [b $accent]$padded[/] $description [$text-muted]$id (when the focused widget does not use $label)[/]",
                    padded=f"{label:<12}",
                    description=f"{b.description:<24}",
                    id=b.id,
                    label=label,
                )
            )
            seen.add((group, key))

    def action_cancel(self) -> None:
        self.dismiss(None)
