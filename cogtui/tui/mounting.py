"""Screens closed while they mount: what runs late on a screen popped before (or as) its widgets were mounted.

A screen can be pushed and popped in the same turn (code does it: `navigation`'s going back, a dismiss from a
worker's message; keys cannot). Popping removes its widgets while its `on_mount` is still to run, a refit asked
for with `call_after_refresh` runs after they are gone, and a message already on its way (the module a screen
loads as it opens) is still handled while the screen is being removed: a `query_one` there raised NoMatches (TUI-7).
`while_open` wraps such a method (or an async handler): it runs only while its screen is still open, on the stack
and attached, and does nothing once it has been closed (nothing to draw, no worker to start, no signal to follow).
Upstream behaviour (Textual's tracker has no issue for it): a popped screen's `on_mount` still runs, pinned by
tests/tui/test_textual_behaviour.py, which fails once Textual stops doing it and this can go.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar, overload

from textual.screen import Screen

P = ParamSpec("P")
S = TypeVar("S", bound=Screen[Any])


def still_open(screen: Screen[Any]) -> bool:
    """True while `screen` is on the app's screen stack and in its DOM (its widgets are there to query)."""
    return screen.is_attached and screen in screen.app.screen_stack


@overload
def while_open(
    method: Callable[Concatenate[S, P], Awaitable[None]],
) -> Callable[Concatenate[S, P], Awaitable[None]]: ...


@overload
def while_open(method: Callable[Concatenate[S, P], None]) -> Callable[Concatenate[S, P], None]: ...


def while_open(method: Callable[Concatenate[S, P], Any]) -> Any:
    """`method` of a screen, run only while the screen is open (`still_open`): closed, it does nothing."""
    if inspect.iscoroutinefunction(method):

        async def run_async(screen: S, *args: P.args, **kwargs: P.kwargs) -> None:
            if still_open(screen):
                await method(screen, *args, **kwargs)

        return wraps(method)(run_async)

    def run(screen: S, *args: P.args, **kwargs: P.kwargs) -> None:
        if still_open(screen):
            method(screen, *args, **kwargs)

    # `wraps`: Textual passes a handler the event only when its signature (the method's, through it) takes one.
    return wraps(method)(run)
