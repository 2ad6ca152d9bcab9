"""The footer: the screen's keys on one line, drawn as text by one widget.

Textual's `Footer` mounts a widget per key and mounts them all again whenever the bindings change, which
is on every focus change: a large share of the CPU of a session driven from the keyboard (and of the TUI
tests; pinned by tests/tui/test_textual_behaviour.py, which fails once Footer stops doing it and this can go;
Textual's tracker has no issue for it). This
footer works out the keys when the bindings change and repaints only if they differ.
It looks like Textual's: a key, its description, the command palette's key on the right; a key that is
not available now is dimmed; clicking a key presses it (or rings the bell when it is not available). When the keys do not fit, the descriptions go
before the keys do, the last keys' first, and what still does not fit is cut with `…`.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple, Protocol, runtime_checkable

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget

from ..shown import assemble, line, styled


@runtime_checkable
class DescribesKeys(Protocol):
    """A screen whose keys' descriptions depend on its state (a toggle naming what it switches to); it calls
    `refresh_bindings()` when they change."""

    def key_description(self, action: str) -> str | None:
        """What the key bound to `action` does now, or None for its description in the keymap."""
        ...


@runtime_checkable
class OffersKeys(Protocol):
    """A screen some of whose keys stay bound when they cannot act (pressing one says why) but that the footer
    offers only when they can; it calls `refresh_bindings()` when that changes."""

    def offers(self, action: str) -> bool:
        """Whether the footer shows the key bound to `action` now."""
        ...


class FooterItem(NamedTuple):  # a NamedTuple: a tenth of a frozen dataclass's cost to define, at start-up
    """One key the footer shows: the key to press, how it is written, what it does, and whether it can now."""

    key: str
    key_display: str
    description: str
    enabled: bool


class KeyFooter(Widget, can_focus=False):
    """The keys of the screen it is on (bindings with `show`), one per action, in the order Textual gives."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--disabled",
        "key-footer--hover",
        "key-footer--rule",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: tuple[FooterItem, ...] = ()
        self._palette: FooterItem | None = None
        self._hovered: FooterItem | None = None
        self._spans: list[tuple[int, int, FooterItem]] = []  # where each key is drawn, for the mouse

    @property
    def items(self) -> tuple[FooterItem, ...]:
        """The keys shown, left to right (the command palette's key, shown on the right, is not among them)."""
        return self._items

    @property
    def palette_item(self) -> FooterItem | None:
        """The command palette's key, shown on the right when the app has a palette."""
        return self._palette

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._update(self.screen)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # While the app has lost focus, its screen has no focused widget: keep the keys it will have again.
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._update(screen)

    def _update(self, screen: Screen[object]) -> None:
        items: dict[str, FooterItem] = {}
        palette: FooterItem | None = None
        app = self.app
        describe = screen.key_description if isinstance(screen, DescribesKeys) else None
        offers = screen.offers if isinstance(screen, OffersKeys) else None
        for key, active in screen.active_bindings.items():
            binding: Binding = active.binding
            description = (describe(binding.action) if describe else None) or binding.description
            item = FooterItem(binding.key, app.get_key_display(binding), description, active.enabled)
            if key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = item
            elif binding.show and (offers is None or offers(binding.action)):
                items.setdefault(binding.action, item)  # one key per action: the first, as Textual's footer does
        shown = tuple(items.values())
        if (shown, palette) != (self._items, self._palette):
            self._items, self._palette = shown, palette
            self.refresh()

    # ------------------------------------------------------------ drawing and the mouse

    def render(self) -> Content:
        width = self.size.width
        right = self._palette_content() if self._palette is not None else line("")
        room = max(0, width - right.cell_length)
        # Too narrow for every description: the last keys lose theirs first (the screen's own keys come first,
        # the app's help and quit last), then every key is bare, then cut.
        for described in range(len(self._items), -1, -1):
            left, spans = self._keys_content(described=described)
            if left.cell_length <= room:
                break
        if left.cell_length > room:
            left = left.truncate(room, ellipsis=True)
        start = width - right.cell_length
        self._spans = [(begin, min(end, left.cell_length), item) for begin, end, item in spans]  # cut keys: none
        if self._palette is not None:
            self._spans.append((start, width, self._palette))
        gap = line(" " * max(0, start - left.cell_length))
        return assemble(left, gap, right)

    def _keys_content(self, *, described: int) -> tuple[Content, list[tuple[int, int, FooterItem]]]:
        """The keys, the first `described` of them with their descriptions."""
        parts: list[Content] = []
        spans: list[tuple[int, int, FooterItem]] = []
        at = 0
        for index, item in enumerate(self._items):
            part = self._item_content(item, described=index < described)
            parts.append(part)
            spans.append((at, at + part.cell_length, item))
            at += part.cell_length
        return assemble(*parts).rstrip(" "), spans  # the last key's padding: the gap or the rule follows

    def _item_content(self, item: FooterItem, *, described: bool, lead: str = " ") -> Content:
        names = ["key-footer--disabled"] if not item.enabled else []
        if item == self._hovered:
            names.append("key-footer--hover")
        key_style = self.get_visual_style("key-footer--key", *names, partial=True)
        text_style = self.get_visual_style("key-footer--description", *names, partial=True)
        key = styled(f"{lead}{item.key_display} ", key_style)
        if not described or not item.description:
            return key
        return assemble(key, styled(f"{item.description} ", text_style))

    def _palette_content(self) -> Content:
        assert self._palette is not None
        rule = styled("▏", self.get_visual_style("key-footer--rule", partial=True))
        return assemble(rule, self._item_content(self._palette, described=True, lead="").rstrip(" "))

    def _item_at(self, x: int) -> FooterItem | None:
        return next((item for begin, end, item in self._spans if begin <= x < end), None)

    def on_click(self, event: events.Click) -> None:
        """A click presses the key under the pointer; a key not available now only rings the bell."""
        item = self._item_at(event.x)
        if item is None:
            return
        event.stop()
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self._item_at(event.x))

    def on_leave(self) -> None:
        self._hover(None)

    def _hover(self, item: FooterItem | None) -> None:
        if item != self._hovered:
            self._hovered = item
            self.refresh()
