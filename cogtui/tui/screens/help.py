"""Help (`?` or F1): the keys of the focused widget, then of the screen, then app-wide ones."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ..keys import bindings

NOTE = ("Remap any key by its id in config.yaml, e.g.\n"
        "  keymap:\n    browser.filter: f\n"
        "The footer shows the main keys; this list shows them all.")


def _key_name(app: object, key: str) -> str:
    get = getattr(app, "get_key_display", None)
    return get(Binding(key, "")) if callable(get) else key


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings("modal.cancel") + [Binding("question_mark,f1,q", "cancel", "Close", show=False)]

    def __init__(self, screen: Screen[object]) -> None:
        super().__init__()
        self.target = screen
        # Captured now: once this modal is up, focus (and so the active bindings) move to it.
        self.active = dict(screen.active_bindings)
        self.focused_name = type(screen.focused).__name__ if screen.focused is not None else None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self._markup(), id="help-body")

    def _markup(self) -> str:
        groups: dict[str, list[str]] = {}
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
                group = type(node).__name__
            ident = (group, key)
            label = _key_name(self.app, key)
            line = f"  [b $accent]{escape(label):<12}[/] {escape(b.description):<24} [$text-muted]{escape(b.id or '')}[/]"
            if ident in seen:
                continue
            seen.add(ident)
            groups.setdefault(group, []).append(line)
        # The screen's own keys first, then the focused widget's, then app-wide ones.
        self._add_shadowed(groups, seen)
        order = sorted(groups, key=lambda g: (g == "Everywhere", not g.endswith("screen"), g))
        parts = [f"[b]Keys[/]  [$text-muted](focused: {escape(self.focused_name or 'nothing')})[/]"]
        help_text = getattr(self.target, "HELP", None)
        if help_text:
            parts.append(escape(str(help_text)))
        for group in order:
            parts.append(f"\n[b $primary]{escape(group)}[/]")
            parts.extend(groups[group])
        parts.append(f"\n[$text-muted]{escape(NOTE)}[/]")
        parts.append("[$text-muted]escape closes this help[/]")
        return "\n".join(parts)

    def _add_shadowed(self, groups: dict[str, list[str]], seen: set[tuple[str, str]]) -> None:
        """Screen keys that the focused widget's own bindings hide (e.g. enter on a tree) are still listed."""
        group = f"{type(self.target).__name__.removesuffix('Screen')} screen"
        shown_ids = {active.binding.id for active in self.active.values()}
        keymap = getattr(getattr(self.app, "config", None), "keymap", {}) or {}
        for b in getattr(type(self.target), "BINDINGS", []):
            if not isinstance(b, Binding) or not b.id or b.id in shown_ids or not b.description:
                continue
            key = keymap.get(b.id, b.key)
            label = _key_name(self.app, key.split(",")[0])
            groups.setdefault(group, []).append(
                f"  [b $accent]{escape(label):<12}[/] {escape(b.description):<24} [$text-muted]{escape(b.id)} "
                f"(when the focused widget does not use {escape(label)})[/]")
            seen.add((group, key))

    def action_cancel(self) -> None:
        self.dismiss(None)
