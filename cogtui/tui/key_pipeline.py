"""Keys in order, one at a time: a key typed while the previous one is still opening a screen or a text field
goes to that screen or field, never to whatever had focus before.

Textual forwards each key to the focused widget as soon as it arrives, while the previous key may still
be bubbling up to the binding that moves focus (`/` mounting the filter box, `r` pushing the run screen).
A fast typist, a paste typed as keys or a slow SSH link then sends `/quiz` as `/`, `q` (quit), `u`, `i`
(insights)... Here the app takes each key from the terminal in turn and lets the next one go only when
the previous one is *settled* (the upstream behaviour it works around is pinned by
tests/tui/test_textual_behaviour.py: when it changes, this pipeline and the app's `on_event` override can go;
Textual's tracker has no issue for it: the nearest, Textualize/textual#4704, fixed keys reaching a screen being
dismissed, not keys overtaking the one that pushes a screen or moves focus):

1. it was dispatched (priority bindings first, then to the focused widget, exactly as Textual does),
2. a `KeySettled` marker posted right behind it reached the app (the key finished bubbling, so any
   binding it triggered has run), and
3. the current screen is mounted (its `on_mount` ran, so the widget it focuses is focused) and one more
   turn of the app's queue has passed (focus changes are queued callbacks).

A key whose marker is lost (the widget it was posted to was removed before it got there) is settled at the next
check, every `STALL` seconds. While that widget is still there, the marker is still on its way, however long a
loaded machine takes to bring it: settling the key by the clock then let the next key go to the screen the key was
leaving, and a binding it triggered ran after the keys behind it (seen under load: a key to open a screen, then
escape, ran its `Navigate` as the app was closing).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeGuard

from textual import events
from textual.message import Message
from textual.timer import Timer

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump

STALL = 2.0  # seconds between checks that a key's marker is still on its way


class KeySettled(Message):
    """Posted behind a dispatched key through the same widgets: when the app gets it, the key is done."""

    def __init__(self, serial: int) -> None:
        super().__init__()
        self.serial = serial


class KeyPipeline:
    """The app's keys from the terminal, dispatched one settled key after another."""

    def __init__(self, app: App[Any], dispatch: Callable[[events.Key], Awaitable[None]]) -> None:
        """`dispatch` is Textual's own handling of a key from the terminal (`App.on_event`)."""
        self.app = app
        self.dispatch = dispatch
        self.waiting: deque[events.Key] = deque()
        self.serial = 0
        self.in_flight: int | None = None  # the serial of the key not settled yet
        self.current: events.Key | None = None  # that key: what the action it runs was asked for by
        self.marked: MessagePump | None = None  # where that key's marker was posted
        self._stall: Timer | None = None

    @staticmethod
    def takes(event: events.Event) -> TypeGuard[events.Key]:
        """A key straight from the terminal (not one bubbling up from a widget)."""
        return isinstance(event, events.Key) and not event.is_forwarded

    async def receive(self, key: events.Key) -> None:
        """Queue a key from the terminal; dispatch it now when nothing is in flight."""
        self.waiting.append(key)
        await self._next()

    async def _next(self) -> None:
        while self.in_flight is None and self.waiting:
            if not self.app.screen_stack:  # the app is closing: no screen is left to take the keys
                self.waiting.clear()
                return
            key = self.waiting.popleft()
            self.serial += 1
            serial = self.in_flight = self.serial
            self.current = key
            target = self.app.focused or self.app.screen
            await self.dispatch(key)
            marker = KeySettled(serial)
            if target.is_attached and target.post_message(marker):  # behind the key, through the same widgets
                self.marked = target
                self._stall = self.app.set_interval(STALL, lambda s=serial: self._check_marker(s))
            else:  # that widget is gone or closing: straight to the app, where nothing can lose it
                self.app.post_message(marker)

    async def _check_marker(self, serial: int) -> None:
        """The key's marker is lost when the widget it was posted to is gone (a widget takes its children with it,
        so the marker was in one of the gone ones): the key is settled then, never while that widget is there."""
        if serial == self.in_flight and self.marked is not None and not self.marked.is_attached:
            await self._settle(serial)

    def marker_arrived(self, message: KeySettled) -> None:
        message.stop()
        if message.serial == self.in_flight:
            self.app.call_later(self._when_ready, message.serial)

    def _when_ready(self, serial: int) -> None:
        if serial != self.in_flight or not self.app.screen_stack:
            return
        screen = self.app.screen
        if not screen.is_mounted:  # a screen the key pushed is still composing
            self.app.call_after_refresh(self._when_ready, serial)
            return
        self.app.call_later(self._settle, serial)  # after the focus changes its on_mount queued

    async def _settle(self, serial: int) -> None:
        if serial != self.in_flight:
            return
        if self._stall is not None:
            self._stall.stop()
            self._stall = None
        self.in_flight = self.current = self.marked = None
        await self._next()

    def pressed_at(self) -> float | None:
        """When the key being handled arrived from the terminal (its event's time, on Textual's monotonic clock),
        None when no key is: what a rule about the time between presses measures (a run key's burst), whatever
        the time the app took to get to it."""
        return self.current.time if self.current is not None else None
